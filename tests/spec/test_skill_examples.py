"""Every YAML example in every bundled skill is what the gate accepts: complete documents validate,
fragments are at least YAML (a skill must never teach what the gate refuses)."""

from __future__ import annotations

import json
import re

import pytest

from formspec_consult.spec import Project
from formspec_consult.spec.skills import BUNDLED_DIR
from formspec_consult.spec.yamlload import load_stream

from .conftest import entity

SKILLS = sorted(p.parent.name for p in BUNDLED_DIR.glob("*/SKILL.md"))
BLOCK = re.compile(r"^( *)```yaml\n(.*?)^\1```", re.S | re.M)


def blocks(name: str) -> list[str]:
    text = (BUNDLED_DIR / name / "SKILL.md").read_text(encoding="utf-8")
    return [re.sub(rf"(?m)^{indent}", "", body) for indent, body in BLOCK.findall(text)]


@pytest.mark.parametrize("name", SKILLS)
def test_every_yaml_example_of_the_skill_is_accepted_by_the_gate(shop: Project, name: str) -> None:
    found = blocks(name)
    for block in found:
        assert load_stream(block), (name, block)  # a fragment is valid YAML
        if block.startswith("apiVersion:"):
            result = shop.validate_text(block)
            assert result.ok, (name, [(p.code, p.message) for p in result.problems])


def test_the_skills_on_workflows_hooks_and_business_rules_exist_with_complete_examples() -> None:
    for name in ("workflows", "hooks-and-scripts", "business-rules"):
        assert name in SKILLS
    assert any(b.startswith("apiVersion:") for b in blocks("workflows"))
    assert any(b.startswith("apiVersion:") for b in blocks("hooks-and-scripts"))


def _walk(node: object, key: str = "") -> list[tuple[str, object]]:
    found = [(key, node)]
    if isinstance(node, dict):
        for k, v in node.items():
            found += _walk(v, str(k))
    elif isinstance(node, list):
        for v in node:
            found += _walk(v, key)
    return found


@pytest.mark.parametrize("name", SKILLS)
def test_every_expression_and_key_format_the_skill_shows_is_one_the_gate_accepts(shop: Project, name: str) -> None:
    """Fragments have no context for names, but their formulas, guards, conditions and key formats
    must at least parse as FormSpec reads them (what the gate refuses a skill must never teach)."""
    from formspec_consult.spec.checks.starlark_expr import syntax_problem

    for block in blocks(name):
        for doc in load_stream(block):
            for key, value in _walk(doc.value):
                if key in ("formula", "expression", "script") and isinstance(value, str):
                    assert syntax_problem(value) is None, (name, key, value)
                if key == "guard" and isinstance(value, str):
                    assert syntax_problem(value) is None, (name, key, value)
                if key == "natural_key_rule" and isinstance(value, dict):
                    body = f"  fields:\n    - name: n\n      type: string\n      natural_key: true\n" \
                           f"      natural_key_rule: {json.dumps(value)}\n"
                    result = shop.validate_text(entity("skillcheck", body))
                    assert not [p for p in result.problems if p.code == "FS-NATURAL-KEY-FORMAT"], (name, value)
