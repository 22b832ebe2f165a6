"""Every YAML example in every bundled skill is what the gate accepts: complete documents validate,
fragments are at least YAML (a skill must never teach what the gate refuses)."""

from __future__ import annotations

import re

import pytest

from formspec_consult.spec import Project
from formspec_consult.spec.skills import BUNDLED_DIR
from formspec_consult.spec.yamlload import load_stream

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
