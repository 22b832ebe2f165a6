"""Bundled and project skills: frontmatter, precedence, staleness, relevance, read errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from formspec_consult.spec import CORE_SPEC_VERSION, Project, SkillNotFound

BUNDLED = {"consultation-workflow", "entity-authoring", "entity-extension", "form-layout",
           "module-vendoring", "schema-validation-repair", "workflows", "hooks-and-scripts",
           "business-rules"}


def skill_md(name: str, version: str = "1.0.0", kinds: str = "[Entity]", body: str = "# Body\n") -> str:
    return (f"---\nname: {name}\ndescription: {name} rules\napplies_to_kind: {kinds}\n"
            f"min_core_spec_version: \"{version}\"\nextra_key: ignored\n---\n{body}")


def test_bundled_skills_are_listed_with_frontmatter(shop: Project) -> None:
    skills = {s.name: s for s in shop.skills()}
    assert set(skills) >= BUNDLED
    for name in BUNDLED:
        skill = skills[name]
        assert skill.source == "bundled" and skill.description and not skill.stale
        assert skill.min_core_spec_version == "1.0.0"
        assert len(shop.read_skill(name)) > 800, "bundled skills are substantial"
    assert skills["entity-authoring"].applies_to_kind == ["Entity"]
    assert skills["consultation-workflow"].applies_to_kind is None


def test_project_skill_is_listed_and_wins_a_name_clash(shop: Project, write: Callable[[str, str], Path]) -> None:
    assert {s.name: s.source for s in shop.skills()}["barbershop-pricing"] == "project"
    write(".agents/skills/form-layout/SKILL.md", skill_md("form-layout", body="# Our own layout rules\n"))
    clash = [s for s in shop.skills() if s.name == "form-layout"]
    assert len(clash) == 1 and clash[0].source == "project"
    assert "Our own layout rules" in shop.read_skill("FORM-LAYOUT")


def test_skill_needing_a_newer_core_is_flagged_stale(shop: Project, write: Callable[[str, str], Path]) -> None:
    write(".agents/skills/future/SKILL.md", skill_md("future", version="99.0.0"))
    write(".agents/skills/current/SKILL.md", skill_md("current", version=CORE_SPEC_VERSION))
    skills = {s.name: s for s in shop.skills()}
    assert skills["future"].stale and not skills["current"].stale
    assert skills["future"].to_dict()["stale"] is True


def test_broken_frontmatter_is_reported_not_raised(shop: Project, write: Callable[[str, str], Path]) -> None:
    write(".agents/skills/broken/SKILL.md", "---\nname: [unclosed\n---\nbody\n")
    write(".agents/skills/bare/SKILL.md", "# no frontmatter at all\n")
    skills = {s.name: s for s in shop.skills()}
    assert skills["broken"].description.startswith("(unreadable skill")
    assert skills["bare"].description == "" and skills["bare"].applies_to_kind is None


def test_skills_for_kind_include_kind_specific_and_general_skills(shop: Project) -> None:
    names = {s.name for s in shop.skills_for_kind("entity")}
    assert {"entity-authoring", "entity-extension", "consultation-workflow", "barbershop-pricing"} <= names
    assert "form-layout" not in names
    assert "form-layout" in {s.name for s in shop.skills_for_kind("Table")}
    assert "entity-authoring" in {s.name for s in shop.skills_for_kind("Document")}  # alias of Entity


def test_reading_an_unknown_skill_lists_the_known_names(shop: Project) -> None:
    with pytest.raises(SkillNotFound) as caught:
        shop.read_skill("nope")
    assert "No skill named 'nope'" in str(caught.value) and "entity-authoring" in str(caught.value)


def test_complete_yaml_examples_in_bundled_skills_validate(shop: Project) -> None:
    import re

    examples = []
    for name in sorted(BUNDLED):
        text = shop.read_skill(name)
        examples += [(name, b) for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if b.startswith("apiVersion:")]
    assert len(examples) >= 3
    for name, block in examples:
        result = shop.validate_text(block)
        assert result.ok, (name, [(p.code, p.message) for p in result.problems])
