"""install_module is a guarded tool: the model's call runs only once the person approves it, as
apply_draft does; refused, or with nobody to ask, nothing is written and the model is told what
to offer the person instead."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
import yaml

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.agent.loop.permissions import Decision, PermissionRequest
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from formspec_consult.store.agent_events import ToolCallFinished

pytestmark = pytest.mark.anyio
INSTALL = {"tool_calls": [{"name": "install_module", "arguments": {"name": "rental-calendar"}}]}


async def run(project: Path, answer: Decision | None) -> tuple[list[ToolCallFinished], list[PermissionRequest]]:
    asked: list[PermissionRequest] = []
    provider = ScriptedProvider([INSTALL, "Done."])
    engine = await Engine.open(EngineOptions(project=project, provider=provider, in_memory_server=True,
                                             servers=server_specs))
    if answer is not None:
        async def approver(request: PermissionRequest) -> Decision:
            asked.append(request)
            return answer

        engine.set_approver(approver)
    try:
        with anyio.fail_after(30):
            events = [event async for event in engine.run_turn("we rent tents")]
    finally:
        await engine.aclose()
    return [e for e in events if isinstance(e, ToolCallFinished)], asked


async def test_with_nobody_to_ask_the_install_is_refused_with_the_persons_command_and_nothing_written(
    project: Path,
) -> None:
    (finished,), asked = await run(project, None)
    assert finished.name == "install_module" and not asked
    assert "permission denied" in finished.result and "formspec module install --from" in finished.result
    assert not (project / "vendors").exists() and not (project / "formspec.lock").exists()


async def test_the_person_declining_leaves_the_project_untouched(project: Path) -> None:
    (finished,), asked = await run(project, "deny")
    assert [r.summary for r in asked] == ["The consultant wants to install the registry module rental-calendar."]
    assert "The person declined this call" in finished.result
    assert not (project / "vendors").exists() and not (project / "formspec.lock").exists()


async def test_the_person_approving_installs_it_into_a_flow_modules_list(project: Path) -> None:
    (finished,), asked = await run(project, "allow_once")
    assert len(asked) == 1 and finished.ok, finished.result
    assert (project / "vendors" / "rental-calendar" / "module.yaml").is_file()
    app = yaml.safe_load((project / "spec" / "apps" / "shop.yaml").read_text(encoding="utf-8"))
    assert app["spec"]["modules"] == ["shop", "rental-calendar"]
    lock = yaml.safe_load((project / "formspec.lock").read_text(encoding="utf-8"))
    assert [m["name"] for m in lock["modules"]] == ["rental-calendar"]
