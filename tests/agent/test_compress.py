"""Structured compression: prune first, summarise whole turns, fall back to extraction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from formspec_consult.agent.compaction.compress import Compressor, estimate_tokens
from formspec_consult.agent.compaction.rolling import Summariser
from formspec_consult.agent.history.history import SUMMARY_PREFIX, History, Message, is_summary
from formspec_consult.store.events import EventLog, rebuild_history

SYSTEM = {"role": "system", "content": "You are a consultant. " * 20}


def discovery(log: EventLog | None, turns: int, *, bulky: int = 0, chosen_every: int = 3) -> History:
    """A scripted discovery: each turn a question, a tool round (optionally bulky) and options."""
    history = History(log=log, messages=[SYSTEM])
    for turn in range(turns):
        text = f"Turn {turn}: we also sell gift cards and rent chairs to other barbers. " * 3
        if turn % chosen_every == 1:
            text = f"[chosen: B) Option {turn} — bookings must be paid upfront]"
        history.add_user(text)
        history.add_assistant("Let me check.", [{"id": f"c{turn}", "name": "list_kind_schemas", "arguments": {"kind": "entity"}}])
        history.add_tool_result(f"c{turn}", ("schema line\n" * (bulky // 12)) if bulky else "small result")
        history.add_assistant(f"Noted turn {turn}. Which applies?\nA) Walk-ins only\nB) Appointments too", None)
    return history


async def good_summary(messages: list[Message], focus: str | None) -> str:
    return "## Goal\nA booking app for a barbershop.\n## Decisions\n(summariser forgot them)\n## Next steps\nDraft."


def make(summarise: Summariser | None = good_summary, window: int = 3000, **kwargs: Any) -> Compressor:
    return Compressor(count_tokens=estimate_tokens, usable_window=window, summarise=summarise, **kwargs)


@pytest.fixture
def log(tmp_path: Path) -> EventLog:
    return EventLog(tmp_path / "events.jsonl")


@pytest.mark.anyio
async def test_a_history_under_the_threshold_is_left_alone(log: EventLog) -> None:
    history = discovery(log, 2)
    before = list(history.messages)
    assert not make().needs_compaction(history)
    assert await make().compact(history) is None
    assert history.messages == before


@pytest.mark.anyio
async def test_old_bulky_tool_outputs_are_blanked_first_with_a_stub_naming_the_tool(log: EventLog) -> None:
    history = discovery(log, 6, bulky=6000)
    compressor = make(window=10000)
    assert compressor.needs_compaction(history)
    done = await compressor.compact(history)
    assert done is not None and done.method == "pruned"
    assert done.tokens_after <= compressor.threshold_tokens < done.tokens_before
    stubs = [m["content"] for m in history.messages if m["role"] == "tool" and m["content"].startswith("[output of")]
    assert stubs and "list_kind_schemas" in stubs[0] and "read_transcript" in stubs[0]
    assert not any(is_summary(m) for m in history.messages)
    # the last two turns keep their outputs verbatim
    assert history.messages[-2]["content"].startswith("schema line")
    assert rebuild_history(EventLog.read(log.path)) == history.messages


@pytest.mark.anyio
async def test_older_turns_are_summarised_into_one_message_and_the_latest_turns_stay_verbatim(log: EventLog) -> None:
    history = discovery(log, 30)
    tail = history.messages[-8:]
    done = await make().compact(history)
    assert done is not None and done.method == "summarised"
    assert history.messages[0] == SYSTEM and is_summary(history.messages[1])
    assert history.messages[-8:] == tail  # keep_last_turns=2 → two whole turns of four messages
    assert "barbershop" in history.messages[1]["content"]
    history.check_pairing()
    assert rebuild_history(EventLog.read(log.path)) == history.messages


@pytest.mark.anyio
async def test_chosen_options_the_summariser_dropped_are_restored_verbatim(log: EventLog) -> None:
    history = discovery(log, 30)
    chosen = [m["content"] for m in history.messages if "[chosen:" in str(m.get("content"))]
    await make().compact(history)
    visible = "\n".join(str(m.get("content")) for m in history.messages)
    assert chosen and all(line in visible for line in chosen)


@pytest.mark.anyio
@pytest.mark.parametrize(
    "summarise",
    [None, "raises", "empty", "too long"],
    ids=["no summariser", "summariser raises", "junk reply", "reply longer than its input"],
)
async def test_without_a_usable_summary_the_extractive_fallback_still_compacts(log: EventLog, summarise: object) -> None:
    async def failing(messages: list[Message], focus: str | None) -> str:
        if summarise == "raises":
            raise RuntimeError("rate limited")
        return "" if summarise == "empty" else "blah " * 20000

    history = discovery(log, 30)
    compressor = make(summarise=None if summarise is None else failing)
    done = await compressor.compact(history)
    assert done is not None and done.method == "extractive"
    assert done.tokens_after <= compressor.threshold_tokens
    summary = history.messages[1]["content"]
    assert "## Decisions" in summary and "[chosen: B) Option 1 — bookings must be paid upfront]" in summary
    assert "Turn 0: we also sell gift cards" in summary  # the person's goal in their words
    history.check_pairing()


@pytest.mark.anyio
async def test_a_summary_request_that_would_overflow_is_never_sent(log: EventLog) -> None:
    calls: list[int] = []

    async def spy(messages: list[Message], focus: str | None) -> str:
        calls.append(len(messages))
        return "x" * 100

    history = discovery(log, 60)
    done = await make(summarise=spy, window=2500).compact(history)
    assert calls == [] and done is not None and done.method == "extractive"


@pytest.mark.anyio
async def test_forced_compaction_passes_the_focus_and_logs_one_compaction_event(log: EventLog) -> None:
    seen: list[str | None] = []

    async def spy(messages: list[Message], focus: str | None) -> str:
        seen.append(focus)
        return await good_summary(messages, focus)

    history = discovery(log, 4)
    done = await make(summarise=spy, window=100000).compact(history, force=True, focus="pricing rules")
    assert done is not None and done.method == "summarised" and seen == ["pricing rules"]
    events = [e for e in EventLog.read(log.path) if e["type"] == "compaction"]
    assert len(events) == 1
    event = events[0]
    assert (event["start"], event["end"], event["focus"]) == (1, 9, "pricing rules")
    assert event["tokens_before"] == done.tokens_before and event["tokens_after"] == done.tokens_after
    assert event["summary_message"]["content"].startswith(SUMMARY_PREFIX)


@pytest.mark.anyio
async def test_repeated_compactions_fold_the_earlier_summary_and_keep_every_decision(log: EventLog) -> None:
    history = discovery(log, 12)
    compressor = make(summarise=None, window=3000)
    chosen: list[str] = []
    for _ in range(4):
        for turn in range(12):
            text = f"[chosen: A) decision {len(chosen)}]" if turn % 4 == 0 else "more detail about the shop " * 8
            if text.startswith("[chosen"):
                chosen.append(text)
            history.add_user(text)
            history.add_assistant("ok", None)
            await compressor.compact(history)
    summaries = [m for m in history.messages if is_summary(m)]
    assert len(summaries) == 1
    visible = "\n".join(str(m.get("content")) for m in history.messages)
    assert all(line in visible for line in chosen)
    assert rebuild_history(EventLog.read(log.path)) == history.messages


@pytest.mark.anyio
async def test_a_single_huge_turn_is_brought_down_by_blanking_its_older_outputs(log: EventLog) -> None:
    history = History(log=log, messages=[SYSTEM])
    history.add_user("Draft everything now.")
    for step in range(5):
        history.add_assistant("", [{"id": f"s{step}", "name": "validate_spec", "arguments": "{}"}])
        history.add_tool_result(f"s{step}", "error line\n" * 600)
    compressor = make(window=4000)
    done = await compressor.compact(history)
    assert done is not None and done.tokens_after <= compressor.threshold_tokens
    assert history.messages[1]["content"] == "Draft everything now."
    assert history.messages[-1]["content"].startswith("error line")  # the latest result stays whole


def test_bad_settings_are_refused_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match="usable_window"):
        Compressor(count_tokens=estimate_tokens, usable_window=0)
    with pytest.raises(ValueError, match="threshold"):
        Compressor(count_tokens=estimate_tokens, usable_window=1000, threshold=75)


@pytest.mark.anyio
async def test_a_summary_input_too_big_for_one_request_is_condensed_in_rolling_chunks(log: EventLog) -> None:
    requests: list[list[Message]] = []

    async def spy(messages: list[Message], focus: str | None) -> str:
        requests.append(messages)
        return f"## Goal\nBarbershop bookings (part {len(requests)}).\n## Next steps\nKeep asking."

    history = discovery(log, 40)
    compressor = make(summarise=spy, window=4000)
    done = await compressor.compact(history)
    assert done is not None and done.method == "summarised" and len(requests) > 1
    assert is_summary(requests[1][0]) and "part 1" in requests[1][0]["content"]
    assert all(compressor.count_tokens(r) <= compressor.usable_window for r in requests)
    assert f"part {len(requests)}" in history.messages[1]["content"]


@pytest.mark.anyio
async def test_the_original_goal_survives_repeated_extractive_compactions(log: EventLog) -> None:
    history = History(log=log, messages=[SYSTEM])
    compressor = make(summarise=None, window=1500)
    history.add_user("I want a booking app for my barbershop in Bandung.")
    history.add_assistant("Tell me more.", None)
    for turn in range(60):
        history.add_user(f"Detail {turn}: the chairs, the queue and the prices change on holidays. " * 2)
        history.add_assistant("Noted. Anything else?", [{"id": f"p{turn}", "name": "propose_spec_file", "arguments": {"path": f"specs/e{turn % 3}.yaml"}}])
        history.add_tool_result(f"p{turn}", "proposed")
        await compressor.compact(history)
    assert compressor.compactions >= 3
    visible = "\n".join(str(m.get("content")) for m in history.messages)
    assert "booking app for my barbershop in Bandung" in visible
    assert "specs/e0.yaml" in visible and "specs/e2.yaml" in visible


@pytest.mark.anyio
async def test_a_counter_that_includes_tool_declarations_does_not_starve_the_summariser(log: EventLog) -> None:
    tools_overhead = 1200  # what the engine's counter adds for the tool list on every request

    def count_with_tools(messages: list[Message]) -> int:
        return tools_overhead + estimate_tokens(messages)

    requests: list[list[Message]] = []

    async def spy(messages: list[Message], focus: str | None) -> str:
        requests.append(messages)
        return await good_summary(messages, focus)

    history = discovery(log, 50)
    compressor = Compressor(count_tokens=count_with_tools, usable_window=6000, summarise=spy)
    done = await compressor.compact(history)
    assert done is not None and done.method == "summarised" and requests
    assert done.tokens_after <= compressor.threshold_tokens


@pytest.mark.anyio
async def test_a_forced_extractive_compaction_keeps_the_lines_about_the_focus(log: EventLog) -> None:
    history = discovery(log, 10)
    history.add_user("Deposits: 20% when booking online, refunded if cancelled a day ahead.")
    history.add_assistant("Noted the deposit rule.", None)
    for turn in range(3):
        history.add_user(f"Later question {turn}")
        history.add_assistant("ok", None)
    done = await make(summarise=None, window=100000).compact(history, force=True, focus="deposit refunds")
    assert done is not None and done.method == "extractive"
    about = done.summary.split("## About the focus", 1)[1].split("\n## ", 1)[0]
    assert "20% when booking online" in about and "Noted the deposit rule." in about
    assert "Later question" not in about


@pytest.mark.anyio
async def test_an_unexpected_failure_inside_compaction_leaves_the_history_untouched(log: EventLog) -> None:
    history = discovery(log, 30)
    before, last_seq = list(history.messages), log.last_seq
    calls = iter(range(100))

    def flaky_counter(messages: list[Message]) -> int:
        if next(calls) == 1:  # the first count decides to compact; the planner's count then breaks
            raise RuntimeError("tokenizer crashed")
        return estimate_tokens(messages)

    compressor = Compressor(count_tokens=flaky_counter, usable_window=3000)
    assert await compressor.compact(history) is None
    assert history.messages == before and log.last_seq == last_seq
