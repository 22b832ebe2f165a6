"""The fake OpenAI-compatible server itself: what it streams, records and refuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.openai_server import FakeOpenAIServer, FakeReply


def _sse_chunks(response: httpx.Response) -> list[dict[str, Any]]:
    lines = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    return [json.loads(line) for line in lines[:-1]]


def test_streamed_reply_has_text_chunks_tool_fragments_and_final_usage(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(text="Hello there, friend", tool_calls=[{"name": "ping", "arguments": {"n": 12345}}],
                                usage={"prompt_tokens": 11, "completion_tokens": 7, "cached_tokens": 3}))
    body = {"model": "fake", "messages": [{"role": "user", "content": "hi"}], "stream": True,
            "stream_options": {"include_usage": True}}
    response = httpx.post(f"{fake_openai.url}/chat/completions", json=body)
    chunks = _sse_chunks(response)
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    fragments = [tc["function"].get("arguments", "") for c in chunks if c["choices"]
                 for tc in c["choices"][0]["delta"].get("tool_calls", [])]
    assert text == "Hello there, friend"
    assert json.loads("".join(fragments)) == {"n": 12345} and len(fragments) > 2
    assert chunks[-1]["usage"]["prompt_tokens_details"] == {"cached_tokens": 3}
    assert fake_openai.requests[0].body["messages"] == body["messages"]


def test_error_replies_carry_status_and_retry_after(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(status=429, error="slow down", retry_after="7"), FakeReply(status=401))
    first = httpx.post(f"{fake_openai.url}/chat/completions", json={"model": "fake", "messages": []})
    assert (first.status_code, first.headers["retry-after"]) == (429, "7")
    assert first.json()["error"]["message"] == "slow down"
    assert httpx.post(f"{fake_openai.url}/chat/completions", json={"messages": []}).status_code == 401
    exhausted = httpx.post(f"{fake_openai.url}/chat/completions", json={"messages": []})
    assert exhausted.status_code == 500 and "no scripted reply left" in exhausted.text


def test_a_stalled_reply_hangs_until_released(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(stall=True))
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"{fake_openai.url}/chat/completions", json={"messages": []}, timeout=0.3)
    fake_openai.release_stalls()


def test_it_runs_standalone_from_a_script_file(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("- text: scripted hello\n  expect: ignored here\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.openai_server", "--script", str(script)],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        url = banner.split(" on ", 1)[1].split(" ", 1)[0]
        reply = httpx.post(f"{url}/chat/completions", json={"model": "fake", "messages": []}, timeout=5)
        assert reply.json()["choices"][0]["message"]["content"] == "scripted hello"
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()
