"""What several test areas build on: a copy of the bundled example, spec texts to draft."""

from __future__ import annotations

import ast
import re
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp_types import CallToolResult, TextContent

from formspec_consult.providers import ScriptedProvider
from formspec_consult.providers.base import ProviderError
from formspec_consult.resources import package_path


def first_text(result: CallToolResult) -> str:
    """The text of a tool result's first block, "" when it has none (a block of another kind fails the test)."""
    if not result.content:
        return ""
    block = result.content[0]
    assert isinstance(block, TextContent), f"a text block was expected, not {type(block).__name__}"
    return block.text


def group_of(pattern: str, text: str) -> str:
    """The first group of `pattern`'s first match in `text`; no match fails the test, naming both."""
    found = re.search(pattern, text)
    assert found is not None, f"{pattern!r} not found in {text!r}"
    return found.group(1)


def copy_example(parent: Path, name: str = "barbershop") -> Path:
    """A writable copy of a bundled example project under `parent` (never the package's own files).

    A `.formspec/` folder (sessions made by running the product inside the package) is left behind.
    """
    target = parent / name
    shutil.copytree(package_path("examples", name), target, ignore=shutil.ignore_patterns(".formspec"))
    return target


def lifecycle_entity(states: list[str], transitions: list[tuple[str, str, str]], fields: str = "",
                     name: str = "order", characteristic: str = "transaction", module: str = "shop") -> str:
    """An Entity whose `status` runs through `states` (the first is initial) by (from, to, via) transitions.

    `fields` is extra YAML, already indented as items of `spec.fields`.
    """
    states_yaml = "\n".join(f"      - {{name: {s}, label: {s}}}" for s in states)
    trans_yaml = "\n".join(f"      - {{from: {a}, to: {b}, via: {v}}}" for a, b, v in transitions)
    return f"""apiVersion: formspec.dev/v1
kind: Entity
metadata: {{name: {name}, module: {module}}}
spec:
  version: v1
  characteristic: {characteristic}
  fields:
    - {{name: transaction_date, type: date, required: true}}
    - {{name: status, type: enum, enum_values: [{", ".join(states)}]}}
{fields}  state_machine:
    field: status
    initial: {states[0]}
    states:
{states_yaml}
    transitions:
{trans_yaml}
"""  # a transition's `via` is an action of its own: no `actions:` entry repeats it


def probes(tree: ast.AST, probed: Callable[[str], bool]) -> list[tuple[int, str]]:
    """`getattr`/`hasattr` calls in `tree` whose object's name (`x`, `self.x`) `probed` accepts:
    (line, the call as written)."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"getattr", "hasattr"}):
            continue
        target = node.args[0] if node.args else None
        name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
        if probed(name):
            found.append((node.lineno, ast.unparse(node)))
    return found


def package_probes(package: Path, probed: Callable[[str], bool]) -> list[str]:
    """`path:line: call` for every such probe in the package's modules."""
    return [
        f"{path.relative_to(package)}:{line}: {call}"
        for path in sorted(package.rglob("*.py"))
        for line, call in probes(ast.parse(path.read_text(encoding="utf-8")), probed)
    ]


class HeldWarmUp(ScriptedProvider):
    """A scripted provider whose warm-up (litellm's import, for the real one) waits until the test
    sets `release`; `warming` says it began. With `refuse`, the warm-up then refuses the model (as
    the capability check does for the real one)."""

    def __init__(self, replies: list[Any], *, refuse: ProviderError | None = None) -> None:
        super().__init__(replies)
        self.release = threading.Event()
        self.warming = threading.Event()
        self.refuse = refuse

    def warm(self) -> None:
        self.warming.set()
        if not self.release.wait(60):
            raise RuntimeError("the test never released the warm-up")
        if self.refuse is not None:
            raise self.refuse


def trust_project(project: Path) -> None:
    """Trust the project's settings file as it is now, as `formspec-consult trust` would (in the
    user config folder the test set, XDG_CONFIG_HOME)."""
    from formspec_consult.config.trust import digest_of, trust

    trust(project, digest_of((project / ".formspec" / "consult.yaml").read_bytes()))
