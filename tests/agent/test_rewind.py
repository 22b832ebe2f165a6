"""Rewinding a session (`/rewind N [--files|--conversation|--both]`) through the Engine: the real
local MCP server in memory, a scripted provider; what the model is sent next is the proof."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from formspec_consult.agent.engine.engine import Engine
from formspec_consult.store.agent_events import AgentEvent, Notice, SessionChanged, TurnFinished
from formspec_consult.store.events import load_records, rebuild_history
from formspec_consult.store.manifest import DraftManifest
from formspec_consult.store.records import RewindRecord, UndoRecord
from tests.agent.engines import open_engine, propose, run
from tests.e2e.project import CUSTOMER, DRAFT_PATH

pytestmark = pytest.mark.anyio

SUPPLIER_PATH = "modules/shop/master/supplier/entity.yaml"
SUPPLIER = CUSTOMER.replace("customer", "supplier")
CUSTOMER_V2 = CUSTOMER.replace("{name: phone, type: string}", "{name: phone, type: string}\n    - {name: email, type: string}")


def notices(events: list[AgentEvent], level: str = "info") -> list[str]:
    return [e.message for e in events if isinstance(e, Notice) and e.level == level]


def history(engine: Engine) -> list[dict[str, Any]]:
    return engine._s.history.messages  # type: ignore[union-attr]  # the live view, compared with the log


def states(engine: Engine) -> dict[str, str]:
    return {rel: record.state for rel, record in DraftManifest(engine.session_dir).load().items()}


async def three_turns(project: Path, extra: list[Any]) -> tuple[Engine, Any, list[dict[str, Any]]]:
    """Turn 1 talks, turn 2 drafts the customers (applied after it), turn 3 drafts the suppliers;
    returns the engine, its provider and what the model had seen at the end of turn 1."""
    engine, provider = await open_engine(
        project, ["What do you sell?", propose(), "Drafted the customers.", propose(SUPPLIER_PATH, SUPPLIER),
                  "Drafted the suppliers.", *extra])
    await run(engine, "hello")
    await run(engine, "we keep customers")
    await run(engine, f"/apply {DRAFT_PATH}")
    await run(engine, "and suppliers")
    seen_after_turn_1 = provider.requests[1][:-1]  # turn 2's request, without its user message
    return engine, provider, seen_after_turn_1


async def test_rewind_undoes_later_applies_withdraws_later_drafts_and_cuts_what_the_model_sees(project: Path) -> None:
    engine, provider, seen = await three_turns(project, ["Starting over from the sale."])
    target = project / "spec" / DRAFT_PATH
    try:
        assert target.read_bytes() == CUSTOMER.encode()
        events = await run(engine, "/rewind 1")
        assert events[-1] == TurnFinished("done")
        assert SessionChanged(engine.session_id, "rewound", 1) in events
        said = notices(events)[0]
        assert said.startswith("Rewound the conversation and the files to the end of turn 1")
        assert f"undid the applies of {DRAFT_PATH}" in said and SUPPLIER_PATH in said
        assert not target.exists()  # the apply of turn 2 undone: the file did not exist before it
        assert not (engine.session_dir / "draft" / SUPPLIER_PATH).exists()
        assert states(engine) == {DRAFT_PATH: "rejected"}  # back for review after the undo, then rejected
        assert SUPPLIER_PATH not in states(engine)  # withdrawn: as though never proposed
        await run(engine, "we sell coffee")
        sent = provider.requests[-1]
        assert sent[:-1] == seen  # the model goes on from the end of turn 1, system prompt included
        assert sent[-1] == {"role": "user", "content": "we sell coffee"}  # nothing said about the undone apply
        records = load_records(engine.session_dir / "events.jsonl")
        assert rebuild_history(records) == history(engine)  # the log rebuilds the live view
        assert sum(isinstance(r, UndoRecord) for r in records) == 1  # the server logged the undo
        rewind = next(r for r in records if isinstance(r, RewindRecord))
        assert (rewind.to_turn, rewind.mode, list(rewind.undone)) == (1, "both", [DRAFT_PATH])
        assert any(r.type == "turn_started" and getattr(r, "turn", 0) == 3 for r in records)  # the log keeps all
        assert engine.status().turn == 4  # numbers are never reused
    finally:
        await engine.aclose()


async def test_rewind_puts_back_a_modified_file_byte_for_byte_and_the_draft_as_it_was(project: Path) -> None:
    engine, _ = await open_engine(project, [propose(), "Drafted.", propose(DRAFT_PATH, CUSTOMER_V2), "Added email.",
                                            propose(DRAFT_PATH, CUSTOMER_V2 + "# more\n"), "More."])
    target = project / "spec" / DRAFT_PATH
    try:
        await run(engine, "customers")
        await run(engine, f"/apply {DRAFT_PATH}")
        await run(engine, "add an email")  # turn 2: a new draft of the same file
        await run(engine, f"/apply {DRAFT_PATH}")
        await run(engine, "and more")  # turn 3: a third draft, pending
        assert target.read_bytes() == CUSTOMER_V2.encode()
        events = await run(engine, "/rewind 2 --files")
        assert events[-1] == TurnFinished("done"), notices(events, "error")
        assert target.read_bytes() == CUSTOMER.encode()  # the bytes turn 1's apply wrote
        # at the end of turn 2 the email draft was under review: it is again, with its content then
        assert (engine.session_dir / "draft" / DRAFT_PATH).read_bytes() == CUSTOMER_V2.encode()
        assert states(engine)[DRAFT_PATH] == "pending"
    finally:
        await engine.aclose()


async def test_rewind_over_a_file_changed_by_hand_is_refused_naming_it_and_changes_nothing(project: Path) -> None:
    engine, _, _ = await three_turns(project, [])
    target = project / "spec" / DRAFT_PATH
    try:
        target.write_text(CUSTOMER + "# my own note\n", encoding="utf-8")
        drafts_before = states(engine)
        messages_before = list(history(engine))
        events = await run(engine, "/rewind 1")
        assert isinstance(events[-1], TurnFinished) and events[-1].reason == "error"
        error = notices(events, "error")[0]
        assert f"spec/{DRAFT_PATH} changed outside this session" in error and "--conversation" in error
        assert target.read_text(encoding="utf-8").endswith("# my own note\n")
        assert states(engine) == drafts_before and history(engine) == messages_before
        assert not any(isinstance(r, RewindRecord) for r in load_records(engine.session_dir / "events.jsonl"))
    finally:
        await engine.aclose()


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("/rewind 9", "Turn 9 of session {sid} does not exist: the conversation's turns are 1, 2, 3"),
        ("/rewind 3", "Nothing to rewind: the session is already as it was at the end of turn 3"),
        ("/rewind two", "Usage: /rewind [turn] [--files|--conversation|--both]"),
        ("/rewind --files", "Usage: /rewind [turn]"),
    ],
)
async def test_a_rewind_to_a_turn_it_cannot_go_to_is_refused_with_what_to_do(
    project: Path, command: str, said: str
) -> None:
    engine, _, _ = await three_turns(project, [])
    try:
        log_before = (engine.session_dir / "events.jsonl").read_bytes()
        drafts_before = states(engine)
        events = await run(engine, command)
        assert said.format(sid=engine.session_id) in notices(events, "error")[0]
        assert states(engine) == drafts_before
        after = (engine.session_dir / "events.jsonl").read_bytes()
        assert after.startswith(log_before) and b'"type":"rewind"' not in after
    finally:
        await engine.aclose()


async def test_a_turn_rewound_away_cannot_be_rewound_to_and_the_list_shows_the_turns_left(project: Path) -> None:
    engine, _, _ = await three_turns(project, ["Back to it."])
    try:
        await run(engine, "/rewind 1")
        await run(engine, "coffee")  # turn 4
        refused = notices(await run(engine, "/rewind 2"), "error")[0]
        assert "Turn 2 of session" in refused and "was rewound away earlier" in refused and "turns are 1, 4" in refused
        listing = notices(await run(engine, "/rewind"))[0]
        assert "  1  hello" in listing and "  4  coffee" in listing and "we keep customers" not in listing
    finally:
        await engine.aclose()


async def test_rewind_past_a_compaction_gives_the_model_the_view_it_had_before_it(project: Path) -> None:
    long_reply = "We talked about prices at length. " * 60
    summary = ("## Goal\nA coffee shop.\n## Facts\n(none)\n## Decisions\n(none)\n## Open questions\n(none)\n"
               "## Drafts and files\n(none)\n## Next steps\n(none)")
    engine, provider = await open_engine(project, [long_reply, long_reply, long_reply, summary, "From turn one."])
    try:
        for text in ("one", "two", "three"):
            await run(engine, text)
        seen_after_turn_1 = provider.requests[1][:-1]
        assert any(e.kind == "compaction_done" for e in await run(engine, "/compact"))
        assert len(history(engine)) < len(provider.requests[2]) + 1  # compacted
        events = await run(engine, "/rewind 1 --conversation")
        assert events[-1] == TurnFinished("done"), notices(events, "error")
        await run(engine, "go on")
        sent = provider.requests[-1]
        assert sent[:-1] == seen_after_turn_1  # the summary is gone, turn 1 is whole again
        assert sent[-1]["content"].endswith("go on")
        assert rebuild_history(load_records(engine.session_dir / "events.jsonl")) == history(engine)
    finally:
        await engine.aclose()


async def test_rewinding_the_conversation_only_keeps_the_files_and_tells_the_model_where_they_stand(
    project: Path,
) -> None:
    engine, provider, seen = await three_turns(project, ["I see the customers are applied."])
    target = project / "spec" / DRAFT_PATH
    try:
        await run(engine, "/rewind 1 --conversation")
        assert target.read_bytes() == CUSTOMER.encode()  # files untouched
        assert (engine.session_dir / "draft" / SUPPLIER_PATH).is_file()
        await run(engine, "where are we?")
        sent = provider.requests[-1]
        assert sent[1:-1] == seen[1:]  # the system prompt stays the Draft phase's: the drafts are there
        told = str(sent[-1]["content"])
        assert "rewound the conversation to the end of turn 1" in told and SUPPLIER_PATH in told
        assert told.endswith("where are we?")
    finally:
        await engine.aclose()


async def test_rewinding_the_files_only_keeps_the_conversation_and_tells_the_model_what_went(project: Path) -> None:
    engine, provider, _ = await three_turns(project, ["Understood."])
    try:
        before = list(history(engine))
        await run(engine, "/rewind 1 --files")
        assert not (project / "spec" / DRAFT_PATH).exists()
        await run(engine, "ok")
        sent = provider.requests[-1]
        assert sent[: len(before)] == before  # the conversation stays
        told = str(sent[-1]["content"])
        assert "rewound the project files and drafts to the end of turn 1" in told and DRAFT_PATH in told
    finally:
        await engine.aclose()


async def test_a_resumed_session_rebuilds_the_rewound_view_and_shows_the_cut_conversation(project: Path) -> None:
    engine, _, seen = await three_turns(project, [])
    await run(engine, "/rewind 1")
    session_id = engine.session_id
    await engine.aclose()
    resumed, provider = await open_engine(project, ["Welcome back."], resume=session_id)
    try:
        past = resumed.past_events()
        texts = [getattr(e, "user_text", "") for e in past]
        assert "hello" in texts and "we keep customers" not in texts and "and suppliers" not in texts
        assert any(isinstance(e, Notice) and e.message.startswith("Rewound") for e in past)
        await run(resumed, "hi again")
        assert provider.requests[0][1 : len(seen)] == seen[1:]
    finally:
        await resumed.aclose()


async def test_a_fork_cannot_rewind_the_files_its_source_applied_but_can_rewind_the_conversation(
    project: Path,
) -> None:
    engine, _, _ = await three_turns(project, [])
    source_id = engine.session_id
    await engine.aclose()
    fork, provider = await open_engine(project, ["From turn one, in the fork."], resume=source_id, fork=True)
    try:
        refused = notices(await run(fork, "/rewind 1"), "error")[0]
        assert f"forked from {source_id}" in refused and DRAFT_PATH in refused and "--conversation" in refused
        assert (project / "spec" / DRAFT_PATH).read_bytes() == CUSTOMER.encode()
        events = await run(fork, "/rewind 1 --conversation")
        assert events[-1] == TurnFinished("done"), notices(events, "error")
        await run(fork, "again")
        system = str(provider.requests[-1][0]["content"])
        assert fork.session_id in system and source_id not in system  # the fork's own prompt, not the source's
    finally:
        await fork.aclose()


async def test_replay_shows_the_rewind_and_replay_check_runs_it_again_without_divergence(project: Path) -> None:
    from formspec_consult.commands.wiring import server_specs
    from formspec_consult.replay.check import check
    from formspec_consult.replay.recording import load

    engine, _, _ = await three_turns(project, ["Coffee, then."])
    try:
        await run(engine, "/rewind 1")
        await run(engine, "we sell coffee")
    finally:
        await engine.aclose()
    recording = load(engine.session_dir)
    texts = [step.text for step in recording.steps]
    # the apply is the person's step; the rewind's own undo and reject are not steps of their own
    assert texts == ["hello", "we keep customers", f"/apply {DRAFT_PATH}", "and suppliers", "/rewind 1",
                     "we sell coffee"]
    rewind_step = recording.steps[4]
    assert any(isinstance(e, Notice) and e.message.startswith("Rewound the conversation and the files")
               for e in rewind_step.events)
    divergence, steps = await check(recording, project, server_specs)
    assert divergence is None, divergence.describe() if divergence else ""
    assert steps == 6
