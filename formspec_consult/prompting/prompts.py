"""Versioned prompt files: `prompts/<name>.prompt.yaml` with shared partials.

Shape (after the SpecVerse seed)::

    name: consultant
    version: "1.0.0"
    description: one line, shown in MCP prompt listings
    variables:
      - {name: session_id, required: true, description: ...}
      - {name: skills, required: false, default: "", description: ...}
    system:                      # a string, or named parts joined by blank lines, in order
      role: |
        You are ...
      rules: |
        {{> shared-rules}}
    user:
      template: |
        {{request}}

Placeholders: ``{{var}}``; sections ``{{#var}}…{{/var}}`` render only when `var` is non-empty;
partials ``{{> name}}`` come from `prompts/partials/<name>.md`, expanded at load time (nested,
cycle-safe). Rendering is strict: a placeholder that is not declared, an undeclared variable
passed in, or a missing required one is a :class:`PromptError` naming it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from formspec_consult.prompting.template import (
    PromptError,
    expand_partials,
    placeholders,
    render_template,
)

__all__ = ["Prompt", "PromptError", "PromptVariable", "list_prompts", "load_prompt"]

_SUFFIX = ".prompt.yaml"
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class PromptVariable:
    name: str
    required: bool = True
    default: str = ""
    description: str = ""


@dataclass(frozen=True)
class Prompt:
    """A loaded prompt: partials already expanded, placeholders checked against `variables`."""

    name: str
    version: str
    description: str
    variables: tuple[PromptVariable, ...]
    system_parts: tuple[tuple[str, str], ...]  # (part name, template), in file order
    user_template: str = ""
    path: Path | None = field(default=None, compare=False)

    @property
    def variable_names(self) -> set[str]:
        return {v.name for v in self.variables}

    def _values(self, given: dict[str, Any], used: set[str]) -> dict[str, str]:
        unknown = sorted(set(given) - self.variable_names)
        if unknown:
            raise PromptError(
                f"prompt '{self.name}' does not declare variable(s) {', '.join(unknown)}; "
                f"declared: {', '.join(sorted(self.variable_names)) or '(none)'}"
            )
        values: dict[str, str] = {}
        for variable in self.variables:
            if variable.name in given and given[variable.name] is not None:
                values[variable.name] = str(given[variable.name])
            elif variable.required and variable.name in used:
                raise PromptError(f"prompt '{self.name}' needs variable '{variable.name}' ({variable.description})")
            else:
                values[variable.name] = variable.default
        return values

    def render_system(self, **variables: Any) -> str:
        """The system prompt with `variables` filled in."""
        text = "\n\n".join(template.strip() for _, template in self.system_parts)
        return render_template(text, self._values(variables, placeholders(text)), self.name).strip() + "\n"

    def render_user(self, **variables: Any) -> str:
        """The user message template with `variables` filled in."""
        if not self.user_template:
            raise PromptError(f"prompt '{self.name}' has no user template")
        text = self.user_template
        return render_template(text, self._values(variables, placeholders(text)), self.name).strip() + "\n"


def _default_dir() -> Path:
    from formspec_consult.resources import data_dir

    return data_dir("prompts")


def load_prompt(name: str, prompts_dir: Path | None = None) -> Prompt:
    """Load `<prompts_dir>/<name>.prompt.yaml` (default: the shipped prompts)."""
    if not _NAME.match(name):
        raise PromptError(f"prompt names are lowercase words joined by '-', got {name!r}")
    folder = Path(prompts_dir) if prompts_dir is not None else _default_dir()
    path = folder / f"{name}{_SUFFIX}"
    if not path.is_file():
        known = ", ".join(p.name.removesuffix(_SUFFIX) for p in sorted(folder.glob(f"*{_SUFFIX}")))
        raise PromptError(f"no prompt '{name}' in {folder} (available: {known or 'none'})")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise PromptError(f"{path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise PromptError(f"{path} must be a YAML mapping with name, version, system, …")
    return _build(data, path, folder / "partials")


def list_prompts(prompts_dir: Path | None = None) -> list[Prompt]:
    """Every prompt in the folder, sorted by name."""
    folder = Path(prompts_dir) if prompts_dir is not None else _default_dir()
    return [load_prompt(p.name.removesuffix(_SUFFIX), folder) for p in sorted(folder.glob(f"*{_SUFFIX}"))]


def _build(data: dict[str, Any], path: Path, partials: Path) -> Prompt:
    name = str(data.get("name") or "")
    if name != path.name.removesuffix(_SUFFIX):
        raise PromptError(f"{path}: 'name' must be {path.name.removesuffix(_SUFFIX)!r}, got {name!r}")
    if not data.get("version"):
        raise PromptError(f"{path}: 'version' is required (e.g. \"1.0.0\")")
    system = data.get("system")
    if isinstance(system, str):
        parts = [("role", system)]
    elif isinstance(system, dict) and all(isinstance(v, str) for v in system.values()):
        parts = [(str(k), v) for k, v in system.items()]
    else:
        raise PromptError(f"{path}: 'system' must be text or a mapping of named text parts")
    user = data.get("user") or {}
    user_template = user.get("template", "") if isinstance(user, dict) else str(user)
    raw_vars = data.get("variables") or (user.get("variables") if isinstance(user, dict) else None) or []
    variables = tuple(_variable(item, path) for item in raw_vars)
    parts = [(key, expand_partials(text, partials, path.name)) for key, text in parts]
    user_template = expand_partials(user_template, partials, path.name)
    declared = {v.name for v in variables}
    used = set().union(*(placeholders(t) for _, t in parts), placeholders(user_template))
    if used - declared:
        raise PromptError(f"{path}: placeholder(s) {', '.join(sorted(used - declared))} are not declared in 'variables'")
    return Prompt(name, str(data["version"]), str(data.get("description", "")).strip(), variables,
                  tuple(parts), user_template, path)


def _variable(item: Any, path: Path) -> PromptVariable:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise PromptError(f"{path}: each variable needs at least a 'name', got {item!r}")
    required = bool(item.get("required", "default" not in item))
    return PromptVariable(item["name"], required, str(item.get("default", "")), str(item.get("description", "")))
