"""Open a real Engine over a project and run turns, as the engine tests do: the local MCP server in
memory, a scripted provider (its replies), nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from formspec_consult.store.agent_events import AgentEvent
from tests.e2e.project import CUSTOMER, DRAFT_PATH


def propose(path: str = DRAFT_PATH, content: str = CUSTOMER) -> dict[str, Any]:
    """A scripted reply that proposes `content` as the draft of `path`."""
    return {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": path, "content": content}}]}


async def open_engine(project: Path, replies: list[Any], **kwargs: Any) -> tuple[Engine, ScriptedProvider]:
    """An engine over `project` whose model answers `replies` in order (`kwargs`: more EngineOptions)."""
    provider = ScriptedProvider(replies)
    engine = await Engine.open(
        EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs, **kwargs)
    )
    return engine, provider


async def consult(
    project: Path, replies: list[Any], *turns: str, timeout: float = 60, **kwargs: Any
) -> tuple[Engine, ScriptedProvider, list[AgentEvent]]:
    """A whole session: open the engine, run `turns` (at most `timeout` s), close it; its events."""
    engine, provider = await open_engine(project, replies, **kwargs)
    events: list[AgentEvent] = []
    try:
        with anyio.fail_after(timeout):
            for text in turns:
                events += [event async for event in engine.run_turn(text)]
    finally:
        await engine.aclose()
    return engine, provider, events


async def run(engine: Engine, text: str) -> list[AgentEvent]:
    """Every event of one turn (at most 30 s)."""
    with anyio.fail_after(30):
        return [event async for event in engine.run_turn(text)]
