"""The review workflow reads each review tool's answer into a typed record, and refuses an answer
that is not the tool's result with an error naming the field and where it is."""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from formspec_consult.store.review_flow import ReviewFlow
from formspec_consult.store.review_results import ToolResult, ToolResultError
from formspec_consult.store.review_text import format_apply, format_diffs, format_drafts, format_undo

pytestmark = pytest.mark.anyio

VALIDATION = {"ok": True, "problems": [], "warnings": [], "schema_sources": {"Entity": "official"}}
PROBLEM = {"code": "FS-SCHEMA", "source": "spec/b.yaml", "line": 3, "layer": "schema",
           "message": "'phone' is not a field type", "hint": "use string"}
# What the local server answers (servers/local/results.py), as a raw client receives it.
ANSWERS: dict[str, dict[str, Any]] = {
    "list_drafts": {"session": "s", "drafts": [
        {"path": "a.yaml", "status": "new", "state": "pending", "valid": True, "problems": 0, "target_changed": False},
        {"path": "b.yaml", "status": "modified", "state": "undone", "valid": False, "problems": 1,
         "target_changed": None}],
        "settled": [{"path": "c.yaml", "file": "spec/c.yaml", "state": "rejected", "at": "2026-12-01T10:00:00Z"}]},
    "diff_drafts": {"session": "s", "drafts": [
        {"path": "b.yaml", "status": "modified", "state": "undone", "valid": False, "problems": [PROBLEM],
         "target_changed": None, "diff": "-x\n+y\n"}]},
    "apply_draft": {"applied": "a.yaml", "file": "spec/a.yaml", "backup": ".formspec/consult/s/undo/0001",
                    "previous": "did not exist", "undo_step": 1, "forced": False, "validation": VALIDATION},
    "undo_apply": {"undone": "a.yaml", "file": "spec/a.yaml", "outcome": "removed", "draft": "back for review",
                   "undo_step": 1, "remaining_steps": 0, "validation": VALIDATION},
}


def server(answers: dict[str, Any]) -> ReviewFlow:
    async def call(name: str, arguments: dict[str, Any]) -> ToolResult:
        return ToolResult.of(name, copy.deepcopy(answers[name]))

    return ReviewFlow(call)


def drifted(tool: str, change: Any) -> dict[str, Any]:
    answers = copy.deepcopy(ANSWERS)
    change(answers[tool])
    return answers


async def test_every_answer_reads_into_its_record_and_the_review_texts_read_the_fields() -> None:
    flow = server(ANSWERS)
    listing = await flow.overview()
    assert [(d.path, d.state, d.problems) for d in listing.drafts] == [("a.yaml", "pending", 0), ("b.yaml", "undone", 1)]
    assert listing.by_state() == {"pending": 1, "undone": 1, "rejected": 1}
    assert format_drafts(listing.drafts) == "a.yaml  [new, valid]\nb.yaml  [modified, undone, 1 problem]"
    (diff,) = await flow.diffs()
    assert (diff.problems[0].line, diff.problems[0].hint) == (3, "use string")
    assert "  ! 'phone' is not a field type" in format_diffs([diff])
    outcome = await flow.apply_all()
    (applied,) = outcome.applied
    assert (applied.path, applied.created, applied.undo_step, applied.validation.ok) == ("a.yaml", True, 1, True)
    assert outcome.skipped == ("b.yaml",)
    assert format_apply(applied) == "Applied a.yaml → spec/a.yaml (did not exist; undo with /undo)."
    undone = await flow.undo()
    assert undone.back_for_review and "accept it again with /apply a.yaml" in format_undo(undone)


@pytest.mark.parametrize(
    ("tool", "change", "message"),
    [
        ("list_drafts", lambda a: a["drafts"][1].pop("state"), "The list_drafts result at drafts[1] lacks 'state'"),
        ("list_drafts", lambda a: a.pop("settled"), "The list_drafts result lacks 'settled'"),
        ("list_drafts", lambda a: a["drafts"][0].update(problems=[]), "has 'problems' = [], not a whole number"),
        ("list_drafts", lambda a: a["drafts"][0].update(state="applied"), "'state' = 'applied', not one of pending, undone"),
        ("diff_drafts", lambda a: a["drafts"][0].update(problems=1), "at drafts[0] has 'problems' = 1, not a list"),
        ("diff_drafts", lambda a: a["drafts"][0]["problems"][0].pop("message"), "at drafts[0].problems[0] lacks 'message'"),
        ("apply_draft", lambda a: a.pop("backup"), "The apply_draft result lacks 'backup'"),
        ("apply_draft", lambda a: a.update(undo_step=True), "has 'undo_step' = True, not a whole number"),
        ("apply_draft", lambda a: a["validation"].pop("ok"), "The apply_draft result at validation lacks 'ok'"),
        ("undo_apply", lambda a: a.pop("draft"), "The undo_apply result lacks 'draft'"),
    ],
)
async def test_an_answer_lacking_a_field_the_server_always_sends_is_refused_naming_it(
    tool: str, change: Any, message: str
) -> None:
    flow = server(drifted(tool, change))
    actions: dict[str, Callable[[], Awaitable[object]]] = {
        "list_drafts": flow.overview, "diff_drafts": flow.diffs, "apply_draft": lambda: flow.apply("a.yaml"),
        "undo_apply": flow.undo}
    action = actions[tool]
    with pytest.raises(ToolResultError, match=message.replace("[", r"\[").replace("]", r"\]")) as refused:
        await action()
    assert "run both from the same formspec-consult version" in str(refused.value)  # what to do


async def test_an_answer_that_is_not_a_json_object_is_refused_and_apply_all_reports_a_bad_apply() -> None:
    with pytest.raises(ToolResultError, match="The reject_draft result lacks 'rejected'"):
        await server({"reject_draft": "Rejected a.yaml"}).reject("a.yaml")  # a bare text sits under "result"
    answers = drifted("apply_draft", lambda a: a.pop("file"))
    outcome = await server(answers).apply_all()  # one bad answer does not stop the others
    assert outcome.applied == () and outcome.failed[0][0] == "a.yaml" and "lacks 'file'" in outcome.failed[0][1]


async def test_an_answer_read_as_another_tools_result_is_refused() -> None:
    async def call(name: str, arguments: dict[str, Any]) -> ToolResult:
        return ToolResult.of("diff_drafts", ANSWERS["diff_drafts"])

    with pytest.raises(ToolResultError, match="Expected the answer of list_drafts, got the answer of diff_drafts"):
        await ReviewFlow(call).drafts()


async def test_a_propose_answer_from_before_the_verifiers_reads_without_findings_but_not_without_validation() -> None:
    proposed = {"written": True, "path": "a.yaml", "draft_path": ".formspec/consult/s/draft/a.yaml", "status": "new",
                "validation": VALIDATION, "blocking_problems": 0, "relevant_skills": [{"name": "entity-authoring",
                "description": "…"}], "next": "Ask the person to review it."}  # as a session recorded it
    read = await server({"propose_spec_file": proposed}).propose("a.yaml", "kind: Entity\n")
    assert read.passes and read.findings == () and read.skills == ("entity-authoring",)
    del proposed["validation"]
    with pytest.raises(ToolResultError, match="The propose_spec_file result lacks 'validation'"):
        await server({"propose_spec_file": proposed}).propose("a.yaml", "kind: Entity\n")
