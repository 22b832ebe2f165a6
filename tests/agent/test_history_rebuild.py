"""Rebuilding from events.jsonl reproduces exactly what the model saw at every request.

Drives the real agent loop with a scripted provider on a small window (so compaction happens),
then replays the log up to each ``request`` event and compares it with what the provider got.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import anyio
import pytest

from formspec_consult.agent.compaction.compress import Compressor
from formspec_consult.agent.engine.replay import events_from_log
from formspec_consult.agent.history.history import History
from formspec_consult.agent.loop.loop import AgentLoop
from formspec_consult.mcp_client.manager import ToolOutcome
from formspec_consult.providers import ScriptedProvider
from formspec_consult.store.agent_events import AgentEvent, CompactionDone
from formspec_consult.store.events import EventLog, rebuild_history

pytestmark = pytest.mark.anyio


class BulkyTools:
    """A tool runner whose only tool returns a long output (so pruning has work to do)."""

    def __init__(self) -> None:
        self.block = asyncio.Event()

    def tool_declarations(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": "list_kind_schemas", "description": "schemas",
                                                  "parameters": {"type": "object", "properties": {}}}}]

    async def call(self, exposed: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        if arguments and arguments.get("hang"):
            await self.block.wait()  # cancelled by the test
        return ToolOutcome("local", exposed, True, "schema field line\n" * 400, 1.0)


def replies(turns: int) -> list[Any]:
    out: list[Any] = []
    for turn in range(turns):
        out.append({"tool_calls": [{"name": "list_kind_schemas", "arguments": {"kind": "entity"}}]})
        out.append({"text": f"Noted ({turn}). Which one?\nA) Walk-ins\nB) Appointments"})
    return out


async def run(loop: AgentLoop, text: str) -> list[AgentEvent]:
    with anyio.fail_after(30):
        return [event async for event in loop.run_turn(text)]


async def test_every_request_is_rebuilt_exactly_from_the_log_across_compactions_and_a_cancel(tmp_path: Path) -> None:
    provider = ScriptedProvider(replies(14) + [{"tool_calls": [{"name": "list_kind_schemas", "arguments": {"hang": True}}]}]
                                + [{"text": "Back after the cancel."}])
    tools = BulkyTools()
    log = EventLog(tmp_path / "events.jsonl")
    history = History(log, [{"role": "system", "content": "You are a test consultant. " * 40}])
    compressor = Compressor(count_tokens=lambda m: provider.count_tokens(m, tools.tool_declarations()),
                            usable_window=5000, threshold=0.75)
    loop = AgentLoop(provider=provider, history=history, tools=tools, compressor=compressor, log=log,
                     record=lambda event: None)
    shown: list[AgentEvent] = []
    for turn in range(14):
        text = f"[chosen: B) Appointments, turn {turn}]" if turn % 3 == 2 else f"Turn {turn}: tell me about bookings."
        shown += await run(loop, text)

    async def cancelled_turn() -> None:
        await run(loop, "Check the schemas again.")

    task = asyncio.ensure_future(cancelled_turn())
    with anyio.fail_after(10):
        while not any(e["type"] == "tool_call" and e["arguments"].get("hang") for e in EventLog.read(log.path)):  # noqa: ASYNC110 - the state is in the log file; bounded by fail_after
            await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await run(loop, "Go on.")

    events = list(EventLog.read(log.path))
    requests = [e for e in events if e["type"] == "request"]
    assert any(e["type"] == "compaction" for e in events), "the window is small enough to force compaction"
    assert any(e["type"] == "repair" for e in events), "the cancelled turn was repaired"
    assert len(requests) == len(provider.requests)
    for request, sent in zip(requests, provider.requests, strict=True):
        assert rebuild_history(events, upto_seq=request["seq"]) == sent
    assert rebuild_history(events) == history.messages
    assert History.restore(events).messages == history.messages
    # a resumed pane shows each compaction exactly as it was shown live
    live = [e for e in shown if isinstance(e, CompactionDone)]
    assert live and [e for e in events_from_log(EventLog.records(log.path)) if isinstance(e, CompactionDone)][:len(live)] == live
    # the records are written with the keys (and key order) logs have always had
    compaction = ["start", "end", "summary_message", "method", "pruned", "stubs", "pruned_tools", "focus",
                  "tokens_after", "tokens_before"]
    assert {tuple(e)[4:] for e in events if e["type"] == "compaction"} == {tuple(compaction)}
    assert {tuple(e)[4:] for e in events if e["type"] == "repair"} == {("actions", "remove", "insert")}
    log.close()
