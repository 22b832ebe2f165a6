"""The engine surface the app uses and the tool runner the loop uses are whole protocols
(`EngineLike`, `ToolRunner`): every engine — live, replay, test fake — and every runner has each
member, so no call site asks `getattr`/`hasattr` whether an engine or a runner can do something."""

from __future__ import annotations

import ast
from pathlib import Path

import formspec_consult
from tests.helpers import package_probes, probes

PACKAGE = Path(formspec_consult.__file__).parent


def _engine_or_runner(name: str) -> bool:
    return name in {"engine", "tools", "runner"}


def test_no_call_site_probes_an_engine_or_a_tool_runner_for_a_member() -> None:
    offenders = package_probes(PACKAGE, _engine_or_runner)
    assert offenders == [], "declare the member on EngineLike / ToolRunner instead:\n" + "\n".join(offenders)


def test_the_scan_finds_a_probe() -> None:
    source = "getattr(self.engine, 'speed', 1)\nhasattr(tools, 'refresh')\ngetattr(x, 'y')"
    assert probes(ast.parse(source), _engine_or_runner) == [
        (1, "getattr(self.engine, 'speed', 1)"), (2, "hasattr(tools, 'refresh')")]
