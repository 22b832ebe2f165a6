"""Transitions happen through actions only; a relation snapshot copies an existing field into a declared one."""

from __future__ import annotations

from formspec_consult.spec import Project, ValidationResult

from .conftest import entity

DRAFT = "spec/modules/shop/master/draft/entity.yaml"
RENTAL = ("  fields:\n    - {name: state, type: enum, enum_values: [out, overdue, back]}\n    - {name: due_on, type: date}\n"
          "  state_machine:\n    field: state\n    initial: out\n"
          "    transitions:\n      - {from: out, to: back, via: give_back}\n      - %s\n")
SALE = ("  fields:\n    - name: customer\n      type: relation\n      relation:\n        type: %s\n"
        "        resource: shop.customer\n        snapshot: [{from: %s, as: %s}]\n    - {name: customer_name, type: string}\n")


def check(shop: Project, body: str) -> ValidationResult:
    return shop.validate(overlay={DRAFT: entity("draft", body)})


def test_a_transition_meant_to_fire_by_itself_is_refused_with_what_formspec_does_instead(shop: Project) -> None:
    result = check(shop, RENTAL % "{from: out, to: overdue, after: 7d}")
    problem = next(p for p in result.problems if p.code == "FS-SM-AUTOMATIC")
    assert "via" in problem.hint and "guard" in problem.hint
    fixed = check(shop, RENTAL % "{from: out, to: overdue, via: mark_overdue, "
                                 "guard: {expression: 'resource.due_on < today()'}}")
    assert fixed.ok, fixed.problems


def test_a_snapshot_into_an_undeclared_field_or_from_a_missing_one_is_warned_about(shop: Project) -> None:
    broken = check(shop, SALE % ("belongs_to", "nickname", "customer_nick"))
    warned = [w.message for w in broken.warnings if w.code == "FS-SNAPSHOT-FIELD" and w.source == DRAFT]
    assert any("customer_nick" in m for m in warned) and any("'nickname'" in m for m in warned)
    fixed = check(shop, SALE % ("belongs_to", "full_name", "customer_name"))
    assert [w for w in fixed.warnings if w.code == "FS-SNAPSHOT-FIELD"] == []


def test_a_snapshot_outside_a_belongs_to_relation_is_warned_about(shop: Project) -> None:
    result = check(shop, SALE % ("has_one", "full_name", "customer_name"))
    assert any("belongs_to" in w.message for w in result.warnings if w.code == "FS-SNAPSHOT-FIELD")
