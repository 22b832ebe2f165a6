"""The event log's typed records: old sessions read back exactly, new records written as before."""

from __future__ import annotations

import json
import shutil
from contextlib import aclosing
from pathlib import Path
from typing import Any

import anyio
import pytest

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from formspec_consult.store.agent_events import Notice, TurnStarted
from formspec_consult.store.events import EventLog, load_records, rebuild_history
from formspec_consult.store.records import (
    ApplyRecord,
    EventLogError,
    MalformedRecord,
    NoticeRecord,
    RequestRecord,
    SessionStartedRecord,
    ToolResultRecord,
    TurnFinishedRecord,
    UndoRecord,
    UnknownRecord,
    UsageRecord,
    record_from_json,
)
from tests.e2e.project import make_project

EXAMPLE = Path(__file__).resolve().parents[2] / "transcripts-example" / "barbershop-queue"


SESSION_ID = "20261202-154101-9a71"  # the example session folder's name


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh project with a private registry database and no developer config."""
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    return make_project(tmp_path / "shop")


def test_an_old_session_log_reads_as_typed_records_and_writes_back_byte_for_byte() -> None:
    log = EXAMPLE / "events.jsonl"
    records = load_records(log)
    assert b"".join(record.to_line() for record in records) == log.read_bytes()
    header = records[0]
    assert isinstance(header, SessionStartedRecord) and header.provider == "scripted"
    assert header.context_tools[0] == "workspace_manifest" and header.threshold_tokens == 92928
    (apply,) = [r for r in records if isinstance(r, ApplyRecord)]
    (undo,) = [r for r in records if isinstance(r, UndoRecord)]
    assert apply.path == undo.path == "modules/booking/transaction/queue_ticket/entity.yaml"
    assert apply.undo_step == 1 and apply.forced is False
    results = [r for r in records if isinstance(r, ToolResultRecord)]
    assert results and all(r.server and r.name and isinstance(r.ok, bool) for r in results)
    # the typed records rebuild the same model-visible history as the raw lines
    assert rebuild_history(records) == rebuild_history(json.loads(line) for line in log.read_bytes().splitlines())


def test_fields_this_version_does_not_name_and_unknown_types_are_kept_in_place() -> None:
    line = {"v": 1, "seq": 7, "ts": "t", "type": "notice", "later": [1], "level": "info", "message": "hi"}
    record = record_from_json(line)
    assert isinstance(record, NoticeRecord) and record.message == "hi" and record.extra == {"later": [1]}
    assert list(record.to_json().items()) == list(line.items())
    future = {"v": 2, "seq": 8, "ts": "t", "type": "hologram", "depth": 3}
    unknown = record_from_json(future)
    assert isinstance(unknown, UnknownRecord) and unknown.type == "hologram"
    assert unknown.to_json() == future
    absent = {"v": 1, "seq": 9, "ts": "t", "type": "turn_finished", "turn": 2}  # an older writer's line
    assert record_from_json(absent).to_json() == absent


def test_a_record_made_in_code_is_written_as_the_writers_always_wrote_it(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.jsonl")
    notice = log.write(NoticeRecord(level="warning", message="slow"))
    request = log.write(RequestRecord(message_count=3, tokens=120, estimated=True, tools_sha256="abc"))
    closed = log.write(TurnFinishedRecord(turn=1, reason="done"))
    log.close()
    assert (notice.seq, request.seq, closed.seq) == (1, 2, 3) and notice.ts.endswith("Z")
    written = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert [list(e)[4:] for e in written] == [
        ["level", "message"],  # no "retry": the record leaves out what it was not given
        ["message_count", "tokens", "estimated", "tools_sha256"],
        ["turn", "reason", "error"],  # error: null is part of every turn_finished
    ]
    assert [record_from_json(e) for e in written] == [notice, request, closed]


@pytest.mark.anyio
async def test_an_old_session_folder_resumes_with_its_conversation_and_review_history(
    project: Path,
) -> None:
    session_id = SESSION_ID
    folder = project / ".formspec" / "consult" / session_id
    shutil.copytree(EXAMPLE, folder)
    before = (folder / "events.jsonl").read_bytes()
    engine = await Engine.open(
        EngineOptions(project=project, resume=session_id, provider=ScriptedProvider(["Welcome back."]),
                      in_memory_server=True, servers=server_specs)
    )
    try:
        past = engine.past_events()
        assert [e.turn for e in past if isinstance(e, TurnStarted)] == [1, 2, 3]
        notes = [e.message for e in past if isinstance(e, Notice)]
        assert any(n.startswith("Applied modules/booking/transaction/queue_ticket/entity.yaml") for n in notes)
        assert any(n.startswith("Undid the apply of modules/booking") for n in notes)
        assert engine.status().turn == 3
        with anyio.fail_after(30):
            async with aclosing(engine.run_turn("hello again")) as events:
                [event async for event in events]
    finally:
        await engine.aclose()
    after = (folder / "events.jsonl").read_bytes()
    assert after.startswith(before)  # the old lines stay exactly as they were; the resume appends
    appended = [record_from_json(json.loads(line)) for line in after[len(before):].splitlines()]
    assert appended[0].type == "session_resumed"
    assert [r.turn for r in appended if isinstance(r, TurnFinishedRecord)] == [4]


def _example_with(folder: Path, edit: dict[str, Any], kind: str, extra_line: str | None = None) -> bytes:
    """The example session copied to `folder`, its first `kind` line changed by `edit` (a hand edit)."""
    shutil.copytree(EXAMPLE, folder)
    lines = (folder / "events.jsonl").read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == kind)
    lines[at] = (json.dumps({**json.loads(lines[at]), **edit}, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    if extra_line is not None:
        lines.insert(at + 1, extra_line.encode() + b"\n")
    (folder / "events.jsonl").write_bytes(b"".join(lines))
    return b"".join(lines)


def _resume_options(project: Path, session_id: str, replies: list[Any]) -> EngineOptions:
    return EngineOptions(project=project, resume=session_id, provider=ScriptedProvider(replies),
                         in_memory_server=True, servers=server_specs)


@pytest.mark.anyio
async def test_a_hand_edited_line_with_a_wrong_typed_field_and_an_unknown_type_are_kept_and_the_session_resumes(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    session_id = SESSION_ID
    folder = project / ".formspec" / "consult" / session_id
    future = '{"v":2,"seq":999,"ts":"t","type":"hologram","depth":3}'
    before = _example_with(folder, {"context_tokens": "lots"}, "usage", extra_line=future)
    engine = await Engine.open(_resume_options(project, session_id, ["Welcome back."]))
    try:
        assert engine.status().turn == 3  # the turns, the history and the review notes are all there
        with anyio.fail_after(30):
            async with aclosing(engine.run_turn("hello again")) as events:
                [event async for event in events]
    finally:
        await engine.aclose()
    after = (folder / "events.jsonl").read_bytes()
    assert after.startswith(before)  # both lines stay exactly as they were written
    records = load_records(folder / "events.jsonl")
    (odd,) = [r for r in records if isinstance(r, MalformedRecord)]
    assert odd.type == "usage" and odd.problem == "'context_tokens' is \"lots\", not a whole number"
    assert odd.to_line() in before and not isinstance(odd, UsageRecord)
    assert [r.type for r in records if isinstance(r, UnknownRecord) and not isinstance(r, MalformedRecord)] == ["hologram"]
    assert f"{folder / 'events.jsonl'}: in the 'usage' event with seq" in caplog.text
    assert "'context_tokens' is \"lots\", not a whole number; the line is kept as it is" in caplog.text


@pytest.mark.anyio
async def test_a_damaged_message_line_refuses_the_resume_naming_the_line_and_changes_nothing(
    project: Path,
) -> None:
    session_id = SESSION_ID
    folder = project / ".formspec" / "consult" / session_id
    before = _example_with(folder, {"message": "I run a barbershop"}, "message")
    files = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    with pytest.raises(EventLogError) as refused:
        await Engine.open(_resume_options(project, session_id, ["never sent"]))
    message = str(refused.value)
    seq = next(json.loads(line)["seq"] for line in before.splitlines() if json.loads(line)["type"] == "message")
    assert f"'message' event with seq {seq}" in message and "'message' is \"I run a barbershop\", not an object" in message
    assert "restore the file from a backup" in message and "start a new session" in message
    assert (folder / "events.jsonl").read_bytes() == before
    now = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert now.pop(Path(".writer.lock"), b"") == b"" and now == files  # the claim let go, nothing else written
    with pytest.raises(EventLogError):
        rebuild_history(json.loads(line) for line in before.splitlines())
