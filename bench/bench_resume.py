"""Resuming a long session: rebuild the model-visible history from a 5,000-event log.

The floor is json-parsing the same lines (what any reader must do); the ratio says what the
rest of the rebuild (replaying messages and compactions, validating pairing) costs on top.
Goal: the whole resume ≤ 0.5 s.

    .venv/bin/python bench/run.py resume
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from formspec_consult.agent.history.history import History
from formspec_consult.store.events import EventLog

EVENTS, RUNS, GOAL_SECONDS = 5000, 7, 0.5


def write_session(path: Path) -> None:
    """A realistic mix: turns with tool rounds, requests, responses, usage and compactions."""
    log = EventLog(path)
    log.append("session_started", session_id="bench", project="/p", model="m", provider="scripted", created="now", version="1")
    history = History(log=log, messages=[{"role": "system", "content": "You are a consultant. " * 300}])
    turn = 0
    while log.last_seq < EVENTS:
        turn += 1
        log.append("turn_started", turn=turn, user_text="…")
        history.add_user(f"Turn {turn}: the shop opens at nine and closes at six. " * 4)
        for step in range(2):
            log.append("request", message_count=len(history.messages), tokens=5000, estimated=True, tools_sha256="x")
            call_id = f"t{turn}s{step}"
            log.append("response", text="", tool_calls=[{"id": call_id}], usage={"prompt_tokens": 5000}, finish_reason="tool_calls")
            history.add_assistant("", [{"id": call_id, "name": "validate_spec", "arguments": {"path": "specs/a.yaml"}}])
            log.append("tool_call", call_id=call_id, server="local", name="validate_spec", arguments={"path": "specs/a.yaml"})
            result = "line of validation output\n" * 80
            log.append("tool_result", call_id=call_id, ok=True, result=result, duration_ms=3.0)
            history.add_tool_result(call_id, result)
        history.add_assistant("A) Yes\nB) No", None)
        log.append("turn_finished", turn=turn, reason="done", error=None)
        if turn % 10 == 0:  # a compaction every ten turns, as on a small window
            user_starts = [b.start for b in history.blocks() if b.kind == "user"]
            history.apply_logged(
                "compaction", start=1, end=user_starts[-2], method="extractive", pruned=[], stubs=[],
                summary_message={"role": "user", "content": "[Summary of the earlier conversation]\n\n## Goal\n- x"},
                tokens_before=6000, tokens_after=2000, focus=None,
            )
    log.close()


def resume(path: Path) -> History:
    history = History.restore(EventLog.read(path))
    history.check_pairing()
    return history


def floor(path: Path) -> int:
    with path.open("rb") as handle:
        return len([json.loads(line) for line in handle])


def medians(path: Path) -> tuple[float, float]:
    """Median seconds of the floor and of the resume, interleaved so both see the same noise."""
    parse: list[float] = []
    rebuild: list[float] = []
    for _ in range(RUNS):
        for function, times in ((floor, parse), (resume, rebuild)):
            started = time.perf_counter()
            function(path)
            times.append(time.perf_counter() - started)
    return statistics.median(parse), statistics.median(rebuild)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "events.jsonl"
        write_session(path)
        size = path.stat().st_size
        events = floor(path)
        parse, rebuild = medians(path)
        messages = len(resume(path).messages)
    ok = rebuild <= GOAL_SECONDS
    print(f"{events:,} events ({size / 1e6:.1f} MB) → {messages} model-visible messages")
    print(f"floor (json-parse every line): median {parse * 1000:.1f} ms")
    print(f"resume (read + rebuild + pairing check): median {rebuild * 1000:.1f} ms = {rebuild / parse:.2f}× the floor; "
          f"goal ≤ {GOAL_SECONDS * 1000:.0f} ms — {'OK' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
