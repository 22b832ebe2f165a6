"""Tiny shared helper of the fidelity corpus: a case is a YAML file describing a small project.

A case file has `about` (what FormSpec does, in a sentence), `expect` (`ok`, or the problem
code the project must fail with) and `files` (path relative to the project root → text).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


@dataclass(frozen=True)
class Case:
    """One fidelity case: a project in files and what validating it must give."""

    name: str
    about: str
    expect: str
    files: dict[str, str]
    extra: dict[str, Any]


def load_cases(folder: Path) -> list[Case]:
    """Every `*.yaml` case under `folder`, in name order (files starting with `_` are not cases)."""
    cases = []
    for path in sorted(folder.glob("*.yaml")):
        if path.name.startswith("_"):
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        rest = {k: v for k, v in data.items() if k not in ("about", "expect", "files")}
        cases.append(Case(path.stem, data["about"], str(data["expect"]), dict(data.get("files") or {}), rest))
    return cases


def write_project(root: Path, files: dict[str, str]) -> Path:
    """Write `files` under `root` and return `root`."""
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root
