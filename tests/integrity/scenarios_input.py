"""Bad input of issue 20 through the local server's MCP tools: each is a clear problem or tool
error that says what to fix, never a crash or an empty error message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.integrity.scenarios import Observed, scenario
from tests.integrity.scenarios_tamper import SERVICE, Tools, _tmp, edited_service, run_with_server

HUGE = "9" * 5000  # above Python's 4,300-digit limit for turning an integer into text


def _codes(result: Any) -> list[str]:
    return [p["code"] for p in result["validation"]["problems"]] if isinstance(result, dict) else []


@scenario
def huge_integer_in_yaml(request: pytest.FixtureRequest) -> Observed:
    """A draft with a 5,000-digit integer, then a project file with one (and a hex one)."""

    async def body(tools: Tools, project: Path, folder: Path) -> Observed:
        proposed, result = await tools("propose_spec_file", path=SERVICE,
                                       content=edited_service(project) + f"huge: {HUGE}\n")
        problem: dict[str, Any] = next(
            (p for p in result["validation"]["problems"] if p["code"] == "FS-YAML-NUMBER"), {}) \
            if proposed else {}
        listed, drafts = await tools("list_drafts")
        rejected, _ = await tools("reject_draft", path=SERVICE)
        big = project / "spec" / "modules" / "shop" / "big.yaml"
        big.write_text(f"apiVersion: formspec.dev/v1\nkind: Entity\nhuge: 0x{'f' * 5000}\n", encoding="utf-8")
        checked, validation = await tools("validate_spec", yaml=f"a: {HUGE}\n")
        later, _ = await tools("propose_spec_file", path=SERVICE, content=edited_service(project))
        # the tool's answer only counts problems elsewhere: read the project file's from the gate itself
        from formspec_consult.spec import open_project

        other_codes = [(p.source, p.code) for p in open_project(project).validate().problems]
        return {
            "proposed": proposed,
            "problem": f"{problem.get('message', '')} | {problem.get('hint', '')} | line {problem.get('line')}",
            "list_drafts_works": listed and len(drafts["drafts"]) == 1,
            "reject_works": rejected,
            "validate_spec_problem": "FS-YAML-NUMBER" in json.dumps(validation) if checked else str(validation),
            "project_file_is_one_problem": other_codes.count(("spec/modules/shop/big.yaml", "FS-YAML-NUMBER")) == 1,
            "other_tools_work": later,
        }

    return run_with_server(_tmp(request), body)


@scenario
def symlink_loop_under_spec(request: pytest.FixtureRequest) -> Observed:
    """A folder link to itself under spec/modules/ and two YAML links pointing at each other."""

    async def body(tools: Tools, project: Path, folder: Path) -> Observed:
        modules = project / "spec" / "modules"
        (modules / "loop").symlink_to(modules / "loop")
        (modules / "shop" / "a.yaml").symlink_to(modules / "shop" / "b.yaml")
        (modules / "shop" / "b.yaml").symlink_to(modules / "shop" / "a.yaml")
        proposed, result = await tools("propose_spec_file", path=SERVICE, content=edited_service(project))
        modules_ok, _ = await tools("list_installed_modules")
        listed, _ = await tools("list_drafts")
        # the problems elsewhere are only counted in the tool's answer: read them from the gate itself
        from formspec_consult.spec import open_project

        whole = open_project(project).validate()
        problems = [p for p in whole.problems if p.code == "FS-FILE-UNREADABLE"]
        return {
            "proposed": proposed,
            "error": "" if proposed else str(result),
            "counted_elsewhere": result.get("other_problems") if proposed else None,
            "problem_files": sorted(p.source for p in problems),
            "hint": problems[0].hint if problems else "",
            "other_tools_work": modules_ok and listed,
        }

    return run_with_server(_tmp(request), body)
