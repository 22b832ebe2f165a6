"""Forking a session (`--resume ID --fork`, `/fork`) through the Engine: real local MCP server in
memory, scripted provider."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from formspec_consult.agent.engine.engine import Engine
from formspec_consult.store.agent_events import Notice, SessionChanged
from formspec_consult.store.events import load_records, rebuild_history
from formspec_consult.store.folder import SessionError
from formspec_consult.store.fork import fork_point_of
from formspec_consult.store.locks import SessionBusy, SessionWriter
from formspec_consult.store.manifest import DraftManifest
from formspec_consult.store.records import SessionStartedRecord
from tests.agent.engines import open_engine, propose, run
from tests.e2e.project import CUSTOMER, DRAFT_PATH

pytestmark = pytest.mark.anyio

SUPPLIER_PATH = "modules/shop/master/supplier/entity.yaml"
SUPPLIER = CUSTOMER.replace("customer", "supplier")


def consult(project: Path) -> Path:
    return project / ".formspec" / "consult"


async def source_session(project: Path) -> tuple[str, list[dict[str, object]]]:
    """A closed session of two turns with one pending draft; its id and what the model last saw."""
    engine, provider = await open_engine(project, [propose(), "Drafted the customers.", "Anything else?"])
    try:
        await run(engine, "we keep a list of customers")
        await run(engine, "thanks")
    finally:
        await engine.aclose()
    return engine.session_id, [*provider.requests[-1], {"role": "assistant", "content": "Anything else?"}]


async def test_a_fork_sees_the_source_history_then_diverges_without_touching_the_source(project: Path) -> None:
    source_id, seen = await source_session(project)
    source_dir = consult(project) / source_id
    log_before = (source_dir / "events.jsonl").read_bytes()
    fork, provider = await open_engine(
        project, [propose(SUPPLIER_PATH, SUPPLIER), "Drafted suppliers instead."], resume=source_id, fork=True
    )
    try:
        assert fork.session_id != source_id
        await run(fork, "option B: suppliers")
        sent = provider.requests[0]
        assert sent[1 : len(seen)] == seen[1:]  # the model goes on from what it saw in the source
        system = str(sent[0]["content"])  # written afresh on resume, naming the session it now works in
        assert fork.session_id in system and source_id not in system
        await run(fork, f"/reject {DRAFT_PATH}")
    finally:
        await fork.aclose()
    assert (source_dir / "events.jsonl").read_bytes() == log_before  # the source is only read
    assert not (source_dir / "draft" / SUPPLIER_PATH).exists()
    assert DraftManifest(source_dir).load()[DRAFT_PATH].state == "pending"  # rejected in the fork only
    assert (source_dir / "draft" / DRAFT_PATH).read_text(encoding="utf-8") == CUSTOMER
    fork_drafts = DraftManifest(fork.session_dir).load()
    assert fork_drafts[SUPPLIER_PATH].state == "pending" and fork_drafts[DRAFT_PATH].state == "rejected"


async def test_the_fork_header_names_its_source_and_its_log_rebuilds_the_source_history(project: Path) -> None:
    source_id, _ = await source_session(project)
    source_log = load_records(consult(project) / source_id / "events.jsonl")
    fork, _ = await open_engine(project, ["Go on."], resume=source_id, fork=True)
    try:
        await run(fork, "next")
    finally:
        await fork.aclose()
    records = load_records(fork.session_dir / "events.jsonl")
    header = records[0]
    assert isinstance(header, SessionStartedRecord) and header.session_id == fork.session_id
    assert (header.forked_from, header.forked_at_seq, header.forked_at_turn) == (source_id, source_log[-1].seq, 2)
    point = fork_point_of(fork.session_dir)
    assert point is not None and point.seq == source_log[-1].seq
    assert rebuild_history(records, upto_seq=point.seq) == rebuild_history(source_log)
    assert [r.to_line() for r in records[1 : len(source_log)]] == [r.to_line() for r in source_log[1:]]
    assert len(rebuild_history(records)) > len(rebuild_history(source_log))  # the fork went on by itself


async def test_a_fork_copies_pending_drafts_as_its_own_files(project: Path) -> None:
    source_id, _ = await source_session(project)
    fork, _ = await open_engine(project, [], resume=source_id, fork=True)
    await fork.aclose()
    ours, theirs = fork.session_dir / "draft" / DRAFT_PATH, consult(project) / source_id / "draft" / DRAFT_PATH
    assert ours.read_bytes() == theirs.read_bytes()
    assert not os.path.samefile(ours, theirs)
    assert (fork.session_dir / "transcript.md").is_file()


async def test_continue_fork_forks_the_latest_session(project: Path) -> None:
    source_id, _ = await source_session(project)
    fork, _ = await open_engine(project, [], continue_latest=True, fork=True)
    await fork.aclose()
    point = fork_point_of(fork.session_dir)
    assert point is not None and point.source == source_id


async def test_forking_an_unknown_session_is_refused_and_writes_nothing(project: Path) -> None:
    await source_session(project)
    before = sorted(p.name for p in consult(project).iterdir())
    with pytest.raises(SessionError, match="There is no session 'nope'"):
        await open_engine(project, [], resume="nope", fork=True)
    assert sorted(p.name for p in consult(project).iterdir()) == before


async def test_forking_a_session_open_in_another_process_is_refused_and_writes_nothing(project: Path) -> None:
    source_id, _ = await source_session(project)
    source_dir = consult(project) / source_id
    before = sorted(p.name for p in consult(project).iterdir())
    holder = SessionWriter(source_dir)
    holder.claim()  # another formspec-consult has the source open
    try:
        with pytest.raises(SessionBusy, match=r"open in another formspec-consult.*use /fork inside it"):
            await open_engine(project, [], resume=source_id, fork=True)
    finally:
        holder.release()
    assert sorted(p.name for p in consult(project).iterdir()) == before


async def test_slash_fork_forks_the_open_session_which_goes_on_unchanged(project: Path) -> None:
    engine, _ = await open_engine(project, [propose(), "Drafted.", "Still here."])
    try:
        await run(engine, "customers")
        log_before = (engine.session_dir / "events.jsonl").read_bytes()
        events = await run(engine, "/fork")
        said = [e for e in events if isinstance(e, Notice)]
        assert (engine.session_dir / "events.jsonl").read_bytes() == log_before  # /fork writes nothing here
        switch = next(e for e in events if isinstance(e, SessionChanged))  # the app switches to the fork
        fork_id = switch.session_id
        assert (switch.reason, switch.turn) == ("forked", 1) and fork_id != engine.session_id
        assert f"formspec-consult --resume {fork_id}" in said[0].message
        point = fork_point_of(consult(project) / fork_id)
        assert point is not None and (point.source, point.turn) == (engine.session_id, 1)
        await run(engine, "go on")  # the source keeps its own claim and goes on
    finally:
        await engine.aclose()
    resumed: Engine
    resumed, _ = await open_engine(project, ["Back in the fork."], resume=fork_id)
    try:
        assert resumed.session_id == fork_id
        assert DraftManifest(resumed.session_dir).load()[DRAFT_PATH].state == "pending"
    finally:
        await resumed.aclose()


@pytest.mark.parametrize("name", ["events.jsonl", "transcript.md", "draft"])
async def test_a_source_whose_files_are_links_is_refused_and_nothing_outside_is_copied(
    project: Path, tmp_path: Path, name: str
) -> None:
    source_id, _ = await source_session(project)
    source_dir = consult(project) / source_id
    outside = tmp_path / f"outside-{name}"
    os.rename(source_dir / name, outside)  # the real file (or folder) now lies outside the session
    (source_dir / name).symlink_to(outside)
    before = sorted(p.name for p in consult(project).iterdir())
    with pytest.raises(SessionError, match=r"symbolic link.*cannot be forked"):
        await open_engine(project, [], resume=source_id, fork=True)
    assert sorted(p.name for p in consult(project).iterdir()) == before
