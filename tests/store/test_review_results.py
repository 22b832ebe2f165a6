"""The review workflow reads the local server's answers into typed results, and refuses others."""

from __future__ import annotations

from typing import Any

import pytest

from formspec_consult.store.review_flow import ReviewFlow
from formspec_consult.store.review_results import ToolResultError
from formspec_consult.store.review_text import format_apply, format_undo

pytestmark = pytest.mark.anyio

ANSWERS: dict[str, dict[str, Any]] = {
    "list_drafts": {"session": "s", "drafts": [
        {"path": "a.yaml", "status": "new", "valid": True, "problems": 0, "target_changed": False},
        {"path": "b.yaml", "status": "modified", "valid": False, "problems": 1, "target_changed": None}]},
    "apply_draft": {"applied": "a.yaml", "file": "spec/a.yaml", "backup": "undo/0001", "previous": "did not exist",
                    "undo_step": 1, "forced": False, "validation": {"ok": True, "problems": []}},
    "undo_apply": {"undone": "a.yaml", "file": "spec/a.yaml", "outcome": "removed", "undo_step": 1,
                   "remaining_steps": 0, "validation": {"ok": True, "problems": []}},
}


def server(answers: dict[str, Any]):  # type: ignore[no-untyped-def]
    calls: list[tuple[str, dict[str, Any]]] = []

    async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        calls.append((name, arguments))
        return answers[name]

    call.calls = calls  # type: ignore[attr-defined]
    return call


async def test_apply_all_applies_the_valid_drafts_and_reads_each_answer_as_a_typed_result() -> None:
    outcome = await ReviewFlow(server(ANSWERS)).apply_all()
    (applied,) = outcome.applied
    assert (applied.path, applied.file, applied.created, applied.undo_step) == ("a.yaml", "spec/a.yaml", True, 1)
    assert outcome.skipped == ("b.yaml",) and outcome.paths == ("a.yaml",)
    assert format_apply(applied) == "Applied a.yaml → spec/a.yaml (did not exist; undo with /undo)."
    undone = await ReviewFlow(server(ANSWERS)).undo()
    assert format_undo(undone) == "Undid the apply of a.yaml (removed); 0 more step(s) can be undone."


async def test_an_answer_that_is_not_the_tools_result_is_refused_naming_what_it_lacks() -> None:
    drifted = {**ANSWERS, "apply_draft": {"ok": True, "path": "a.yaml"}}  # not what the server sends
    with pytest.raises(ToolResultError, match="apply_draft's result lacks applied, file, previous"):
        await ReviewFlow(server(drifted)).apply("a.yaml")
    outcome = await ReviewFlow(server(drifted)).apply_all()  # one bad answer does not stop the others
    assert outcome.applied == () and outcome.failed[0][0] == "a.yaml"
