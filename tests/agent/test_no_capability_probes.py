"""The engine surface the app uses and the tool runner the loop uses are whole protocols
(`EngineLike`, `ToolRunner`): every engine — live, replay, test fake — and every runner has each
member, so no call site asks `getattr`/`hasattr` whether an engine or a runner can do something."""

from __future__ import annotations

import ast
from pathlib import Path

import formspec_consult

PACKAGE = Path(formspec_consult.__file__).parent


def _probes(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"getattr", "hasattr"}):
            continue
        target = node.args[0] if node.args else None
        name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
        if name in {"engine", "tools", "runner"}:
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_call_site_probes_an_engine_or_a_tool_runner_for_a_member() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}: {call}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, call in _probes(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert offenders == [], "declare the member on EngineLike / ToolRunner instead:\n" + "\n".join(offenders)


def test_the_scan_finds_a_probe() -> None:
    assert _probes(ast.parse("getattr(self.engine, 'speed', 1)\nhasattr(tools, 'refresh')\ngetattr(x, 'y')")) == [
        (1, "getattr(self.engine, 'speed', 1)"), (2, "hasattr(tools, 'refresh')")]
