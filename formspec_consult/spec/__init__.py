"""The pure FormSpec core: load a project, validate it, list its modules and skills.

Pure on purpose: nothing here imports textual, litellm or mcp, so the TUI, the agent and the
MCP servers can all share it cheaply.
"""

from formspec_consult.spec.codes import PROBLEM_CODES
from formspec_consult.spec.errors import ProjectError, SkillNotFound, UnknownKind
from formspec_consult.spec.kinds import CORE_SPEC_VERSION, SHADOWABLE_KINDS, known_kinds
from formspec_consult.spec.lockfile import module_checksum
from formspec_consult.spec.model import Document, ModuleInfo, Problem, Skill, ValidationResult
from formspec_consult.spec.project import Project, open_project
from formspec_consult.spec.schema_registry import kind_schema

__all__ = [
    "CORE_SPEC_VERSION", "PROBLEM_CODES", "SHADOWABLE_KINDS", "Document", "ModuleInfo", "Problem", "Project",
    "ProjectError", "Skill", "SkillNotFound", "UnknownKind", "ValidationResult", "kind_schema",
    "known_kinds", "module_checksum", "open_project",
]
