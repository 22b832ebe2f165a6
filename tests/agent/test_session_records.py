"""What a session writes about itself — its header, resumes, notices, a turn closed on resume —
is typed records, written with exactly the keys (and key order) sessions have always had."""

from __future__ import annotations

import json
from contextlib import aclosing
from pathlib import Path
from typing import Any

import anyio
import pytest

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from formspec_consult.store.events import EventLog, load_records, rebuild_history
from formspec_consult.store.records import (
    MessageRecord,
    RepairRecord,
    RequestRecord,
    SessionResumedRecord,
    SessionStartedRecord,
    TurnFinishedRecord,
    TurnStartedRecord,
)

pytestmark = pytest.mark.anyio

EXAMPLE = Path(__file__).resolve().parents[2] / "transcripts-example" / "barbershop-queue" / "events.jsonl"
ENVELOPE = ["v", "seq", "ts", "type"]
META = ["session_id", "model", "provider", "base_url", "project", "allow_unvalidated", "verify", "window",
        "usable_window", "threshold_tokens"]


async def one_turn(options: EngineOptions, text: str) -> Engine:
    engine = await Engine.open(options)
    try:
        with anyio.fail_after(30):
            async with aclosing(engine.run_turn(text)) as events:
                [event async for event in events]
    finally:
        await engine.aclose()
    return engine


def lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "events.jsonl").read_bytes().splitlines()]


def keys_of(events: list[dict[str, Any]], kind: str) -> list[list[str]]:
    return [list(event) for event in events if event["type"] == kind]


async def test_a_new_session_header_has_the_keys_of_the_example_session_in_the_same_order(project: Path) -> None:
    engine = await one_turn(
        EngineOptions(project=project, provider=ScriptedProvider(["Hello."]), in_memory_server=True,
                      servers=server_specs),
        "hi",
    )
    old_header = json.loads(EXAMPLE.read_bytes().splitlines()[0])
    written = lines(engine.session_dir)
    assert keys_of(written, "session_started") == [list(old_header)]
    (header,) = [r for r in load_records(engine.session_dir / "events.jsonl") if isinstance(r, SessionStartedRecord)]
    assert header.session_id == engine.session_id and header.model == "scripted" and header.provider == "scripted"
    assert header.project == str(project.resolve()) and header.window and header.threshold_tokens
    assert "workspace_manifest" in header.context_tools


async def test_resume_after_a_crash_mid_turn_closes_the_turn_with_its_repair_and_the_model_sees_the_repaired_history(
    project: Path, tmp_path: Path
) -> None:
    script = tmp_path / "script.yaml"
    script.write_text('- "First answer."\n', encoding="utf-8")
    first = await one_turn(EngineOptions(project=project, flags={"model": f"scripted:{script}"},
                                         in_memory_server=True, servers=server_specs), "hi")
    folder = first.session_dir
    with EventLog(folder / "events.jsonl") as log:  # the program died after the model asked for a tool
        log.write(TurnStartedRecord(turn=2, user_text="check the schemas"))
        log.write(MessageRecord(message={"role": "user", "content": "check the schemas"}))
        log.write(MessageRecord(message={"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_9", "type": "function", "function": {"name": "list_kind_schemas", "arguments": "{}"}}]}))
    script.write_text('- "Back again."\n', encoding="utf-8")
    before = (folder / "events.jsonl").read_bytes()

    # no --model: the resumed session opens the model it recorded (the script, read again)
    await one_turn(EngineOptions(project=project, resume=first.session_id, in_memory_server=True,
                                 servers=server_specs), "go on")

    after = (folder / "events.jsonl").read_bytes()
    assert after.startswith(before)
    appended = [json.loads(line) for line in after[len(before):].splitlines()]
    assert [e["type"] for e in appended[:4]] == ["session_resumed", "repair", "turn_finished", "turn_started"]
    assert keys_of(appended, "session_resumed") == [ENVELOPE + META]
    assert keys_of(appended, "repair") == [ENVELOPE + ["actions", "remove", "insert"]]
    closed = appended[2]
    assert list(closed) == ENVELOPE + ["turn", "reason", "error", "repaired"]
    assert (closed["turn"], closed["reason"], closed["error"]) == (2, "cancelled", "interrupted")
    assert closed["repaired"] == appended[1]["actions"] and closed["repaired"]

    records = load_records(folder / "events.jsonl")
    (resumed,) = [r for r in records if isinstance(r, SessionResumedRecord)]
    assert resumed.model == f"scripted:{script}" and resumed.session_id == first.session_id
    (repair,) = [r for r in records if isinstance(r, RepairRecord)]
    assert [r.turn for r in records if isinstance(r, TurnFinishedRecord)] == [1, 2, 3]
    # what the last request sent is what the log rebuilds: the dangling call got its cancelled result
    last_request = [r for r in records if isinstance(r, RequestRecord)][-1]
    sent = rebuild_history(records, upto_seq=last_request.seq)
    assert [m["role"] for m in sent[-4:]] == ["user", "assistant", "tool", "user"]
    assert sent[-2]["tool_call_id"] == "call_9" and repair.insert
    assert sent[-1]["content"] == "go on"
