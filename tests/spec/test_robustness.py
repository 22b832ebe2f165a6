"""Whatever shape a draft's `spec` has, validation answers with problems and never crashes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from formspec_consult.spec import open_project
from tests.helpers import copy_example

KEYS = st.sampled_from(["name", "type", "fields", "relation", "resource", "state_machine", "states",
                        "transitions", "from", "to", "via", "field", "initial", "actions", "emits",
                        "events", "natural_key", "natural_key_rule", "reset", "format", "depends",
                        "module", "modules", "menu", "children", "label", "view", "route", "child",
                        "extend_storage", "target", "display_field", "characteristic", "entity",
                        "enum_values", "scope_field", "version"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(
    ["", "x", "enum", "relation", "child", "transaction", "shop.customer", "shop/staff", "*", "yearly",
     "booked", "status", "A-{year}", "formspec.core.user", "shop", "a.b.c"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(KEYS, inner, max_size=5)), max_leaves=25)



@pytest.fixture(scope="module")
def robust_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the fixture for all examples (validation never writes to it)."""
    return copy_example(tmp_path_factory.mktemp("robust"))


@settings(max_examples=80, deadline=None)
@given(kind=st.sampled_from(["Entity", "Module", "App", "Form", "Table", "Workspace", "Policy"]),
       spec=st.dictionaries(KEYS, VALUES, max_size=6))
def test_random_spec_shapes_never_crash_validation(robust_root: Path, kind: str, spec: dict[str, Any]) -> None:
    root = robust_root
    text = yaml.safe_dump({"apiVersion": "formspec.dev/v1", "kind": kind,
                           "metadata": {"name": "fuzz", "module": "shop"}, "spec": spec})
    project = open_project(root)
    result = project.validate(overlay={"spec/modules/shop/fuzz.yaml": text})
    for problem in result.problems + result.warnings:
        assert problem.code and problem.hint is not None
    project.validate_text(text)
