"""A 60-turn scripted discovery session on an 8k window, with and without compression.

Simulates the agent loop (a request before every assistant step, compaction checked before each
request) with a deterministic fake summariser and with the extractive fallback. Prints, per mode:
the largest request against the threshold, total prompt tokens against the same session without
compression (the floor it is compared with; goal ≤ 40 %), whether every chosen option is still in
the model's view at the end, and the median time of one compaction.

    .venv/bin/python bench/run.py compaction
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from formspec_consult.agent.compaction.compress import Compressor
from formspec_consult.agent.history.history import History
from formspec_consult.prompting.prompts import load_prompt
from formspec_consult.store.events import EventLog, rebuild_history

WINDOW, RESERVED, THRESHOLD, TURNS = 8192, 1024, 0.75, 60
GOAL_RATIO = 0.40

try:
    from formspec_consult.providers.tokens import count_messages as count_tokens
except ImportError:  # pragma: no cover - the engine's counter is not there: estimate
    from formspec_consult.agent.compaction.compress import estimate_tokens as count_tokens


def script(turn: int) -> tuple[str, list[tuple[str, int]], str]:
    """(user text, [(tool, result size)], assistant reply) for one scripted turn."""
    if turn % 3 == 2:
        user = f"[chosen: {'ABC'[turn % 3]}) Option {turn}: deposits are kept when a booking is cancelled late]"
    else:
        user = f"Turn {turn}: our barbershop has {turn % 5 + 2} chairs; walk-ins wait in a queue. " * 2
    tools = [("list_kind_schemas", 6000)] if turn % 4 == 0 else []
    if turn % 6 == 5:
        tools += [("propose_spec_file", 900), ("validate_spec", 2500)]
    reply = (
        f"Understood (turn {turn}). Staff assign chairs by seniority and the owner closes the day.\n"
        "How should no-shows be handled?\nA) Charge the deposit\nB) Warn first, then charge\nC) Ignore"
    )
    return user, tools, reply


async def fake_summariser(messages: list[dict], focus: str | None) -> str:
    """A deterministic stand-in for the model: structured, short, keeps the chosen options."""
    users = [str(m.get("content")) for m in messages if m["role"] == "user"]
    chosen = [u for u in users if u.startswith("[chosen:")]
    return (
        "## Goal\nA booking and queue app for a barbershop.\n## Facts\n- Walk-ins queue; chairs by seniority.\n"
        "## Decisions\n" + "\n".join(f"- {c}" for c in chosen) + "\n## Open questions\n- No-show handling.\n"
        "## Drafts and files\n- specs/booking.yaml\n## Next steps\n- Continue discovery."
    )


def run(mode: str, folder: Path) -> dict[str, object]:
    """Play the session; mode is "none" (no compression), "summariser" or "extractive"."""
    log = EventLog(folder / mode / "events.jsonl")
    system = load_prompt("consultant").render_system(session_id="bench", workspace_manifest="name: barber\n" * 40)
    history = History(log=log, messages=[{"role": "system", "content": system}])
    compressor = Compressor(
        count_tokens=count_tokens,
        usable_window=WINDOW - RESERVED,
        threshold=THRESHOLD,
        summarise=fake_summariser if mode == "summariser" else None,
    )
    requests: list[int] = []
    timings: list[float] = []
    chosen: list[str] = []

    def request() -> None:
        if mode != "none":
            started = time.perf_counter()
            done = asyncio.run(compressor.compact(history))
            if done is not None:
                timings.append(time.perf_counter() - started)
        tokens = count_tokens(history.messages)
        log.append("request", message_count=len(history.messages), tokens=tokens, estimated=True)
        requests.append(tokens)

    for turn in range(TURNS):
        user, tools, reply = script(turn)
        if user.startswith("[chosen:"):
            chosen.append(user)
        history.add_user(user)
        for step, (tool, size) in enumerate(tools):
            request()
            call_id = f"t{turn}s{step}"
            history.add_assistant("", [{"id": call_id, "name": tool, "arguments": {"path": "specs/booking.yaml"}}])
            history.add_tool_result(call_id, f"{tool} output line\n" * (size // 20))
        request()
        history.add_assistant(reply, None)
    visible = "\n".join(str(m.get("content")) for m in history.messages)
    methods: dict[str, int] = {}
    for event in EventLog.read(log.path):
        if event["type"] == "compaction":
            methods[event["method"]] = methods.get(event["method"], 0) + 1
    assert rebuild_history(EventLog.read(log.path)) == history.messages
    log.close()
    return {
        "requests": len(requests),
        "max": max(requests),
        "total": sum(requests),
        "threshold": compressor.threshold_tokens,
        "compactions": len(timings),
        "methods": ", ".join(f"{count} {name}" for name, count in sorted(methods.items())),
        "compaction_ms": statistics.median(timings) * 1000 if timings else 0.0,
        "chosen_kept": sum(line in visible for line in chosen),
        "chosen": len(chosen),
    }


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        floor = run("none", Path(tmp))
        print(f"without compression: {floor['requests']} requests, total {floor['total']:,} prompt tokens, "
              f"largest {floor['max']:,} (window {WINDOW - RESERVED:,})")
        status = 0
        for mode in ("summariser", "extractive"):
            result = run(mode, Path(tmp))
            ratio = result["total"] / floor["total"]  # type: ignore[operator]
            ok = result["max"] <= result["threshold"] and ratio <= GOAL_RATIO and result["chosen_kept"] == result["chosen"]
            status |= 0 if ok else 1
            print(
                f"{mode:>10}: largest request {result['max']:,} ≤ threshold {result['threshold']:,}: "
                f"{result['max'] <= result['threshold']}; total {result['total']:,} = {ratio:.1%} of the floor "
                f"(goal ≤ {GOAL_RATIO:.0%}); {result['compactions']} compactions ({result['methods']}), median {result['compaction_ms']:.1f} ms; "
                f"chosen options kept {result['chosen_kept']}/{result['chosen']} — {'OK' if ok else 'FAIL'}"
            )
    return status


if __name__ == "__main__":
    sys.exit(main())
