"""End to end: the real litellm provider against the fake OpenAI server, the real stdio MCP
servers, the real command line — drafts land in the session, and a kill -9 loses nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from formspec_consult.store.events import EventLog
from tests.e2e.cli import cli_env, run_cli
from tests.e2e.project import CUSTOMER, DRAFT_PATH, make_project
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply
from tests.tui.tmux import wait_for

pytestmark = pytest.mark.slow
KEY = "sk-e2e-secret-value"


def propose() -> FakeReply:
    return FakeReply(
        tool_calls=[{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]
    )


def session_folder(project: Path) -> Path:
    (folder,) = [p for p in (project / ".formspec" / "consult").iterdir() if p.is_dir()]
    return folder


def test_a_consultation_through_litellm_and_stdio_mcp_leaves_a_valid_draft(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    project = make_project(tmp_path / "shop")
    env = cli_env(tmp_path, FORMSPEC_LLM_API_KEY=KEY)
    fake_openai.queue(propose(), FakeReply(text="I drafted the customer entity; review it with /diff."))
    result = run_cli(
        [*fake_openai.cli_args(), "-p", "We keep a list of customers with phone numbers."], project, env
    )
    assert result.returncode == 0, result.stderr
    assert "I drafted the customer entity" in result.stdout
    first, second = (request.body for request in fake_openai.requests)
    folder = session_folder(project)
    assert first["messages"][0]["role"] == "system" and folder.name in first["messages"][0]["content"]
    assert "Corner Shop" in first["messages"][0]["content"]
    assert "propose_spec_file" in {tool["function"]["name"] for tool in first["tools"]}
    # the model's lean view of the answer; a drafting round's last result ends with the step budget
    content = second["messages"][-1]["content"]
    assert "\n\n[Step budget" in content
    tool_result = json.loads(content.split("\n\n[Step budget")[0])
    assert tool_result["valid"] is True and tool_result["path"].endswith("customer/entity.yaml")
    diff = run_cli(["diff"], project, env)
    assert "(new, valid)" in diff.stdout
    for name in ("events.jsonl", "transcript.md"):
        assert KEY not in (folder / name).read_text(encoding="utf-8")


def test_kill_9_mid_turn_then_continue_resumes_with_no_event_lost(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    project = make_project(tmp_path / "shop")
    env = cli_env(tmp_path, FORMSPEC_LLM_API_KEY=KEY)
    fake_openai.queue(propose(), FakeReply(stall=True))
    process = subprocess.Popen(
        [sys.executable, "-m", "formspec_consult", *fake_openai.cli_args(), "-p", "customers"],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        fake_openai.wait_for_requests(2, timeout=90)  # the tool ran; the model's second answer hangs
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    log_path = session_folder(project) / "events.jsonl"
    before = list(EventLog.read(log_path))
    assert [e["seq"] for e in before] == list(range(1, len(before) + 1))
    assert "tool_result" in [e["type"] for e in before]

    fake_openai.queue(FakeReply(text="Welcome back: the customer draft is ready."))
    # No model flags: the session remembers its model, endpoint, window and override.
    result = run_cli(["--continue", "-p", "where were we?"], project, env)
    assert result.returncode == 0, result.stderr
    assert "Welcome back" in result.stdout
    after = list(EventLog.read(log_path))
    assert after[: len(before)] == before  # nothing lost or rewritten
    assert [e["seq"] for e in after] == list(range(1, len(after) + 1))
    kinds = [e["type"] for e in after[len(before) :]]
    assert kinds[0] == "session_resumed"
    interrupted = [e for e in after if e["type"] == "turn_finished" and e.get("error") == "interrupted"]
    assert interrupted and interrupted[0]["turn"] == 1
    resumed_request = fake_openai.requests[-1].body["messages"]
    assert resumed_request[:3] == fake_openai.requests[1].body["messages"][:3]
    assert any(m.get("tool_calls") for m in resumed_request)
    assert resumed_request[-1] == {"role": "user", "content": "where were we?"}
    assert [e["turn"] for e in after if e["type"] == "turn_started"] == [1, 2]


def ignore_sigint() -> None:
    """What a shell without job control (a script's `cmd &`, a CI runner) does to a background job."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


SIGINT_AS = pytest.mark.parametrize(
    "inherited", [signal.SIG_DFL, signal.SIG_IGN], ids=["started-from-a-terminal", "started-with-sigint-ignored"]
)


@SIGINT_AS
def test_ctrl_c_mid_reply_exits_130_and_logs_a_cancelled_turn_with_what_was_shown(
    tmp_path: Path, fake_openai: FakeOpenAIServer, inherited: signal.Handlers
) -> None:
    project = make_project(tmp_path / "shop")
    env = cli_env(tmp_path, FORMSPEC_LLM_API_KEY=KEY)
    fake_openai.queue(FakeReply(text="A partial answer that never ends", stall_after_chunks=2))
    command = [sys.executable, "-m", "formspec_consult", *fake_openai.cli_args(), "-p", "hello"]
    with subprocess.Popen(
        command, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        preexec_fn=ignore_sigint if inherited == signal.SIG_IGN else None,
    ) as process:
        try:
            fake_openai.wait_for_requests(1, timeout=90)
            assert process.stdout is not None
            # Blocks until the first streamed chunk is out (then the reply stalls); pytest-timeout bounds it.
            assert process.stdout.read(6) == "A part"
            process.send_signal(signal.SIGINT)
            process.wait(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 130
    events = list(EventLog.read(session_folder(project) / "events.jsonl"))
    assert events[-1]["type"] == "turn_finished" and events[-1]["reason"] == "cancelled"
    kept = [e["message"] for e in events if e["type"] == "message" and e["message"]["role"] == "assistant"]
    assert kept and kept[-1]["content"].startswith("A part")


def test_ctrl_c_during_start_up_exits_130_sends_nothing_and_leaves_no_session(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    project = make_project(tmp_path / "shop")
    env = cli_env(tmp_path, FORMSPEC_LLM_API_KEY=KEY)
    # Were the Ctrl-C lost, the turn would start and wait on this stalled reply for ever.
    fake_openai.queue(FakeReply(text="should never be asked for", stall_after_chunks=0))
    consult = project / ".formspec" / "consult"
    command = [sys.executable, "-m", "formspec_consult", *fake_openai.cli_args(), "-p", "hello"]
    with subprocess.Popen(
        command, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        try:
            # The session folder is made first; the servers and the provider's warm-up take seconds after it.
            wait_for(lambda: consult.is_dir() and any(p.is_dir() for p in consult.iterdir()), 90,
                     "the start-up to create the session folder")
            process.send_signal(signal.SIGINT)
            process.wait(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 130
    assert fake_openai.requests == [], "nothing is sent to the model after Ctrl-C"
    assert not consult.exists() or not [p for p in consult.iterdir() if p.is_dir()], "a start that stopped leaves no session"
