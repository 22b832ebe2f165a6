"""A minimal stand-in for ``formspec_consult.spec.Project`` for unit tests of the session core.

It validates by parsing each YAML file and flagging documents that say ``broken: true``, which is
all the draft/apply/undo logic needs to see a gate that passes or blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from formspec_consult.spec.model import Problem, ValidationResult


@dataclass
class FakeProject:
    root: Path
    validations: int = 0
    skills: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        (self.root / "spec" / "modules").mkdir(parents=True, exist_ok=True)
        (self.root / "overrides").mkdir(exist_ok=True)

    @property
    def spec_root(self) -> Path:
        return self.root / "spec"

    @property
    def overrides_dir(self) -> Path:
        return self.root / "overrides"

    def skills_for_kind(self, kind: str) -> list[Any]:
        return [s for s in self.skills if kind in getattr(s, "applies_to_kind", [])]

    def documents(self, overlay: dict[str, str | None] | None = None) -> list[Any]:
        """No parsed documents: the verifiers have nothing to say about a stand-in's files."""
        return []

    def validate(self, overlay: dict[str, str | None] | None = None) -> ValidationResult:
        self.validations += 1
        files = {
            p.relative_to(self.root).as_posix(): p.read_text(encoding="utf-8")
            for p in self.spec_root.rglob("*.yaml")
        }
        files.update(overlay or {})
        problems = []
        for rel, text in sorted(files.items()):
            if text is None:
                continue
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError:
                problems.append(
                    {
                        "code": "FS-PARSE",
                        "source": rel,
                        "line": 1,
                        "layer": "parse",
                        "message": "not YAML",
                        "hint": "",
                    }
                )
                continue
            if isinstance(data, dict) and data.get("broken"):
                problems.append(
                    {
                        "code": "FS-BROKEN",
                        "source": rel,
                        "line": 1,
                        "layer": "structural",
                        "message": "document says broken",
                        "hint": "remove broken: true",
                    }
                )
        return ValidationResult.from_findings([Problem(**p) for p in problems], [])
