"""A minimal stand-in for ``formspec_consult.spec.Project`` for unit tests of the session core.

It validates by parsing each YAML file and flagging documents that say ``broken: true``, which is
all the draft/apply/undo logic needs to see a gate that passes or blocks.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from formspec_consult.spec.model import Document, Problem, Skill, ValidationResult
from formspec_consult.spec.project import Overlay, Project


class FakeProject(Project):
    """A Project whose gate is the stand-in the module describes (no parsed documents; skills: those given)."""

    def __init__(self, root: Path, skills: list[Skill] | None = None) -> None:
        (root / "spec" / "modules").mkdir(parents=True, exist_ok=True)
        (root / "overrides").mkdir(exist_ok=True)
        super().__init__(root)
        self.validations = 0
        self.given_skills = list(skills or [])

    def skills(self) -> list[Skill]:
        return list(self.given_skills)

    def skills_for_kind(self, kind: str) -> list[Skill]:
        return [s for s in self.given_skills if kind in (s.applies_to_kind or [])]

    def documents(self, overlay: Overlay | None = None) -> list[Document]:
        """No parsed documents: the verifiers have nothing to say about a stand-in's files."""
        return []

    def validate(self, overlay: Overlay | None = None) -> ValidationResult:
        self.validations += 1
        files: dict[str, str | None] = {
            p.relative_to(self.root).as_posix(): p.read_text(encoding="utf-8")
            for p in self.spec_root.rglob("*.yaml")
        }
        files.update(overlay or {})
        problems: list[Problem] = []
        for rel, text in sorted(files.items()):
            if text is None:
                continue
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError:
                problems.append(Problem("FS-PARSE", rel, 1, "parse", "not YAML", ""))
                continue
            if isinstance(data, dict) and data.get("broken"):
                problems.append(Problem("FS-BROKEN", rel, 1, "structural", "document says broken", "remove broken: true"))
        return ValidationResult.from_findings(problems, [])
