"""Property tests: compaction invariants over random histories (hypothesis)."""

from __future__ import annotations

import asyncio
import logging
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formspec_consult.agent.compaction.compress import Compressor, estimate_tokens
from formspec_consult.agent.compaction.rolling import Summariser
from formspec_consult.agent.history.history import History, Message, is_summary
from formspec_consult.store.events import EventLog, rebuild_history

SYSTEM = {"role": "system", "content": "You are a FormSpec consultant."}
WINDOW = 3000

words = st.text(alphabet="abcdefghij klmnop", min_size=1, max_size=300)
user_op = st.tuples(st.just("user"), words, st.booleans())  # (op, text, is a chosen option)
assistant_op = st.tuples(
    st.just("assistant"),
    words,
    st.lists(st.sampled_from([10, 300, 2500, 9000]), max_size=3),  # sizes of each call's result
)
cancel_op = st.tuples(st.just("cancel"), st.integers(1, 3), st.integers(0, 2))
compact_op = st.tuples(st.just("compact"), st.booleans(), st.sampled_from([None, "prices"]))
operations = st.lists(st.one_of(user_op, user_op, assistant_op, assistant_op, cancel_op, compact_op), max_size=45)
summarisers = st.sampled_from(["none", "fake", "failing", "junk"])


def summariser_for(kind: str) -> Summariser | None:
    async def fake(messages: list[Message], focus: str | None) -> str:
        first_user = next((m["content"] for m in messages if m["role"] == "user"), "")
        return f"## Goal\n{first_user[:150]}\n## Decisions\n(see below)\n## Next steps\nContinue the discovery."

    async def failing(messages: list[Message], focus: str | None) -> str:
        raise RuntimeError("provider down")

    async def junk(messages: list[Message], focus: str | None) -> str:
        return " "

    return {"none": None, "fake": fake, "failing": failing, "junk": junk}[kind]


def visible_text(history: History) -> str:
    return "\n".join(str(m.get("content")) for m in history.messages)


def assert_kept_verbatim(before: list[Message], after: list[Message]) -> None:
    """Compaction only replaces whole runs with one summary and blanks tool outputs: every other
    message is unchanged, in the same order, and assistant messages keep all their results."""
    stubbed = {m["tool_call_id"] for m in after if m["role"] == "tool" and m["content"].startswith("[output of")}
    remaining = iter(before)
    for message in after:
        if is_summary(message):
            continue
        for original in remaining:
            same = original == message or (
                message["role"] == "tool" and message["tool_call_id"] in stubbed
                and original.get("tool_call_id") == message["tool_call_id"]
            )
            if same:
                break
        else:
            raise AssertionError(f"compaction changed or reordered {message!r}")


def achievable(history: History, compressor: Compressor, chosen: list[str]) -> bool:
    """Whether the latest turn (older bulky outputs blanked) plus a summary can fit at all."""
    last_user = history.last_user_index()
    if last_user is None:
        return False
    tail = history.messages[last_user:]
    light = [m if m["role"] != "tool" or i >= len(tail) - 4 else {**m, "content": "x" * 200} for i, m in enumerate(tail)]
    head = history.messages[: history.blocks()[0].end] if history.blocks()[0].kind == "head" else []
    decisions = sum(len(line) for line in chosen) // 4
    return estimate_tokens([*head, *light]) + decisions + 800 <= compressor.threshold_tokens


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=operations, summariser=summarisers)
def test_compaction_keeps_every_invariant_on_random_histories(ops: list[tuple[Any, ...]], summariser: str) -> None:
    errors = _ErrorRecorder()
    logging.getLogger("formspec_consult.agent.compaction.compress").addHandler(errors)
    try:
        _play(ops, summariser)
    finally:
        logging.getLogger("formspec_consult.agent.compaction.compress").removeHandler(errors)
    assert errors.records == []  # a swallowed internal failure would hide a bug: none allowed


class _ErrorRecorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record.getMessage())


def _play(ops: list[tuple[Any, ...]], summariser: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        log = EventLog(Path(folder) / "events.jsonl")
        history = History(log=log, messages=[SYSTEM])
        compressor = Compressor(count_tokens=estimate_tokens, usable_window=WINDOW, summarise=summariser_for(summariser))
        chosen: list[str] = []
        call_ids = iter(range(10_000))
        for op in ops:
            if op[0] == "user":
                text = f"[chosen: B) {op[1]}]" if op[2] else op[1]
                if op[2]:
                    chosen.append(text)
                history.add_user(text)
            elif op[0] == "assistant":
                calls = [{"id": f"c{next(call_ids)}", "name": "validate_spec", "arguments": "{}"} for _ in op[2]]
                history.add_assistant(op[1], calls)
                for call, size in zip(calls, op[2], strict=True):
                    history.add_tool_result(call["id"], "r" * size)
            elif op[0] == "cancel":  # a turn cancelled between a call and its results
                calls = [{"id": f"c{next(call_ids)}", "name": "propose_spec_file", "arguments": "{}"} for _ in range(op[1])]
                history.add_assistant("", calls)
                for call in calls[: min(op[2], op[1] - 1)]:
                    history.add_tool_result(call["id"], "partial")
                history.repair_pairing()
            if op[0] == "compact" or compressor.needs_compaction(history):
                last_user = history.last_user_index()
                last_text = history.messages[last_user]["content"] if last_user is not None else None
                before = [dict(m) for m in history.messages]
                done = asyncio.run(compressor.compact(history, force=op[0] == "compact" and op[1],
                                                      focus=op[2] if op[0] == "compact" else None))
                history.check_pairing()  # no orphaned call or result, both ways
                assert_kept_verbatim(before, history.messages)
                if last_text is not None:
                    new_last = history.last_user_index()
                    assert new_last is not None and history.messages[new_last]["content"] == last_text
                if done is not None and achievable(history, compressor, chosen):
                    assert done.tokens_after <= compressor.threshold_tokens
                assert sum(1 for m in history.messages if is_summary(m)) <= 1
                assert rebuild_history(EventLog.read(log.path)) == history.messages
            history.check_pairing()
            text = visible_text(history)
            assert all(line in text for line in chosen)  # every decision stays in the model's view
        assert history.messages[0] == SYSTEM
        assert rebuild_history(EventLog.read(log.path)) == history.messages
        log.close()
