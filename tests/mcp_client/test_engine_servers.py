"""`mcpServers` servers through the Engine (scripted provider, the project's consult.yaml): the
session's tool_timeout applies to them, a tool they add is offered from the next request, and an
image they return reaches a model that takes images (and only a placeholder otherwise), exactly
as the event log rebuilds it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from formspec_consult.store.agent_events import AgentEvent, ToolCallFinished
from formspec_consult.store.events import EventLog
from formspec_consult.store.rebuild import rebuild_history
from tests.helpers import trust_project

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
FAKE = Path(__file__).with_name("fake_server.py")


def configure(project: Path, **settings: Any) -> None:
    config = {
        **settings,
        "mcpServers": {
            "extra": {
                "command": sys.executable,
                "args": [str(FAKE), "extra"],
                "env": {"PYTHONPATH": str(Path(__file__).parents[2])},
            }
        },
    }
    (project / ".formspec").mkdir(exist_ok=True)
    (project / ".formspec" / "consult.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    trust_project(project)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


async def turn(project: Path, replies: list[Any], images: bool = False) -> tuple[Engine, ScriptedProvider, list[AgentEvent]]:
    provider = ScriptedProvider(replies, images=images)
    engine = await Engine.open(EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs))
    with anyio.fail_after(60):
        events = [event async for event in engine.run_turn("go")]
    return engine, provider, events


def logged(engine: Engine) -> list[dict[str, Any]]:
    return list(EventLog.read(engine.session_dir / "events.jsonl"))


async def test_the_session_tool_timeout_bounds_calls_to_configured_servers(project: Path) -> None:
    configure(project, tool_timeout=1)
    engine, _provider, events = await turn(project, [call("hang"), "It hung."])
    try:
        (finished,) = [e for e in events if isinstance(e, ToolCallFinished)]
        assert not finished.ok and "did not answer 'hang' within 1s" in finished.result
    finally:
        await engine.aclose()


async def test_a_tool_the_server_adds_is_offered_from_the_next_request(project: Path) -> None:
    # grow writes (an additive write, by its annotations) and the tool it adds declares nothing:
    # both would wait for the person; this trusted project allows them without asking.
    configure(project, permissions={"extra__grow": "allow", "extra__fresh": "allow"})
    engine, _provider, events = await turn(project, [call("grow", tool="fresh"), call("fresh"), "Done."])
    try:
        finished = [e for e in events if isinstance(e, ToolCallFinished)]
        assert [(e.ok, e.result) for e in finished] == [(True, "added fresh"), (True, "grown fresh")]
        offered = [
            {t["function"]["name"] for t in event["tools"]}
            for event in logged(engine)
            if event["type"] == "request" and "tools" in event
        ]
        assert "fresh" not in offered[0] and "fresh" in offered[1]  # the second request offers it
    finally:
        await engine.aclose()


@pytest.mark.parametrize("images", [True, False])
async def test_an_image_reaches_a_model_that_takes_images_and_a_placeholder_reaches_others(
    project: Path, images: bool
) -> None:
    configure(project)
    engine, provider, _events = await turn(project, [call("picture"), "A dot."], images=images)
    try:
        (result,) = [m for m in provider.requests[1] if m["role"] == "tool"]
        placeholder = "a picture:\n[image 1: image/png, 71 bytes]"
        if images:
            text, image = result["content"]
            assert text == {"type": "text", "text": placeholder}
            assert image["type"] == "image_url" and image["image_url"]["url"].startswith("data:image/png;base64,")
        else:
            assert result["content"] == placeholder
        # The event log rebuilds exactly what the model was sent.
        rebuilt = rebuild_history(logged(engine))
        assert json.dumps(rebuilt[: len(provider.requests[1])]) == json.dumps(provider.requests[1])
    finally:
        await engine.aclose()
