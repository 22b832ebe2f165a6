"""Model and provider faults, through the real command line, litellm and the fake OpenAI server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from formspec_consult.store.events import EventLog, load_events
from tests.e2e.cli import cli_env, run_cli, write_script
from tests.e2e.project import make_project
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply
from tests.integrity.scenarios import Observed, scenario


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def _run(args: list[str], project: Path, env: dict[str, str], stdin: str | None = None,
         timeout: float = 60) -> subprocess.CompletedProcess[str]:
    try:
        return run_cli(args, project, env, stdin=stdin, timeout=timeout)
    except subprocess.TimeoutExpired as exc:  # the fault itself (e.g. a request that never times out)
        return subprocess.CompletedProcess(args, -1, str(exc.stdout or ""), f"timed out after {timeout} s")


def _folder(project: Path) -> Path:
    (folder,) = [p for p in (project / ".formspec" / "consult").iterdir() if p.is_dir()]
    return folder


@scenario
def duplicate_tool_call_ids_in_one_reply(request: pytest.FixtureRequest) -> Observed:
    """The server answers with two tool calls that share one id; then the session goes on."""
    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = make_project(tmp_path / "shop")
    twice = FakeReply(tool_calls=[{"id": "call_0", "name": "list_drafts", "arguments": {}},
                                  {"id": "call_0", "name": "list_kind_schemas", "arguments": {}}])
    with FakeOpenAIServer([twice, FakeReply(text="Nothing drafted yet."), FakeReply(text="Still here.")]) as fake:
        done = _run([*fake.cli_args(), "-p", "-", "--json"], project, cli_env(tmp_path),
                    stdin="what is drafted?\nand now?\n")
        sent = [r.body["messages"] for r in fake.requests]
    lines = _json_lines(done.stdout)
    ids = [c["id"] for m in (sent[1] if len(sent) > 1 else []) for c in m.get("tool_calls") or []]
    return {
        "exit": done.returncode,
        "turns": [line["reason"] for line in lines if line["type"] == "turn_finished"],
        "ids_sent_back_unique": len(ids) == 2 and len(set(ids)) == 2,
        "requests": len(sent),
    }


@scenario
def resumed_history_with_a_pairing_defect(request: pytest.FixtureRequest) -> Observed:
    """A session logged before the fix (one reply with a repeated tool-call id) is resumed."""
    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = make_project(tmp_path / "shop")
    folder = project / ".formspec" / "consult" / "20261201-080000-dupe"
    with EventLog(folder / "events.jsonl") as log:
        log.append("session_started", session_id=folder.name, model="scripted:x", provider="scripted",
                   project=str(project), window=32000)
        for message in (
            {"role": "system", "content": "You are the consultant."},
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_0", "type": "function", "function": {"name": "list_drafts", "arguments": "{}"}},
                {"id": "call_0", "type": "function", "function": {"name": "list_skills", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_0", "content": "{}"},
            {"role": "tool", "tool_call_id": "call_0", "content": "[]"},
            {"role": "assistant", "content": "Hello!"},
        ):
            log.append("message", message=message)
        log.append("turn_started", turn=1, user_text="hello")
        log.append("turn_finished", turn=1, reason="done", error=None)
    script = write_script(tmp_path / "s.yaml", ["Welcome back."])
    done = _run(["-m", f"scripted:{script}", "--resume", folder.name, "-p", "are you there?"], project,
                cli_env(tmp_path))
    events = load_events(folder / "events.jsonl")
    first_request = next((e["seq"] for e in events if e["type"] == "request"), None)
    repairs = [e["seq"] for e in events if e["type"] == "repair"]
    return {
        "exit": done.returncode,
        "reply": done.stdout.strip(),
        "repaired_before_first_request": bool(repairs) and first_request is not None
        and max(repairs) < first_request,
        "errors": done.stderr if done.returncode else "",
    }


@scenario
def retries_are_announced(request: pytest.FixtureRequest) -> Observed:
    """A request that times out (request_timeout: 1 s), then a 429 with Retry-After, then the answer."""
    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = make_project(tmp_path / "shop")
    replies = (FakeReply(stall=True), FakeReply(status=429, error="slow down", retry_after="1"),
               FakeReply(text="Here I am."))
    env = cli_env(tmp_path, FORMSPEC_REQUEST_TIMEOUT="1")
    with FakeOpenAIServer(replies) as fake:
        as_json = _run([*fake.cli_args(), "-p", "hi", "--json"], project, env)
    with FakeOpenAIServer(replies) as fake:
        as_text = _run([*fake.cli_args(), "-p", "hi"], project, env)
    notices = [line["message"] for line in _json_lines(as_json.stdout) if line["type"] == "notice"]
    logged = [e for folder in (project / ".formspec" / "consult").iterdir() if folder.is_dir()
              for e in load_events(folder / "events.jsonl") if e["type"] == "notice" and e.get("retry")]
    return {
        "json_exit": as_json.returncode,
        "json_notices": " | ".join(notices),
        "json_retry_notices": sum("retrying in" in n for n in notices),
        "text_exit": as_text.returncode,
        "text_reply": as_text.stdout.strip(),
        "text_stderr_retries": sum("retrying in" in line for line in as_text.stderr.splitlines()),
        "retry_events_logged": len(logged),
    }


@scenario
def stream_closed_without_finish_reason(request: pytest.FixtureRequest) -> Observed:
    """The stream ends after some text, without finish_reason, usage or [DONE]; then one more turn."""
    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = make_project(tmp_path / "shop")
    partial = "Your barbershop needs three entities: customers, barbers and"
    with FakeOpenAIServer([FakeReply(text=partial, cut_short=True), FakeReply(text="…and appointments.")]) as fake:
        done = _run([*fake.cli_args(), "-p", "-"], project, cli_env(tmp_path), stdin="design it\ncontinue\n")
        sent = [r.body["messages"] for r in fake.requests]
    kept = any(m.get("role") == "assistant" and partial in str(m.get("content")) for m in sent[-1]) if sent else False
    return {
        "exit": done.returncode,
        "stdout": done.stdout,
        "said_what_happened": next((line for line in done.stderr.splitlines() if "cut off" in line), ""),
        "provider_error_500": "provider error 500" in done.stderr,
        "text_kept_in_history": kept,
    }


@scenario
def tool_calls_no_parser_can_take(request: pytest.FixtureRequest) -> Observed:
    """A real headless session: the model calls a tool with arguments nested 100,000 deep, then
    with a 5,000-digit integer, then answers; a second message gets a tool call with no name."""
    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = make_project(tmp_path / "shop")
    deep = '{"path": ' + "[" * 100_000 + "]" * 100_000 + "}"
    huge = '{"path": ' + "9" * 5000 + "}"
    replies = [FakeReply(tool_calls=[{"id": "call_deep", "name": "list_drafts", "arguments": deep}], chunk_size=1_000_000),
               FakeReply(tool_calls=[{"id": "call_huge", "name": "list_drafts", "arguments": huge}], chunk_size=1_000_000),
               FakeReply(text="Sorry, let me try that properly."),
               FakeReply(tool_calls=[{"id": "call_empty", "name": "", "arguments": "{}"}])]
    with FakeOpenAIServer(replies) as fake:
        done = _run([*fake.cli_args(), "-p", "-"], project, cli_env(tmp_path), stdin="list them\nagain\n")
        sent = [r.body["messages"] for r in fake.requests]
    tool_texts = [m.get("content") or "" for m in (sent[2] if len(sent) > 2 else []) if m.get("role") == "tool"]
    return {
        "first_reply": done.stdout.strip().splitlines()[0] if done.stdout.strip() else "",
        "deep_answer": tool_texts[0] if tool_texts else "",
        "huge_answer": tool_texts[1] if len(tool_texts) > 1 else "",
        "empty_name_said": next((line for line in done.stderr.splitlines() if "without a tool name" in line), ""),
        "context_window_hint": "context window" in done.stderr.replace("not of the context window", ""),
        "traceback": "Traceback" in done.stderr,
    }


@scenario
def local_model_server_dies_mid_reply(request: pytest.FixtureRequest) -> Observed:
    """A local model server accepts the request, streams its first frames and dies (its port left
    empty): once before any text, once after some text was shown."""
    from tests.fakes.dying_server import DyingServer

    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = make_project(tmp_path / "shop")
    facts: Observed = {}
    for name, text in (("before_text", ""), ("after_text", "Your barbershop needs")):
        with DyingServer(text) as server:
            done = _run(["--model", "fake", "--base-url", server.url, "--context-window", "32000",
                         "--allow-unvalidated", "-p", "hi"], project, cli_env(tmp_path))
        said = next((line for line in done.stderr.splitlines() if "turn error" in line), "")
        facts[f"{name}_exit"] = done.returncode
        facts[f"{name}_said"] = said
        facts[f"{name}_bare_connection_error"] = "Connection error" in said
    facts["after_text_kept"] = "Your barbershop needs" in done.stdout
    return facts


@scenario
def terminal_escapes_from_the_model(request: pytest.FixtureRequest) -> Observed:
    """The model's reply holds a clipboard write (OSC 52), a clear-screen and a C1 CSI; its tool
    call's name carries a bell. Headless text output (stdout and stderr, piped)."""
    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = make_project(tmp_path / "shop")
    reply = "Here it is.\x1b]52;c;ZWNobyBoYWNrZWQ=\x07\x1b[2J\x1b[H\x9b31mdone\n\tindented"
    replies = [FakeReply(tool_calls=[{"id": "call_1", "name": "list_drafts\x07", "arguments": {}}]),
               FakeReply(text=reply)]
    with FakeOpenAIServer(replies) as fake:
        done = _run([*fake.cli_args(), "-p", "hi"], project, cli_env(tmp_path))
    both = done.stdout + done.stderr
    return {
        "exit": done.returncode,
        "escape_bytes_printed": any(ch in both for ch in "\x1b\x07\x9b"),
        "shown_visibly": "Here it is.\\x1b]52;c;ZWNobyBoYWNrZWQ=\\x07\\x1b[2J" in done.stdout,
        "newline_and_tab_kept": "done\n\tindented" in done.stdout,
    }


@scenario
def resume_through_symlinked_logs(request: pytest.FixtureRequest) -> Observed:
    """A session's events.jsonl, then its transcript.md, replaced by links to files outside; then
    a line nested 10,000 deep in its log. Each time the session is resumed headless."""
    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = make_project(tmp_path / "shop")
    env = cli_env(tmp_path)
    script = write_script(tmp_path / "s.yaml", ["Hello.", "Again.", "Once more.", "And again."])
    first = _run(["-m", f"scripted:{script}", "-p", "hi"], project, env)
    folder = _folder(project)
    outside = tmp_path / "outside.jsonl"
    events = folder / "events.jsonl"
    outside.write_bytes(events.read_bytes())
    real = events.read_bytes()
    events.unlink()
    events.symlink_to(outside)
    via_events = _run(["-m", f"scripted:{script}", "--resume", folder.name, "-p", "again"], project, env)
    outside_events_unchanged = outside.read_bytes() == real
    events.unlink()
    events.write_bytes(real)
    transcript = folder / "transcript.md"
    outside_md = tmp_path / "outside.md"
    outside_md.write_bytes(transcript.read_bytes())
    transcript.unlink()
    transcript.symlink_to(outside_md)
    md_before = outside_md.read_bytes()
    via_transcript = _run(["-m", f"scripted:{script}", "--resume", folder.name, "-p", "again"], project, env)
    transcript.unlink()
    deep = '{"type": "notice", "seq": 999, "x": ' + "[" * 10_000 + "]" * 10_000 + "}\n"
    lines = events.read_bytes().splitlines(keepends=True)
    events.write_bytes(b"".join(lines[:2]) + deep.encode() + b"".join(lines[2:]))
    deep_resume = _run(["-m", f"scripted:{script}", "--resume", folder.name, "-p", "again"], project, env)
    return {
        "first_exit": first.returncode,
        "events_link_exit": via_events.returncode,
        "events_link_message": via_events.stderr.strip(),
        "outside_events_unchanged": outside_events_unchanged,
        "transcript_link_written_through": outside_md.read_bytes() != md_before,
        "transcript_link_exit": via_transcript.returncode,
        "deep_line_traceback": "Traceback" in deep_resume.stderr or "RecursionError" in deep_resume.stderr,
        "deep_line_exit": deep_resume.returncode,
        "deep_line_message": deep_resume.stderr.strip()[-400:],
    }


@scenario
def credentials_in_urls(request: pytest.FixtureRequest) -> Observed:
    """A password in --base-url and a token in the registry URL's query: a headless turn, then
    `doctor`. Neither may appear in events.jsonl, transcript.md, stdout/stderr or doctor's report."""
    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = make_project(tmp_path / "shop")
    password, token = "pw-s3cret-42", "tok-98765-secret"
    env = cli_env(tmp_path, FORMSPEC_REGISTRY_URL=f"http://127.0.0.1:9/mcp?token={token}")
    with FakeOpenAIServer([FakeReply(text="Hello there.")]) as fake:
        base = fake.url.replace("http://", f"http://owner:{password}@")
        done = _run(["--model", "fake", "--base-url", base, "--context-window", "32000", "--allow-unvalidated",
                     "-p", "hi"], project, env)
        doctor = _run(["--model", "fake", "--base-url", base, "doctor"], project, env)
    folder = _folder(project)
    files = (folder / "events.jsonl").read_text(encoding="utf-8") + (folder / "transcript.md").read_text(
        encoding="utf-8")
    printed = done.stdout + done.stderr
    return {
        "exit": done.returncode,
        "reply": done.stdout.strip(),
        "in_session_files": password in files or token in files,
        "in_output": password in printed or token in printed,
        "in_doctor": password in doctor.stdout + doctor.stderr or token in doctor.stdout + doctor.stderr,
        "doctor_shows_it_masked": "owner:***@" in doctor.stdout,
    }
