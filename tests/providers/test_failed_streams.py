"""A model server that fails partway through a stream, or ends it empty, ends the turn as an error
the person sees — with the server's own message — in the TUI, headless text and JSON, the
transcript and the exit code; never as a silent `done`.

Driven through the real command line (and the real app) with litellm against the fake
OpenAI-compatible server on loopback, which fails the way llama.cpp's servers do: after the 200
and the headers, an error frame (`data: {"error": …}`) or nothing at all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from formspec_consult.commands.launch import engine_factory_for
from formspec_consult.store.events import load_events
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.conversation import ConversationView
from tests.e2e.cli import cli_env, run_cli
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply
from tests.tui.conftest import SIZE, wait_until
from tests.tui.test_conversation_flow import send

OVERFLOW = "Requested tokens (9120) exceed context window of 8192"


@pytest.fixture
def fake(fake_openai: FakeOpenAIServer) -> FakeOpenAIServer:
    return fake_openai  # the shared fixture (tests/fakes/fixtures.py): started, stopped (stalls released)


def model_args(fake: FakeOpenAIServer) -> list[str]:
    return ["--model", "fake", "--base-url", fake.url, "--context-window", "32000", "--allow-unvalidated"]


def _session(project: Path) -> Path:
    (folder,) = [p for p in (project / ".formspec" / "consult").iterdir() if p.is_dir()]
    return folder


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_an_empty_stream_is_an_error_on_stderr_in_the_transcript_and_the_exit_code(
    fake: FakeOpenAIServer, project: Path, tmp_path: Path
) -> None:
    fake.queue(FakeReply(text=""))  # 200, a role chunk, finish_reason stop: not one word
    done = run_cli([*model_args(fake), "-p", "hello"], project, cli_env(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "ended its reply without any text or tool call" in done.stderr
    assert "[turn error:" in done.stderr and "--context-window" in done.stderr  # says what to change
    folder = _session(project)
    events = load_events(folder / "events.jsonl")
    assert [e["reason"] for e in events if e["type"] == "turn_finished"] == ["error"]
    assert any(e["type"] == "notice" and e["level"] == "error" for e in events)
    assert "ended its reply without any text or tool call" in (folder / "transcript.md").read_text(encoding="utf-8")
    assert len(fake.requests) == 1  # not retried: the same request would fail the same way


def test_a_server_error_partway_through_the_stream_shows_the_servers_message_in_json(
    fake: FakeOpenAIServer, project: Path, tmp_path: Path
) -> None:
    fake.queue(FakeReply(text="", stream_error=OVERFLOW))
    done = run_cli([*model_args(fake), "-p", "hello", "--json"], project, cli_env(tmp_path))
    assert done.returncode == 1, done.stderr
    lines = _json_lines(done.stdout)
    errors = [line["message"] for line in lines if line["type"] == "notice" and line["level"] == "error"]
    assert errors and OVERFLOW in errors[0] and "failed partway through its reply" in errors[0]
    assert "--n_ctx" in errors[0] and "--context-window" in errors[0]  # the fix, with the numbers
    finished = [line for line in lines if line["type"] == "turn_finished"]
    assert finished[-1]["reason"] == "error" and OVERFLOW in finished[-1]["error"]
    assert len(fake.requests) == 1
    assert OVERFLOW in (_session(project) / "transcript.md").read_text(encoding="utf-8")


def test_a_server_error_after_some_text_keeps_the_text_and_ends_the_turn_as_an_error(
    fake: FakeOpenAIServer, project: Path, tmp_path: Path
) -> None:
    partial = "Your barbershop needs three entities:"
    fake.queue(FakeReply(text=partial, stream_error="template error: unknown role 'tool'"),
               FakeReply(text="customers, barbers and appointments."))
    done = run_cli([*model_args(fake), "-p", "-"], project, cli_env(tmp_path), stdin="design it\ncontinue\n")
    assert done.returncode == 1, done.stderr
    assert partial in done.stdout and "customers, barbers and appointments." in done.stdout
    assert "template error: unknown role 'tool'" in done.stderr
    turns = [e["reason"] for e in load_events(_session(project) / "events.jsonl") if e["type"] == "turn_finished"]
    assert turns == ["error", "done"]
    second = fake.requests[1].body["messages"]
    assert any(m["role"] == "assistant" and partial in str(m["content"]) for m in second)  # what was read is kept


def test_a_stream_cut_without_a_server_message_stays_a_warning(
    fake: FakeOpenAIServer, project: Path, tmp_path: Path
) -> None:
    fake.queue(FakeReply(text="the start of an answer", cut_short=True))
    done = run_cli([*model_args(fake), "-p", "hi"], project, cli_env(tmp_path))
    assert done.returncode == 0 and "cut off" in done.stderr and "the start of an answer" in done.stdout


@pytest.mark.anyio
async def test_the_tui_shows_an_empty_reply_as_an_error_in_the_conversation(
    fake: FakeOpenAIServer, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    fake.queue(FakeReply(text="", stream_error=OVERFLOW))
    options = {"project": str(project), "model": "fake", "base_url": fake.url, "context_window": 32000,
               "allow_unvalidated": True}
    app = ConsultApp(engine_factory_for(options, in_memory_server=True, preload=()))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None, timeout=60)
        await send(pilot, "hello")
        view = app.query_one(ConversationView)

        def shown_errors() -> list[str]:
            return [str(getattr(b, "text", "")) for b in view.blocks if getattr(b, "role", "") == "notice-error"]

        await wait_until(pilot, lambda: any(OVERFLOW in text for text in shown_errors()), timeout=60)
        assert "failed partway through its reply" in shown_errors()[0]
