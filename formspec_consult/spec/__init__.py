"""The pure FormSpec core: load a project, validate it, list its modules and skills.

Pure on purpose: nothing here imports textual, litellm or mcp, so the TUI, the agent and the
MCP servers can all share it cheaply.

The names below are loaded on first use (PEP 562): finding a project's root
(:mod:`formspec_consult.spec.discovery`) is all the consultation process needs at start, and it
must not pay for the validator (jsonschema, every check) that only the MCP servers run.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from formspec_consult.spec.codes import PROBLEM_CODES
    from formspec_consult.spec.errors import ProjectError, SkillNotFound, UnknownKind
    from formspec_consult.spec.kinds import CORE_SPEC_VERSION, SHADOWABLE_KINDS, known_kinds
    from formspec_consult.spec.lockfile import module_checksum
    from formspec_consult.spec.model import Document, ModuleInfo, Problem, Skill, ValidationResult
    from formspec_consult.spec.project import Project, open_project
    from formspec_consult.spec.schema_registry import kind_schema

_HOMES = {
    "PROBLEM_CODES": "codes",
    "ProjectError": "errors", "SkillNotFound": "errors", "UnknownKind": "errors",
    "CORE_SPEC_VERSION": "kinds", "SHADOWABLE_KINDS": "kinds", "known_kinds": "kinds",
    "module_checksum": "lockfile",
    "Document": "model", "ModuleInfo": "model", "Problem": "model", "Skill": "model", "ValidationResult": "model",
    "Project": "project", "open_project": "project",
    "kind_schema": "schema_registry",
}

__all__ = [
    "CORE_SPEC_VERSION", "PROBLEM_CODES", "SHADOWABLE_KINDS", "Document", "ModuleInfo", "Problem", "Project",
    "ProjectError", "Skill", "SkillNotFound", "UnknownKind", "ValidationResult", "kind_schema",
    "known_kinds", "module_checksum", "open_project",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # once loaded, a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
