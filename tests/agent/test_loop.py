"""The agent loop through a scripted provider and a real in-memory MCP server."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from formspec_consult.agent.compaction.compress import Compressor
from formspec_consult.agent.history.history import History
from formspec_consult.agent.loop.loop import AgentLoop
from formspec_consult.mcp_client import MCPManager, ServerSpec
from formspec_consult.providers import Completion, ScriptedProvider
from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantMessage,
    CompactionDone,
    Notice,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
)
from formspec_consult.store.events import EventLog
from formspec_consult.store.transcript import Transcript
from tests.mcp_client.fake_server import build

pytestmark = pytest.mark.anyio


@dataclass
class Rig:
    loop: AgentLoop
    provider: ScriptedProvider
    log_path: Path
    transcript_path: Path

    async def turn(self, text: str) -> list[AgentEvent]:
        with anyio.fail_after(20):
            return [event async for event in self.loop.run_turn(text)]

    def logged(self, type_: str) -> list[dict[str, Any]]:
        return [e for e in EventLog.read(self.log_path) if e["type"] == type_]


@asynccontextmanager
async def rig(
    tmp_path: Path,
    replies: list[Any],
    *,
    cap: int = 8000,
    max_steps: int = 15,
    window: int = 200_000,
    summarise: Any = None,
    provider_cls: type[ScriptedProvider] = ScriptedProvider,
) -> AsyncIterator[Rig]:
    provider = provider_cls(replies)
    manager = MCPManager([ServerSpec(name="fake", in_process=build())])
    await manager.start(required=["fake"])
    log = EventLog(tmp_path / "events.jsonl")
    history = History(log, [{"role": "system", "content": "You are a test consultant."}])
    compressor = Compressor(
        count_tokens=lambda m: provider.count_tokens(m, manager.tool_declarations()),
        usable_window=window,
        threshold=0.75,
        summarise=summarise,
    )
    transcript = Transcript(tmp_path / "transcript.md")
    loop = AgentLoop(
        provider=provider,
        history=history,
        tools=manager,
        compressor=compressor,
        log=log,
        record=transcript.write,
        max_steps=max_steps,
        tool_result_cap=cap,
    )
    try:
        yield Rig(loop, provider, tmp_path / "events.jsonl", tmp_path / "transcript.md")
    finally:
        await manager.aclose()
        log.close()


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


async def test_tool_rounds_run_until_the_model_answers_in_text(tmp_path: Path) -> None:
    replies = [call("echo", text="one"), call("echo", text="two"), {"text": "Done after two tools."}]
    async with rig(tmp_path, replies) as r:
        events = await r.turn("go")
        finished = [e for e in events if isinstance(e, ToolCallFinished)]
        assert [e.result for e in finished] == ["one", "two"]
        assert isinstance(events[-1], TurnFinished) and events[-1].reason == "done"
        # The third request carried both results back to the model.
        tool_messages = [m for m in r.provider.requests[2] if m["role"] == "tool"]
        assert [m["content"] for m in tool_messages] == ["one", "two"]
        r.loop.history.check_pairing()
        assert "Done after two tools." in r.transcript_path.read_text(encoding="utf-8")
        assert [e["name"] for e in r.logged("tool_call")] == ["echo", "echo"]
        assert len(r.logged("request")) == 3 and "tools" in r.logged("request")[0]


async def test_the_step_limit_stops_a_turn_with_a_clear_message_and_a_valid_history(tmp_path: Path) -> None:
    async with rig(tmp_path, [call("echo", text=str(i)) for i in range(3)], max_steps=3) as r:
        events = await r.turn("loop forever")
        assert isinstance(events[-1], TurnFinished) and events[-1].reason == "step_limit"
        assert "Stopped after 3 steps" in (events[-1].error or "")
        assert len(r.provider.requests) == 3
        r.loop.history.check_pairing()


async def test_the_model_is_told_its_step_budget_and_the_person_and_model_are_told_when_it_is_used_up(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path, [call("echo", text=str(i)) for i in range(4)], max_steps=4) as r:
        events = await r.turn("keep going")
        read = [[m["content"] for m in request if m["role"] == "tool"] for request in r.provider.requests]
        assert read[1][-1].endswith("[Step budget: 3 requests left in this turn. Finish what you are doing, "
                                    "then reply to the person.]")
        assert read[2][-1].startswith("1") and "[Step budget: 2 requests left" in read[2][-1]
        assert "the next request is the last of this turn" in read[3][-1]
        assert isinstance(events[-1], TurnFinished) and events[-1].reason == "step_limit"
        notice = next(e for e in events if isinstance(e, Notice) and "Stopped after 4 steps" in e.message)
        assert "What it did is kept" in notice.message and "continue" in notice.message
        last = r.loop.history.messages[-1]
        assert last["role"] == "tool" and "steps are used up" in last["content"]
        r.loop.history.check_pairing()


async def test_long_tool_results_are_cut_for_the_model_but_kept_whole_elsewhere(tmp_path: Path) -> None:
    long = "x" * 500
    async with rig(tmp_path, [call("echo", text=long), "ok"], cap=100) as r:
        events = await r.turn("read it")
        (finished,) = [e for e in events if isinstance(e, ToolCallFinished)]
        assert finished.result == long
        sent = next(m for m in r.provider.requests[1] if m["role"] == "tool")["content"]
        assert sent.startswith("x" * 100) and "x" * 101 not in sent
        (logged,) = r.logged("tool_result")
        assert "100 of 500 characters" in sent and f"read_transcript(seq={logged['seq']}, offset=100)" in sent
        assert logged["result"] == long


async def test_tool_errors_and_bad_arguments_go_back_to_the_model_as_error_results(tmp_path: Path) -> None:
    bad_json = {"tool_calls": [{"name": "echo", "arguments": "{not json"}]}
    async with rig(
        tmp_path, [call("fail", reason="no such entity"), bad_json, call("nope"), "recovered"]
    ) as r:
        events = await r.turn("try")
        results = [e for e in events if isinstance(e, ToolCallFinished)]
        assert [e.ok for e in results] == [False, False, False]
        sent = [m["content"] for m in r.provider.requests[3] if m["role"] == "tool"]
        assert sent[0].startswith("ERROR: ") and "no such entity" in sent[0]
        assert sent[1].startswith("ERROR: the arguments are not valid JSON")
        assert "unknown tool 'nope'" in sent[2]
        assert events[-1] == TurnFinished("done")


async def test_option_lines_are_exposed_and_a_bare_letter_is_not_needed_to_continue(tmp_path: Path) -> None:
    text = "How do customers book?\nA) Walk-in only\nB) Appointments by phone\nC) Both"
    async with rig(tmp_path, [text]) as r:
        events = await r.turn("hi")
        (message,) = [e for e in events if isinstance(e, AssistantMessage)]
        assert message.options == ("A) Walk-in only", "B) Appointments by phone", "C) Both")
        assert r.loop.last_options == message.options


async def test_cancelling_mid_tool_call_leaves_a_valid_history_and_logs_the_cancel(tmp_path: Path) -> None:
    async with rig(tmp_path, [call("hang"), "after"]) as r:
        started = anyio.Event()

        async def consume() -> None:
            async for event in r.loop.run_turn("wait"):
                if isinstance(event, ToolCallStarted):
                    started.set()

        task = asyncio.get_running_loop().create_task(consume())
        with anyio.fail_after(10):
            await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        r.loop.history.check_pairing()
        assert r.logged("turn_finished")[-1]["reason"] == "cancelled"
        # The session goes on: the next turn works and the model sees a result for the cancelled call.
        events = await r.turn("again")
        assert events[-1] == TurnFinished("done")
        assert any(m["role"] == "tool" for m in r.provider.requests[-1])


async def test_a_provider_error_ends_the_turn_with_its_hint_and_keeps_the_session(tmp_path: Path) -> None:
    async with rig(tmp_path, [{"error": {"message": "rate limited", "hint": "wait a minute"}}, "fine"]) as r:
        events = await r.turn("hello")
        assert any(isinstance(e, Notice) and "rate limited" in e.message for e in events)
        assert isinstance(events[-1], TurnFinished) and events[-1].reason == "error"
        assert (await r.turn("again"))[-1] == TurnFinished("done")


async def test_history_is_compacted_before_a_request_that_would_pass_the_threshold(tmp_path: Path) -> None:
    chatter = "word " * 400
    replies = [f"Reply {i}: {chatter}" for i in range(6)]

    async def summarise(messages: list[dict[str, Any]], focus: str | None) -> str:
        return (
            "## Goal\nA test.\n## Facts\n(none)\n## Decisions\n(none)\n## Open questions\n(none)\n"
            "## Drafts and files\n(none)\n## Next steps\n(none)"
        )

    async with rig(tmp_path, replies, window=3000, summarise=summarise) as r:
        compactions = []
        for i in range(6):
            compactions += [e for e in await r.turn(f"turn {i}") if isinstance(e, CompactionDone)]
        assert compactions, "a compaction should have happened"
        threshold = r.loop.compressor.threshold_tokens
        assert all(request["tokens"] <= threshold for request in r.logged("request"))
        r.loop.history.check_pairing()
        assert r.loop.history.messages[-1]["content"].startswith("Reply 5")
        assert json.dumps(r.logged("compaction"))


async def test_cancelling_mid_reply_keeps_the_text_already_shown_in_the_history(tmp_path: Path) -> None:
    async with rig(tmp_path, ["First part of a long answer " * 20, "next"]) as r:
        seen = anyio.Event()

        async def consume() -> None:
            async with aclosing(r.loop.run_turn("talk")) as events:
                async for event in events:
                    if event.kind == "assistant_delta":
                        seen.set()
                        await anyio.sleep_forever()  # the person presses Esc while the reply streams

        task = asyncio.get_running_loop().create_task(consume())
        with anyio.fail_after(10):
            await seen.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        last = r.loop.history.messages[-1]
        assert last["role"] == "assistant" and last["content"].startswith("First part")
        assert last["content"].endswith("[reply interrupted by the user]")
        r.loop.history.check_pairing()


class CutOffProvider(ScriptedProvider):
    """Every reply ends at the output limit."""

    async def stream(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> Any:
        async for item in super().stream(messages, tools):
            yield dataclasses.replace(item, finish_reason="length") if isinstance(item, Completion) else item


async def test_a_reply_cut_at_the_output_limit_is_flagged(tmp_path: Path) -> None:
    async with rig(tmp_path, ["A long answer that got cu"], provider_cls=CutOffProvider) as r:
        events = await r.turn("explain")
        assert any(isinstance(e, Notice) and "output limit" in e.message for e in events)
        assert events[-1] == TurnFinished("done")
