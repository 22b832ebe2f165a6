"""A Workflow must intercept a transition its entity declares, named as FormSpec matches it."""

from __future__ import annotations

import pytest

from formspec_consult.spec import Project

DRAFT = "spec/modules/booking/workflows/approval.yaml"
WORKFLOW = """\
apiVersion: formspec.dev/v1
kind: Workflow
metadata: {{name: approval, module: booking}}
spec:
  entity: {entity}
  on:
    transition: {{from: {frm}, to: {to}}}
  steps:
    - {{roles: [booking.manager], approvers: 1, mode: any}}
"""


def warned(shop: Project, entity: str, frm: str, to: str) -> list[str]:
    result = shop.validate(overlay={DRAFT: WORKFLOW.format(entity=entity, frm=frm, to=to)})
    assert result.ok, result.problems
    return [w.hint for w in result.warnings if w.code == "FS-WORKFLOW-TRANSITION"]


@pytest.mark.parametrize(("entity", "frm", "to", "expected"), [
    ("booking.appointment", "booked", "done", "booked → checked_in"),   # no such transition
    ("appointment", "booked", "cancelled", "booking.appointment"),        # not module.entity
])
def test_an_approval_formspec_would_never_run_is_warned_about_with_the_fix(
        shop: Project, entity: str, frm: str, to: str, expected: str) -> None:
    hints = warned(shop, entity, frm, to)
    assert len(hints) == 1 and expected in hints[0]


def test_an_approval_on_a_declared_transition_passes_quietly(shop: Project) -> None:
    assert warned(shop, "booking.appointment", "checked_in", "cancelled") == []


def test_a_transition_named_by_its_action_is_matched_by_that_action(shop: Project) -> None:
    text = WORKFLOW.replace("{{from: {frm}, to: {to}}}", "{{name: {frm}}}")
    for via, expected in (("cancel", []), ("vanish", ["check_in"])):
        result = shop.validate(overlay={DRAFT: text.format(entity="booking.appointment", frm=via, to="")})
        hints = [w.hint for w in result.warnings if w.code == "FS-WORKFLOW-TRANSITION"]
        assert [e for e in expected if any(e in h for h in hints)] == expected and len(hints) == len(expected)
