"""Table, module-menu and Entity-expression names the relay found unchecked: warned with the valid names."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from formspec_consult.spec import open_project
from tests.spec.fidelity.test_rule_fidelity import CASES_DIR, load_cases, project_files, write_project

NEW_CODES = {"FS-TABLE-ROW-ACTION", "FS-TABLE-SORT", "FS-TABLE-FILTER", "FS-MODULE-MENU-VIEW", "FS-ENTITY-EXPR"}
CASES = {c.name: c for c in load_cases(CASES_DIR)}


def _warnings(name: str, tmp_path: Path) -> list[tuple[str, str, str]]:
    result = open_project(write_project(tmp_path, project_files(CASES[name]))).validate()
    assert result.ok, [(p.code, p.message) for p in result.problems]
    return [(w.code, w.message, w.hint) for w in result.warnings]


def test_valid_row_actions_sorts_filters_menu_views_and_entity_expressions_warn_nothing(tmp_path: Path) -> None:
    found = _warnings("ok_table_names_and_entity_expressions_resolve", tmp_path)
    assert not [w for w in found if w[0] in NEW_CODES | {"FS-VIEW-COLUMN"}], found


@pytest.mark.parametrize(("case", "code", "in_hint"), [
    ("warn_table_row_action_names_no_action", "FS-TABLE-ROW-ACTION", "update"),
    ("warn_table_column_second_hop_names_no_field", "FS-VIEW-COLUMN", "full_name"),
    ("warn_table_default_sort_names_no_field", "FS-TABLE-SORT", "subject"),
    ("warn_table_filter_names_no_field", "FS-TABLE-FILTER", "phase"),
    ("warn_table_fixed_filter_value_outside_enum", "FS-TABLE-FILTER", "new, working, solved"),
    ("warn_module_menu_view_names_nothing", "FS-MODULE-MENU-VIEW", "route:"),
    ("warn_entity_field_expression_reads_a_bare_name", "FS-ENTITY-EXPR", 'Write `required_when: "fields.solved == true"`.'),
])
def test_a_guessed_name_is_warned_with_the_names_that_would_work(case: str, code: str, in_hint: str,
                                                                 tmp_path: Path) -> None:
    hits = [w for w in _warnings(case, tmp_path) if w[0] == code]
    assert hits and in_hint in hits[0][2], hits


@pytest.mark.parametrize(("expr", "reason"), [
    ("ghost == (((", "brackets"),
    ("fields.ghost == true", "fields.ghost"),
    ("solved == true", "fields.solved"),
    ("fields.solved == True", "Starlark"),
])
def test_a_broken_entity_field_expression_says_why(expr: str, reason: str, tmp_path: Path) -> None:
    files = project_files(CASES["warn_entity_field_expression_reads_a_bare_name"])
    key = "spec/modules/desk/master/ticket/entity.yaml"
    doc = yaml.safe_load(files[key])
    doc["spec"]["fields"][2]["required_when"] = expr
    result = open_project(write_project(tmp_path, {**files, key: yaml.safe_dump(doc)})).validate()
    hits = [w.message for w in result.warnings if w.code == "FS-ENTITY-EXPR"]
    assert hits and reason in hits[0], hits
