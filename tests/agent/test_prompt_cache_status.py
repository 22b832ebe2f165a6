"""The Engine with the real litellm provider against the fakes on loopback: cached prompt tokens
are logged per request and shown in /status (Anthropic fake), and assistant messages with tool
calls go out with text, never `content: null` (OpenAI fake)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.commands.wiring import server_specs
from formspec_consult.i18n import format_number
from formspec_consult.providers.litellm_provider import LiteLLMProvider
from formspec_consult.store.agent_events import Notice
from formspec_consult.store.events import EventLog
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

pytestmark = pytest.mark.anyio


async def test_cached_tokens_are_logged_per_request_and_shown_in_status(
    project: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    provider = LiteLLMProvider("anthropic/claude-sonnet-4-5", api_base=fake_anthropic.url, api_key="test-key")
    engine = await Engine.open(EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs))
    try:
        fake_anthropic.queue("What does your shop sell?", "Haircuts, noted.")
        with anyio.fail_after(60):
            for text in ("I run a barbershop", "We sell haircuts"):
                [event async for event in engine.run_turn(text)]
            notices = [e async for e in engine.run_turn("/status") if isinstance(e, Notice)]
        status = engine.status()
    finally:
        await engine.aclose()
    usages = [e for e in EventLog.read(engine.session_dir / "events.jsonl") if e.get("type") == "usage"]
    assert [u["cached_tokens"] for u in usages] == [o.read_tokens for o in fake_anthropic.outcomes]
    assert usages[0]["cached_tokens"] == 0 and usages[1]["cached_tokens"] > 0
    assert status.cached_tokens == usages[1]["cached_tokens"]
    share = status.cached_tokens * 100 // status.prompt_tokens
    cached, prompt = format_number(status.cached_tokens), format_number(status.prompt_tokens)  # 3,028: the locale's
    assert f"Cache:    {cached} of {prompt} prompt tokens read from cache ({share}%)" in notices[0].message


async def test_an_assistant_message_with_tool_calls_is_sent_with_empty_text_not_null(
    project: Path, fake_openai: FakeOpenAIServer
) -> None:
    provider = LiteLLMProvider("openai/fake", api_base=fake_openai.url, api_key="test-key", context_window=64_000)
    engine = await Engine.open(EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs))
    try:
        fake_openai.queue(FakeReply(tool_calls=[{"id": "call_1", "name": "list_skills", "arguments": {}}]),
                          FakeReply(text="Here are the skills."))
        with anyio.fail_after(60):
            [event async for event in engine.run_turn("which skills are there?")]
    finally:
        await engine.aclose()
    sent = [m for m in fake_openai.requests[1].body["messages"] if m["role"] == "assistant"]
    assert sent[-1]["tool_calls"][0]["id"] == "call_1" and sent[-1]["content"] == ""
