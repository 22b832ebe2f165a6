"""get_module_detail answers for the modules installed in the project too, through the engine and a
scripted model: a vendored module the registry does not know, and one install_module put there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from tests.e2e.project import make_project
from tests.helpers import copy_example

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))


def detail(name: str, call_id: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "get_module_detail", "arguments": {"name": name}}]}


async def ask(project: Path, names: list[str], install: str | None = None) -> dict[str, str]:
    """call id -> what the model read of each get_module_detail call (one turn)."""
    replies: list[Any] = [detail(name, f"d{i}") for i, name in enumerate(names)]
    provider = ScriptedProvider([*replies, "Here is what I found."])
    engine = await Engine.open(EngineOptions(project=project, provider=provider, in_memory_server=True,
                                             servers=server_specs))
    try:
        with anyio.fail_after(60):
            if install:
                await engine.call_tool("install_module", {"name": install})  # the person's own install
            async for _ in engine.run_turn("which modules fit?"):
                pass
    finally:
        await engine.aclose()
    return {m["tool_call_id"]: m["content"] for m in provider.requests[-1] if m["role"] == "tool"}


async def test_a_vendored_module_the_registry_does_not_know_is_answered_from_the_project(tmp_path: Path) -> None:
    read = await ask(copy_example(tmp_path), ["loyalty"])
    answer = json.loads(read["d0"])
    installed = answer["installed"]
    assert answer["name"] == "loyalty" and "Installed in this project" in answer["note"]
    assert installed["version"] == "2.1.0" and installed["path"] == "vendors/loyalty" and installed["read_only"]
    assert installed["checksum"].startswith("sha256:") and installed["trust_tier"] == "community"
    assert installed["holds"]["Entity master"] == ["loyalty_card"]
    assert installed["ai_index"]["skills_for_ai"]["untrusted"] is True  # publisher text stays marked as data


async def test_a_module_install_module_put_in_the_project_reads_as_installed_beside_the_registrys_detail(
    tmp_path: Path,
) -> None:
    project = make_project(tmp_path / "shop")
    read = await ask(project, ["rental-calendar", "no-such-module"], install="rental-calendar")
    answer = json.loads(read["d0"])
    assert answer["name"] == "rental-calendar" and "versions" in answer  # the registry's detail stays
    assert answer["installed"]["path"] == "vendors/rental-calendar" and answer["installed"]["source"] == "vendors"
    assert read["d1"].startswith("ERROR") and "No module named 'no-such-module'" in read["d1"]


async def test_a_registry_module_the_project_does_not_hold_is_the_registrys_detail_alone(tmp_path: Path) -> None:
    read = await ask(make_project(tmp_path / "shop"), ["rental-calendar"])
    answer = json.loads(read["d0"])
    assert answer["name"] == "rental-calendar" and "installed" not in answer
