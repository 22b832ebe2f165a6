"""Server-side Starlark expressions (computed formulas, guards, conditions): each rule breaks and passes."""

from __future__ import annotations

import pytest

from formspec_consult.spec import Project, ValidationResult

from .conftest import entity

DRAFT = "spec/modules/shop/master/draft/entity.yaml"

LINES = ("  fields:\n    - {name: discount, type: money}\n    - {name: fee, type: money}\n"
         "    - name: lines\n      type: child\n      child:\n        storage: jsonb\n        fields:\n"
         "          - {name: qty, type: integer}\n          - {name: price, type: money}\n"
         "          - {name: subtotal, type: money, computed: {formula: '%s'}}\n"
         "    - {name: total, type: money, computed: {formula: '%s'}}\n")
GOOD_ROW, GOOD_TOTAL = "qty * price", 'sum([r["subtotal"] for r in lines]) + fee'
SM = ("  fields:\n    - {name: state, type: enum, enum_values: [open, paid]}\n    - {name: balance, type: money}\n"
      "  state_machine:\n    field: state\n    initial: open\n"
      "    transitions:\n      - from: open\n        to: paid\n        via: settle\n        guard: %s\n")
COND = ("  fields:\n    - {name: state, type: enum, enum_values: [open, paid]}\n"
        "  actions:\n    - name: settle\n      conditions:\n        - {script: %s, message: Already paid}\n")


def check(shop: Project, body: str) -> ValidationResult:
    return shop.validate(overlay={DRAFT: entity("draft", body)})


def codes(result: ValidationResult) -> list[str]:
    return [p.code for p in result.problems if p.source == DRAFT]


CASES = [
    # (code, failing body, passing body)
    ("FS-FORMULA-SYNTAX", LINES % (GOOD_ROW, "no_such_fn(ghost.field) +* (("), LINES % (GOOD_ROW, GOOD_TOTAL)),
    ("FS-FORMULA-SYNTAX", LINES % (GOOD_ROW, 'sum(r["subtotal"] for r in lines)'), LINES % (GOOD_ROW, GOOD_TOTAL)),
    ("FS-FORMULA-SYNTAX", LINES % ("qty > 0 && price", GOOD_TOTAL), LINES % ("price if qty > 0 else price", GOOD_TOTAL)),
    ("FS-FORMULA-SYNTAX", LINES % ("qty ** 2", GOOD_TOTAL), LINES % ("qty * qty", GOOD_TOTAL)),
    ("FS-FORMULA-NAME", LINES % ("qty * unit_price", GOOD_TOTAL), LINES % (GOOD_ROW, GOOD_TOTAL)),
    ("FS-FORMULA-NAME", LINES % (GOOD_ROW, "round(fee)"), LINES % (GOOD_ROW, "money_zero(fee) + fee")),
    ("FS-FORMULA-NAME", LINES % (GOOD_ROW, "resource.tax + fee"), LINES % (GOOD_ROW, "resource.discount or fee")),
    ("FS-FORMULA-NAME", LINES % (GOOD_ROW, "fee if true else fee"), LINES % (GOOD_ROW, "fee if True else fee")),
    ("FS-FORMULA-NAME", LINES % (GOOD_ROW, "fee if today() < days_ago(grace_days) else discount"),
     LINES % (GOOD_ROW, "fee if today() < days_ago(backdate_limit_days) else discount")),
    ("FS-GUARD-SYNTAX", SM % "'balance = 0'", SM % "'resource.balance == None'"),
    ("FS-GUARD-NAME", SM % "'paid_amount >= balance'", SM % "'sum_line_amount >= 0 and line_count > 0'"),
    ("FS-GUARD-NAME", SM % "{expression: 'resource.owed > 0', message: Unpaid}",
     SM % "{expression: 'resource.balance != None', message: Unpaid}"),
    ("FS-CONDITION-SYNTAX", COND % "\"state == 'open\"", COND % "\"state == 'open'\""),
    ("FS-CONDITION-NAME", COND % "\"status == 'open'\"", COND % "\"resource.state == 'open' and param_note != None\""),
]


@pytest.mark.parametrize(("code", "failing", "passing"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_expression_rule_refuses_the_broken_body_and_accepts_the_fixed_one(
        shop: Project, code: str, failing: str, passing: str) -> None:
    broken = check(shop, failing)
    assert code in codes(broken), broken.problems
    assert codes(check(shop, passing)) == []


def test_the_probe_formula_is_refused_with_how_to_write_one(shop: Project) -> None:
    result = check(shop, LINES % (GOOD_ROW, "no_such_fn(ghost.field) +* (("))
    problem = next(p for p in result.problems if p.code == "FS-FORMULA-SYNTAX")
    assert "total" in problem.message and "Starlark" in problem.message
    assert "quantity * unit_price" in problem.hint


def test_an_unknown_name_lists_the_fields_in_scope_and_an_unknown_function_the_functions(shop: Project) -> None:
    result = check(shop, LINES % ("qty * unit_price", "tax(fee)"))
    by_name = {p.message.split("uses the ")[1].split(",")[0]: p.hint for p in result.problems
               if p.code == "FS-FORMULA-NAME"}
    assert "price" in by_name["name 'unit_price'"] and "qty" in by_name["name 'unit_price'"]
    assert "sum" in by_name["function 'tax'"] and "money_zero" in by_name["function 'tax'"]


def test_json_literals_are_answered_with_their_starlark_spelling(shop: Project) -> None:
    result = check(shop, LINES % (GOOD_ROW, "fee if discount == null else discount"))
    assert [p.hint for p in result.problems if p.code == "FS-FORMULA-NAME"] == ["`null` is not a Starlark literal: "
                                                                                 "write `None`."]


def test_names_bound_by_a_comprehension_or_lambda_are_not_fields(shop: Project) -> None:
    formula = 'sum([x["subtotal"] for x in lines if x["qty"] > 0]) + sorted([1], key=lambda v: v)[0] * fee'
    assert codes(check(shop, LINES % (GOOD_ROW, formula))) == []


def test_a_child_field_read_as_one_row_is_refused_with_the_list_form(shop: Project) -> None:
    result = check(shop, LINES % (GOOD_ROW, "sum(lines.subtotal)"))
    problem = next(p for p in result.problems if p.code == "FS-STARLARK-ROWS")
    assert 'sum([r["subtotal"] for r in lines])' in problem.hint
    assert codes(check(shop, LINES % (GOOD_ROW, 'sum([r["subtotal"] for r in lines])'))) == []
