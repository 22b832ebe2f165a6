"""Schema refusals say how to fix them in terms of the schema at that place: the keys allowed there
(and the closest), what a missing required key holds with an example that passes, the expected
shape of a wrong-typed value; every outline call a hint names works."""

from __future__ import annotations

import re

import pytest

from formspec_consult.spec import Problem, Project
from formspec_consult.spec.outline import kind_outline
from tests.helpers import group_of

from .conftest import entity

APP = "apiVersion: formspec.dev/v1\nkind: App\nmetadata: {{name: rental}}\nspec:\n{body}"
WORKFLOW = ("apiVersion: formspec.dev/v1\nkind: Workflow\nmetadata: {{name: approve, module: shop}}\n"
            "spec:\n  entity: booking\n{body}")


def schema_problems(shop: Project, rel: str, text: str) -> list[Problem]:
    return [p for p in shop.validate(overlay={rel: text}).problems if p.code == "FS-SCHEMA"]


def test_an_unknown_key_with_no_close_match_lists_the_keys_allowed_at_that_place(shop: Project) -> None:
    (problem,) = schema_problems(shop, "spec/modules/shop/master/a/a.yaml",
                                 entity("a", "  fields:\n    - {name: price, type: money, lowest: 0}\n"))
    assert "'lowest' was unexpected" in problem.message
    allowed = problem.hint.split("The keys allowed here: ")[1].split(" — ")[0].split(", ")
    assert {"name", "type", "rules", "enum_values", "relation"} <= set(allowed) and "lowest" not in allowed
    assert 'list_kind_schemas(kind="Entity", path="fields")' in problem.hint


def test_a_misspelt_enum_value_is_answered_with_the_closest_allowed_one(shop: Project) -> None:
    (problem,) = schema_problems(shop, "spec/modules/shop/master/a/a.yaml",
                                 entity("a", "  characteristic: mastr\n"))
    assert problem.hint == "Did you mean `master`?" and "'transaction'" in problem.message


def test_a_missing_root_url_says_what_it_is_with_an_example_that_passes(shop: Project) -> None:
    rel = "spec/apps/rental.yaml"
    (problem,) = schema_problems(shop, rel, APP.format(body="  title: Rental\n"))
    assert "`root_url`" in problem.hint and "URL path" in problem.hint
    examples = re.search(r"e\.g\. (\S+) or (\S+?);", problem.hint)
    assert examples is not None
    for example in examples.groups():
        assert not schema_problems(shop, rel, APP.format(body=f"  title: Rental\n  root_url: {example}\n")), example


def test_a_value_of_the_wrong_type_is_answered_with_the_expected_shape_and_where_to_read_it(shop: Project) -> None:
    (problem,) = schema_problems(shop, "spec/modules/shop/workflows/approve.yaml",
                                 WORKFLOW.format(body="  'on': approve\n"))
    assert problem.message == "spec/on: 'approve' is not of type 'object'"
    assert '{"transition":{"from*":"string","to*":"string"}}' in problem.hint
    assert 'list_kind_schemas(kind="Workflow", path="on")' in problem.hint


@pytest.mark.parametrize(("rel", "text"), [
    ("spec/modules/shop/master/a/a.yaml", entity("a", "  fields:\n    - {name: p, type: money, lowest: 0}\n")),
    ("spec/modules/shop/master/a/a.yaml", entity("a", "  state_machine: {field: s, initial: a, states: [{name: a}]}\n")),
    ("spec/modules/shop/master/a/a.yaml", entity("a", "  fields:\n    - {name: c, type: relation, relation: {type: belongs_to, resource: x, kind: y}}\n")),
    ("spec/modules/shop/workflows/approve.yaml", WORKFLOW.format(body="  'on': approve\n")),
    ("spec/apps/rental.yaml", APP.format(body="  title: Rental\n  colour: red\n")),
])
def test_every_outline_call_a_hint_names_shows_that_part(shop: Project, rel: str, text: str) -> None:
    problems = schema_problems(shop, rel, text)
    calls = [m for p in problems for m in re.finditer(r'list_kind_schemas\(kind="(\w+)"(?:, path="([\w.]+)")?\)', p.hint)]
    assert calls, [p.hint for p in problems]
    for call in calls:
        assert kind_outline(call.group(1), shop, call.group(2)).outline


def test_a_bound_written_as_a_field_key_is_answered_with_the_rule_that_the_gate_accepts(shop: Project) -> None:
    rel = "spec/modules/shop/master/a/a.yaml"
    (problem,) = schema_problems(shop, rel, entity("a", "  fields:\n    - {name: price, type: money, min: 0}\n"))
    assert "`rules: [{min: 0}]`" in problem.hint
    suggested = group_of(r"`rules: (\[[^`]+\])`", problem.hint)
    assert not schema_problems(shop, rel, entity("a", f"  fields:\n    - {{name: price, type: money, rules: {suggested}}}\n"))


def test_a_value_that_fits_none_of_several_shapes_is_told_all_of_them(shop: Project) -> None:
    rel = "spec/modules/shop/master/a/a.yaml"
    (problem,) = schema_problems(shop, rel, entity("a", "  fields:\n    - {name: p, type: money, rules: [{min: 0, max: 9}]}\n"))
    assert "Expected string or {name*, value} or {one key: its value}" in problem.hint
    assert not schema_problems(shop, rel, entity("a", "  fields:\n    - {name: p, type: money, rules: [{min: 0}, {max: 9}]}\n"))
