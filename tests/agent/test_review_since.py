"""What the person did to the drafts since the model's last reply reaches the model with the next
user message (never the system prompt), and the event log rebuilds exactly what was sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.agent.engine.context_text import HELD_NAMES, render_modules
from formspec_consult.store.events import EventLog
from formspec_consult.store.rebuild import rebuild_history
from formspec_consult.store.records import RejectRecord
from tests.agent.engines import open_engine, propose, run
from tests.e2e.project import DRAFT_PATH
from tests.helpers import copy_example

pytestmark = pytest.mark.anyio


async def test_a_resumed_session_after_an_apply_tells_the_model_in_its_first_request(project: Path) -> None:
    engine, first = await open_engine(project, [propose(), "Drafted the customer entity."])
    await run(engine, "we keep a list of customers")
    await engine.call_tool("apply_draft", {"file": DRAFT_PATH})  # as `formspec-consult apply` would
    session_id = engine.session_id
    await engine.aclose()
    resumed, second = await open_engine(project, ["Good, it is in.", "And next?"], resume=session_id)
    try:
        await run(resumed, "I applied it")
        sent = second.requests[0]
        line = f"[Since your last reply the person applied 1 draft ({DRAFT_PATH}).]"
        assert sent[-1] == {"role": "user", "content": f"{line}\n\nI applied it"}
        assert "Since your last reply" not in sent[0]["content"]  # the note is not in the system prompt
        assert "customer" not in first.requests[0][0]["content"]
        assert "holds: Entity master: customer" in sent[0]["content"]  # the context read again on resume
        await run(resumed, "what now?")
        assert second.requests[1][-1] == {"role": "user", "content": "what now?"}  # said once
        events = list(EventLog.read(resumed.session_dir / "events.jsonl"))
        assert rebuild_history(events)[: len(second.requests[1])] == second.requests[1]
    finally:
        await resumed.aclose()


async def test_an_apply_and_an_undo_during_the_session_reach_the_next_turn_in_one_line(project: Path) -> None:
    engine, provider = await open_engine(project, [propose(), "Drafted.", "Noted."])
    try:
        await run(engine, "customers")
        await run(engine, f"/apply {DRAFT_PATH}")
        await run(engine, "/undo")
        await run(engine, "ok")
        line = f"[Since your last reply the person applied 1 draft ({DRAFT_PATH}); undid 1 draft ({DRAFT_PATH}).]"
        assert provider.requests[-1][-1] == {"role": "user", "content": f"{line}\n\nok"}
    finally:
        await engine.aclose()


async def test_an_existing_projects_entities_and_views_are_named_in_the_first_requests_context(
    project: Path, tmp_path: Path
) -> None:
    engine, provider = await open_engine(copy_example(tmp_path), ["Hello."])
    try:
        await run(engine, "hi")
        system = provider.requests[0][0]["content"]
        assert "  holds: Entity master: customer, service, staff; Form: customer-create\n" in system
        assert "  holds: Entity transaction: appointment; Form: appointment-create; Table: appointment-list" in system
        assert "  holds: Entity master: loyalty_card; Form: loyalty_card-edit" in system  # vendored
    finally:
        await engine.aclose()


def test_a_large_modules_inventory_is_capped_with_a_count_of_the_rest() -> None:
    names = [f"e{i:02}" for i in range(HELD_NAMES + 5)]
    text = render_modules({"modules": [{"name": "big", "path": "spec/modules/big", "holds": {"Entity master": names}}]})
    assert text.endswith(f"holds: Entity master: {', '.join(names[:HELD_NAMES])}; … and 5 more")


async def test_a_rejection_with_a_reason_reaches_the_model_with_the_next_message_and_the_log(project: Path) -> None:
    engine, provider = await open_engine(project, [propose(), "Drafted.", "Understood."])
    try:
        await run(engine, "customers")
        events = await run(engine, f"/reject {DRAFT_PATH} keep the phone optional, and no email")
        assert any("Rejected the draft" in getattr(e, "message", "") and "no email" in getattr(e, "message", "")
                   for e in events)
        await run(engine, "try again")
        line = (f'[Since your last reply the person rejected 1 draft ({DRAFT_PATH}, saying '
                f'"keep the phone optional, and no email").]')
        assert provider.requests[-1][-1] == {"role": "user", "content": f"{line}\n\ntry again"}
        rejects = [r for r in EventLog.records(engine.session_dir / "events.jsonl") if isinstance(r, RejectRecord)]
        assert [(r.path, r.reason) for r in rejects] == [(DRAFT_PATH, "keep the phone optional, and no email")]
        transcript = (engine.session_dir / "transcript.md").read_text(encoding="utf-8")
        assert f'Rejected the draft {DRAFT_PATH}: "keep the phone optional, and no email".' in transcript
    finally:
        await engine.aclose()

