"""The Iterate phase through the Engine: a session on an applied project (or a request after
applies) gets the Iterate rules, says so (status, log, screen), and its changed specs, owner
documents and dated changelog entry are drafts the person applies — nothing is written before."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from formspec_consult.agent.engine.engine import Engine
from formspec_consult.store.agent_events import Notice
from formspec_consult.store.events import EventLog
from tests.agent.engines import open_engine, run
from tests.e2e.project import CUSTOMER, DRAFT_PATH

pytestmark = pytest.mark.anyio

ITERATE_RULE = "Iterate (the phase you are in now)"
WITH_EMAIL = CUSTOMER.replace("    - {name: phone, type: string}\n",
                              "    - {name: phone, type: string}\n    - {name: email, type: string}\n")


def calls(*pairs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments} for name, arguments in pairs]}


@pytest.fixture
def applied(project: Path) -> Path:
    """The shop with its customer entity applied: a design of its own."""
    target = project / "spec" / DRAFT_PATH
    target.parent.mkdir(parents=True)
    target.write_text(CUSTOMER, encoding="utf-8")
    return project


def phases(engine: Engine) -> list[tuple[str, str]]:
    return [(e["phase"], e["reason"]) for e in EventLog.read(engine.session_dir / "events.jsonl") if e["type"] == "phase"]


async def test_a_change_request_on_an_applied_project_is_drafted_top_down_and_logged_only_when_applied(
    applied: Path,
) -> None:
    today = datetime.now(UTC).date().isoformat()
    changelog = (f"# Changelog\n\n## {today} — customers get an email\n\n"
                 f"Why: receipts go out by email. Files: {DRAFT_PATH}.\n")
    engine, provider = await open_engine(applied, [
        "Which level is this change at?\nA) business\nB) design\nC) field",
        calls(("read_module_spec", {"module": "shop", "kind": "Entity", "name": "customer"})),
        # top-down: the domain model before the spec it follows (its diagrams follow the later draft)
        calls(("propose_spec_file", {"path": "docs/domain-model.md", "content": "# Domain model\n\nOur shop.\n"}),
              ("propose_spec_file", {"path": DRAFT_PATH, "content": WITH_EMAIL}),
              ("propose_spec_file", {"path": "docs/changelog.md", "content": changelog})),
        "Three drafts are ready for your review: /diff.",
    ])
    try:
        first = await run(engine, "Customers should get their receipt by email.")
        assert engine.status().phase == "iterate"
        assert phases(engine) == [("iterate", "designed")]
        assert any(isinstance(e, Notice) and "Phase: Iterate" in e.message for e in first)
        system = provider.requests[0][0]["content"]
        assert ITERATE_RULE in system and f"## {today} — <what changed>" in system
        await run(engine, "[chosen: C) field]")
        rows = {row.path: row for row in await engine_rows(engine)}
        assert set(rows) == {DRAFT_PATH, "docs/domain-model.md", "docs/changelog.md"}
        assert all(row.valid for row in rows.values())
        assert not (applied / "docs").exists()  # nothing reaches the project before the person applies
        for path in (DRAFT_PATH, "docs/domain-model.md", "docs/changelog.md"):
            await engine.call_tool("apply_draft", {"file": path})
        model = (applied / "docs" / "domain-model.md").read_text(encoding="utf-8")
        assert model.startswith("# Domain model\n\nOur shop.\n") and "string email" in model and "erDiagram" in model
        assert (applied / "docs" / "changelog.md").read_text(encoding="utf-8") == changelog
        await engine.call_tool("undo_apply", {})
        assert not (applied / "docs" / "changelog.md").exists()  # undone like any spec file
    finally:
        await engine.aclose()


async def engine_rows(engine: Engine) -> list[Any]:
    from formspec_consult.store.review_flow import ReviewFlow

    return await ReviewFlow(engine.call_tool).drafts()


async def test_a_changelog_entry_is_added_to_the_end_and_a_rewrite_or_an_undated_one_is_refused_with_how_to_fix(
    applied: Path,
) -> None:
    before = "# Changelog\n\n## 2026-01-05 — first\n\nStarted.\n"
    (applied / "docs").mkdir()
    (applied / "docs" / "changelog.md").write_text(before, encoding="utf-8")
    today = datetime.now(UTC).date().isoformat()
    entry = f"## {today} — email\n\nWhy: receipts. Files: {DRAFT_PATH}\n"
    engine, provider = await open_engine(applied, [
        calls(("propose_spec_file", {"path": "docs/changelog.md", "content": "# Changelog\n\n## 2026-02-01 — new\n"}),
              ("propose_spec_file", {"path": "docs/overview.md", "content": "# Toko kami\n\nKami jual kopi.\n"})),
        calls(("propose_spec_file", {"path": "docs/changelog.md", "content": before + "\nAdded email.\n"})),
        calls(("propose_spec_file", {"path": "docs/changelog.md", "content": entry})),
        "done",
    ])
    try:
        await run(engine, "add email")
        results = [m["content"] for m in provider.requests[1] if m["role"] == "tool"]
        assert "FS-CHANGELOG-REWRITTEN" in results[0] and "Propose only the new entry" in results[0]
        assert '"valid":true' in results[1].replace(" ", "")  # an overview is the owner's text
        undated = [m["content"] for m in provider.requests[2] if m["role"] == "tool"][-1]
        assert "FS-CHANGELOG-UNDATED" in undated and today in undated
        added = [m["content"] for m in provider.requests[3] if m["role"] == "tool"][-1]
        assert '"valid":true' in added.replace(" ", "")
        assert (applied / "docs" / "changelog.md").read_text(encoding="utf-8") == before  # nothing written yet
        await engine.call_tool("apply_draft", {"file": "docs/changelog.md"})
        assert (applied / "docs" / "changelog.md").read_text(encoding="utf-8") == before + "\n" + entry
    finally:
        await engine.aclose()


async def test_a_request_after_this_sessions_drafts_were_applied_enters_iterate_and_a_resume_keeps_it(
    project: Path,
) -> None:
    engine, provider = await open_engine(project, [
        calls(("propose_spec_file", {"path": DRAFT_PATH, "content": CUSTOMER})),
        "The customer is ready: /diff.",
        "Which level is this change at?\nA) business\nB) design\nC) field",
    ])
    try:
        await run(engine, "I sell coffee beans")
        assert engine.status().phase == "draft" and phases(engine) == [("draft", "drafted")]
        assert ITERATE_RULE not in provider.requests[-1][0]["content"]
        await engine.call_tool("apply_draft", {"file": DRAFT_PATH})
        events = await run(engine, "Customers should also have an email")
        assert engine.status().phase == "iterate"
        assert phases(engine) == [("draft", "drafted"), ("iterate", "applied")]
        assert ITERATE_RULE in provider.requests[-1][0]["content"]
        assert any(isinstance(e, Notice) and "Phase: Iterate" in e.message for e in events)
        session = engine.session_id
    finally:
        await engine.aclose()
    resumed, provider = await open_engine(project, ["Shall I add it?"], resume=session)
    try:
        await run(resumed, "yes")
        assert resumed.status().phase == "iterate" and len(phases(resumed)) == 2  # not said again
        assert ITERATE_RULE in provider.requests[-1][0]["content"]
        assert any(isinstance(e, Notice) and "Phase: Iterate" in e.message for e in resumed.past_events())
        shown = await run(resumed, "/status")  # headless /status names it too
        assert any(isinstance(e, Notice) and "phase Iterate" in e.message for e in shown)
    finally:
        await resumed.aclose()


async def test_a_new_project_stays_in_discovery_while_drafts_are_pending(project: Path) -> None:
    engine, provider = await open_engine(project, [
        calls(("propose_spec_file", {"path": DRAFT_PATH, "content": CUSTOMER})), "Ready: /diff.", "Noted.",
    ])
    try:
        await run(engine, "I sell coffee beans")
        await run(engine, "and tea")  # a draft is pending, nothing applied: still drafting, not iterating
        assert engine.status().phase == "draft"
        assert all(ITERATE_RULE not in request[0]["content"] for request in provider.requests)
    finally:
        await engine.aclose()


async def test_a_second_change_request_s_changelog_entry_need_not_name_the_files_an_earlier_entry_named(
    applied: Path,
) -> None:
    # Relay, Iterate run: after the first change (entity + changelog) was applied, the second entry
    # (a new entity) was told it "does not name" the first change's file, already in the first entry.
    today = datetime.now(UTC).date().isoformat()
    first = f"# Changelog\n\n## {today} — email\n\nWhy: receipts. Files: {DRAFT_PATH}.\n"
    supplier_path = DRAFT_PATH.replace("customer", "supplier")
    second = f"## {today} — suppliers\n\nWhy: buying stock. Files: {supplier_path}.\n"
    engine, provider = await open_engine(applied, [
        calls(("propose_spec_file", {"path": DRAFT_PATH, "content": WITH_EMAIL}),
              ("propose_spec_file", {"path": "docs/changelog.md", "content": first})),
        "Ready: /diff.",
        calls(("propose_spec_file", {"path": supplier_path, "content": CUSTOMER.replace("customer", "supplier")}),
              ("propose_spec_file", {"path": "docs/changelog.md", "content": second})),
        "Ready again: /diff.",
    ])
    try:
        await run(engine, "Customers get an email.")
        for path in (DRAFT_PATH, "docs/changelog.md"):
            await engine.call_tool("apply_draft", {"file": path})
        await run(engine, "And keep our suppliers.")
        answer = [m["content"] for m in provider.requests[-1] if m["role"] == "tool"][-1]
        assert '"valid":true' in answer.replace(" ", "")
        assert "FSD-CHANGELOG-FILES" not in answer
        # the pending supplier file still has to be named: an entry naming nothing is told so
        rows = {row.path: row for row in await engine_rows(engine)}
        assert supplier_path in rows
    finally:
        await engine.aclose()
