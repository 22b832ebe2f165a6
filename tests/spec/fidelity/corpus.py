"""A tiny project builder for the fidelity corpus: one base module plus the case's documents."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from formspec_consult.spec import Project, open_project

MODULE = """\
apiVersion: formspec.dev/v1
kind: Module
metadata: {name: fid}
spec: {version: 1.0.0}
"""

TICKET = """\
apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: ticket, module: fid}
spec:
  version: v1
  characteristic: master
  display_field: title
  fields:
    - {name: title, type: string, required: true}
    - {name: status, type: enum, enum_values: [open, closed]}
    - {name: amount, type: money}
    - {name: opened_on, type: date}
    - {name: notes, type: text}
"""


def build(root: Path, documents: str, module: str = MODULE, ticket: str = TICKET) -> Project:
    """A project at `root`: module `fid`, its entity `ticket`, and `documents` in one more file."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "formspec-app.yaml").write_text("spec: spec\n", encoding="utf-8")
    folder = root / "spec" / "modules" / "fid"
    folder.mkdir(parents=True)
    (folder / "module.yaml").write_text(module, encoding="utf-8")
    (folder / "ticket.yaml").write_text(ticket, encoding="utf-8")
    if documents.strip():
        (folder / "case.yaml").write_text(documents, encoding="utf-8")
    return open_project(root)


@dataclass(frozen=True)
class Case:
    """One corpus file: `# expect: ok` or `# expect: <error|warning> <CODE> <message fragment>`."""

    name: str
    expect: str
    code: str | None
    fragment: str
    text: str


def load_cases(folder: Path) -> list[Case]:
    """Every `*.yaml` case in `folder`, sorted by name."""
    out = []
    for path in sorted(folder.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        header = next(line for line in text.splitlines() if line.startswith("# expect:"))
        parts = header.removeprefix("# expect:").strip().split(" ", 2)
        expect = parts[0]
        code = parts[1] if len(parts) > 1 else None
        out.append(Case(path.stem, expect, code, parts[2] if len(parts) > 2 else "", text))
    return out
