"""The plain data objects the spec core hands out (JSON-friendly via `to_dict`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, Protocol

from formspec_consult.spec.kinds import effective_kind

Origin = Literal["spec", "modules", "vendors", "overrides"]
Layer = Literal["parse", "schema", "structural"]


class ProjectLike(Protocol):
    """What schema lookup and validation need of a project: its root folder (`Project` is one).

    A protocol here, at the bottom of the core, so that `schema_sources`, `schema_registry` and
    `validate` need not import `project`, which imports them.
    """

    @property
    def root(self) -> Path: ...


@dataclass
class Document:
    """One YAML document of the project, with its identity (module, kind, name)."""

    path: Path
    rel: str
    kind: str
    module: str | None
    name: str | None
    api_version: str
    data: dict[str, Any]
    text: str
    line: int
    read_only: bool
    origin: Origin

    def position_of(self, path: tuple[Any, ...]) -> tuple[int, int | None]:
        """1-based (line, column) in the file of the node at `path` inside this document.

        The text is re-composed only when a problem needs a position: keeping every YAML node
        of a 1,000-file project alive would cost memory and slow the garbage collector.
        """
        from formspec_consult.spec.yamlpos import compose_first, node_position

        if "_node" not in self.__dict__:
            self.__dict__["_node"] = compose_first(self.text)
        found = node_position(self.__dict__["_node"], path)
        return (self.line, None) if found is None else (found[0] + self.line - 1, found[1])

    def line_of(self, path: tuple[Any, ...]) -> int:
        """1-based line in the file of the node at `path` (see `position_of`)."""
        return self.position_of(path)[0]

    @cached_property
    def identity(self) -> tuple[str, str, str]:
        """(module, kind, name), lower-cased, with deprecated kind aliases resolved."""
        return ((self.module or "").lower(), effective_kind(self.kind).lower(), (self.name or "").lower())

    @property
    def spec(self) -> dict[str, Any]:
        """The `spec:` mapping ({} when absent or not a mapping)."""
        value = self.data.get("spec")
        return value if isinstance(value, dict) else {}

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly summary (without data and text)."""
        return {"path": self.rel, "kind": self.kind, "module": self.module, "name": self.name,
                "api_version": self.api_version, "line": self.line, "read_only": self.read_only,
                "origin": self.origin}


@dataclass
class ModuleInfo:
    """A module found in `modules/` (editable) or `vendors/` (installed, read-only)."""

    name: str
    source: Literal["modules", "vendors"]
    path: str
    version: str | None
    active: bool
    read_only: bool
    trust_tier: str | None = None
    ai_index: dict[str, Any] | None = None
    lock: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """All fields, JSON-friendly."""
        return asdict(self)


@dataclass
class Problem:
    """One validation finding; `code` is stable so tools and tests can rely on it."""

    code: str
    source: str
    line: int | None
    layer: Layer
    message: str
    hint: str = ""
    column: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """{code, source, line, layer, message, hint} plus `column` when known."""
        out = {"code": self.code, "source": self.source, "line": self.line, "layer": self.layer,
               "message": self.message, "hint": self.hint}
        if self.column is not None:
            out["column"] = self.column
        return out


@dataclass
class ValidationResult:
    """Errors (`problems`, ok only when empty) and non-blocking `warnings`."""

    ok: bool
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    #: kind → the schema source its documents were checked against (official file or ours)
    schema_sources: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_findings(cls, problems: list[Problem], warnings: list[Problem]) -> ValidationResult:
        """ok exactly when there are no problems."""
        return cls(ok=not problems, problems=problems, warnings=warnings)

    def codes(self) -> list[str]:
        """All problem codes, in order (handy in tests and summaries)."""
        return [p.code for p in self.problems]

    def to_dict(self) -> dict[str, Any]:
        """{"ok", "problems": [...], "warnings": [...], "schema_sources": {kind: source}}."""
        return {"ok": self.ok, "problems": [p.to_dict() for p in self.problems],
                "warnings": [w.to_dict() for w in self.warnings], "schema_sources": dict(self.schema_sources)}


@dataclass(frozen=True)
class Skill:
    """A Markdown skill (bundled with us or from the project's `.agents/skills/`); frozen, because
    loaded skills are cached and shared."""

    name: str
    description: str
    applies_to_kind: list[str] | None
    min_core_spec_version: str | None
    source: Literal["bundled", "project"]
    path: Path
    stale: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Listing form; applies_to_kind and min_core_spec_version only when set."""
        out: dict[str, Any] = {"name": self.name, "description": self.description,
                               "source": self.source, "stale": self.stale}
        if self.applies_to_kind is not None:
            out["applies_to_kind"] = self.applies_to_kind
        if self.min_core_spec_version is not None:
            out["min_core_spec_version"] = self.min_core_spec_version
        return out
