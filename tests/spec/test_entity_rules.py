"""Entity engine rules (design/02): each rule has a failing and a passing case."""

from __future__ import annotations

import pytest

from formspec_consult.spec import Project, ValidationResult

from .conftest import entity

DRAFT = "spec/modules/shop/master/draft/entity.yaml"


def check(shop: Project, body: str) -> ValidationResult:
    return shop.validate(overlay={DRAFT: entity("draft", body)})


NK = "      natural_key_rule: {{strategy: sequence, format: '{fmt}', reset: {reset}}}\n"

RULES = [
    # (code, failing body, passing body)
    ("FS-NATURAL-KEY-ONE",
     "  fields:\n    - {name: a, type: string, natural_key: true}\n    - {name: b, type: string, natural_key: true}\n",
     "  fields:\n    - {name: a, type: string, natural_key: true}\n    - {name: b, type: string}\n"),
    ("FS-NATURAL-KEY-RULE",
     "  fields:\n    - name: a\n      type: string\n" + NK.format(fmt="A-{seq:04d}", reset="never"),
     "  fields:\n    - name: a\n      type: string\n      natural_key: true\n" + NK.format(fmt="A-{seq:04d}", reset="never")),
    ("FS-NATURAL-KEY-RESET",
     "  fields:\n    - name: a\n      type: string\n      natural_key: true\n" + NK.format(fmt="A-{seq:04d}", reset="yearly"),
     "  fields:\n    - name: a\n      type: string\n      natural_key: true\n" + NK.format(fmt="A-{year}-{seq:04d}", reset="yearly")),
    ("FS-NATURAL-KEY-RESET",
     "  fields:\n    - name: a\n      type: string\n      natural_key: true\n" + NK.format(fmt="A-{year}-{seq}", reset="daily"),
     "  fields:\n    - name: a\n      type: string\n      natural_key: true\n" + NK.format(fmt="A-{period}-{seq}", reset="daily")),
    ("FS-NATURAL-KEY-SCOPE",
     "  fields:\n    - name: a\n      type: string\n      natural_key: true\n"
     "      natural_key_rule: {strategy: sequence, format: 'A{seq}', scope_field: branch}\n",
     "  fields:\n    - {name: branch, type: string}\n    - name: a\n      type: string\n      natural_key: true\n"
     "      natural_key_rule: {strategy: sequence, format: 'A{seq}', scope_field: branch}\n"),
    ("FS-TRANSACTION-DATE",
     "  characteristic: transaction\n  fields:\n    - {name: amount, type: money}\n",
     "  characteristic: transaction\n  fields:\n    - {name: transaction_date, type: datetime}\n"),
    ("FS-TRANSACTION-DATE",
     "  characteristic: transaction\n  fields:\n    - {name: transaction_date, type: string}\n",
     "  characteristic: transaction\n  fields:\n    - {name: transaction_date, type: date}\n"),
    ("FS-FIELD-RESERVED",
     "  fields:\n    - {name: created_at, type: datetime}\n",
     "  fields:\n    - {name: created_on, type: datetime}\n"),
    ("FS-FIELD-DUPLICATE",
     "  fields:\n    - {name: a, type: string}\n    - {name: a, type: text}\n",
     "  fields:\n    - {name: a, type: string}\n    - {name: b, type: text}\n"),
    ("FS-FIELD-DUPLICATE",
     "  fields:\n    - name: lines\n      type: child\n      child:\n        storage: jsonb\n        fields:\n"
     "          - {name: q, type: integer}\n          - {name: q, type: integer}\n",
     "  fields:\n    - name: lines\n      type: child\n      child:\n        storage: jsonb\n        fields:\n"
     "          - {name: q, type: integer}\n          - {name: p, type: integer}\n"),
    ("FS-ENUM-VALUES",
     "  fields:\n    - {name: s, type: enum}\n",
     "  fields:\n    - {name: s, type: enum, enum_values: [a, b]}\n"),
    ("FS-RELATION-MISSING",
     "  fields:\n    - {name: c, type: relation}\n",
     "  fields:\n    - {name: c, type: relation, relation: {type: belongs_to, resource: customer}}\n"),
    ("FS-DISPLAY-FIELD",
     "  display_field: title\n  fields:\n    - {name: name_text, type: string}\n",
     "  display_field: name_text\n  fields:\n    - {name: name_text, type: string}\n"),
    ("FS-EMITS-UNDECLARED",
     "  actions: [{name: pay, emits: paid}]\n  events: [{name: refunded}]\n",
     "  actions: [{name: pay, emits: paid}]\n  events: [{name: refunded, type: async}, {name: paid, type: async}]\n"),
    ("FS-ACTION-DUPLICATE",
     "  actions: [{name: pay}, {name: pay}]\n",
     "  actions: [{name: pay}, {name: refund}]\n"),
]

SM_FIELDS = "  fields:\n    - {name: status, type: enum, enum_values: [new, done]}\n"
SM_ACTIONS = ""  # a transition's via is an action of its own (FormSpec's ActionSources)


def sm(field: str = "status", initial: str = "new", frm: str = "new", to: str = "done", via: str = "finish",
       states: str = "[{name: new, label: New}, {name: done, label: Done}]", fields: str = SM_FIELDS) -> str:
    return (fields + SM_ACTIONS + f"  state_machine:\n    field: {field}\n    initial: {initial}\n"
            f"    states: {states}\n    transitions:\n      - {{from: {frm}, to: {to}, via: {via}}}\n")


# FormSpec's Go does not check state machines statically: these warn, and the draft still passes
SM_WARNINGS = [
    ("FS-SM-FIELD", sm(field="state"), sm()),
    ("FS-SM-FIELD-TYPE", sm(fields="  fields:\n    - {name: status, type: string}\n"), sm()),
    ("FS-SM-INITIAL", sm(initial="draft"), sm(initial="new")),
    ("FS-SM-FROM", sm(frm="[new, archived]"), sm(frm="'*'")),
    ("FS-SM-TO", sm(to="closed"), sm(to="done")),
    ("FS-SM-STATE-DUPLICATE", sm(states="[{name: new, label: New}, {name: done, label: Done}, {name: new, label: Again}]"), sm()),
]


@pytest.mark.parametrize(("code", "warned", "clean"), SM_WARNINGS, ids=[r[0] for r in SM_WARNINGS])
def test_state_machine_slip_is_a_warning_that_points_into_the_machine_and_does_not_block(
        shop: Project, code: str, warned: str, clean: str) -> None:
    bad = check(shop, warned)
    assert bad.ok, [(p.code, p.message) for p in bad.problems]
    warning = next(w for w in bad.warnings if w.code == code)
    assert warning.hint and warning.source == DRAFT and warning.line is not None and warning.line > 4
    good = check(shop, clean)
    assert good.ok and code not in [w.code for w in good.warnings]


@pytest.mark.parametrize(("code", "failing", "passing"), RULES, ids=[f"{r[0]}-{i}" for i, r in enumerate(RULES)])
def test_entity_rule_fails_on_the_bad_case_and_passes_on_the_fixed_one(
        shop: Project, code: str, failing: str, passing: str) -> None:
    bad = check(shop, failing)
    assert code in bad.codes(), [(p.code, p.message) for p in bad.problems]
    problem = next(p for p in bad.problems if p.code == code)
    assert problem.layer == "structural" and problem.hint and problem.source == DRAFT
    assert problem.line is not None and problem.line > 4, "points into the spec, not at the document start"
    good = check(shop, passing)
    assert good.ok, [(p.code, p.message) for p in good.problems]


def test_natural_key_problem_points_at_the_second_key_line(shop: Project) -> None:
    body = "  fields:\n    - {name: a, type: string, natural_key: true}\n    - {name: b, type: string, natural_key: true}\n"
    problem = next(p for p in check(shop, body).problems if p.code == "FS-NATURAL-KEY-ONE")
    assert (problem.line, problem.column) == (8, 31)
    assert problem.to_dict()["column"] == 31
    assert "'b'" in problem.message and "'a'" in problem.message


def test_state_missing_from_enum_values_is_a_warning_not_an_error(shop: Project) -> None:
    result = check(shop, sm(states="[{name: new, label: New}, {name: done, label: Done}, {name: parked, label: Parked}]"))
    assert result.ok
    assert "FS-SM-ENUM-MISMATCH" in [w.code for w in result.warnings]


def test_deprecated_number_type_is_a_warning(shop: Project) -> None:
    result = check(shop, "  fields:\n    - {name: n, type: number}\n")
    assert result.ok and [w.code for w in result.warnings] == ["FS-FIELD-TYPE-DEPRECATED"]


def test_unknown_spec_key_is_a_schema_error_with_a_suggestion(shop: Project) -> None:
    result = check(shop, "  feilds:\n    - {name: a, type: string}\n")
    problem = next(p for p in result.problems if p.code == "FS-SCHEMA")
    assert problem.hint.startswith("Did you mean `fields` instead of `feilds`?")


def test_misspelt_field_flag_is_a_schema_error_suggesting_the_right_one(shop: Project) -> None:
    result = check(shop, "  fields:\n    - {name: a, type: string, requried: true}\n")
    problem = next(p for p in result.problems if p.code == "FS-SCHEMA")
    assert problem.hint.startswith("Did you mean `required` instead of `requried`?") and problem.line == 7
