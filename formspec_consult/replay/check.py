"""`replay --check`: run a recording again, headless, and report where the new run diverges.

The recorded assistant messages are replayed by the replay provider into the real engine and
the real local server (in-process), working on a fresh copy of the project, and the user's steps
are sent in order; a turn the person cancelled (Esc) is cancelled again where it was, so it does
not take the next turn's reply. The two event logs are then compared on what matters — user
turns, replies, tool calls and results, apply, undo, reject, commands and compactions — with
session ids and folders masked, timings ignored. A divergence names the line of `events.jsonl`.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Sequence
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formspec_consult.replay.recording import MOVES, Recording, Step, read_events
from formspec_consult.store.layout import EVENTS, STATE_DIR
from formspec_consult.store.records import (
    ApplyRecord,
    CommandRecord,
    CompactionRecord,
    EventRecord,
    RejectRecord,
    ResponseRecord,
    RewindRecord,
    ToolCallRecord,
    ToolResultRecord,
    TurnStartedRecord,
    UndoRecord,
)

if TYPE_CHECKING:
    from formspec_consult.agent.engine.engine import Engine, ServerSpecs

_COMPARED = (
    TurnStartedRecord, ResponseRecord, ToolCallRecord, ToolResultRecord, ApplyRecord, UndoRecord, RejectRecord,
    CompactionRecord, CommandRecord, RewindRecord,
)
# Not behaviour: positions, clocks, ids — and a compaction's token figures, estimates that move
# with the length of the folder names the replay's copy of the project has.
_IGNORED = frozenset({"v", "seq", "ts", "duration_ms", "call_id", "backup", "tokens_before", "tokens_after",
                      "to_seq"})  # a rewind's point: a seq, which the replayed log numbers its own way
_SESSION_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{4}")


@dataclass(frozen=True)
class Divergence:
    """The first point where the runs differ: `line` is the recorded event's line in its
    `events.jsonl` (None past the end of the recording), `replayed_line` the replayed one's."""

    line: int | None
    recorded: str
    replayed: str
    replayed_line: int | None = None

    def describe(self) -> str:
        """Where (the line of events.jsonl), then both lines cut around the first character where
        they differ, with a caret under it."""
        at = first_difference(self.recorded, self.replayed)
        recorded, start = excerpt(self.recorded, at)
        replayed, _ = excerpt(self.replayed, at)
        caret = " " * (len("  replayed: ") + at - start) + "^"
        where = f"line {self.line} of {EVENTS}" if self.line is not None else f"the end of {EVENTS}"
        theirs = f" (replayed line {self.replayed_line})" if self.replayed_line is not None else ""
        return (f"{where}{theirs}, character {at + 1}:\n  recorded: {recorded}\n"
                f"  replayed: {replayed}\n{caret} first difference")


EXCERPT_BEFORE, EXCERPT_AFTER = 60, 100


def first_difference(a: str, b: str) -> int:
    """The index of the first character where `a` and `b` differ (the shorter length if one is a prefix)."""
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return min(len(a), len(b))


def excerpt(line: str, at: int) -> tuple[str, int]:
    """`line` cut to a window around index `at` ("…" marks the cuts), and where the window starts."""
    start = max(0, at - EXCERPT_BEFORE)
    end = at + EXCERPT_AFTER
    text = line[start:end]
    prefix = "…" if start > 0 else ""
    return prefix + text + ("…" if end < len(line) else ""), start - len(prefix)


def signature(events: Sequence[EventRecord]) -> list[str]:
    """The comparable lines of a log: kind plus the fields that must match, ids masked."""
    return [_line(fields) for _, fields in _compared(events)]


def _fields(event: EventRecord) -> dict[str, Any]:
    """An event's fields that must match: no ignored ones, a response's calls without their ids."""
    fields = {k: v for k, v in event.to_json().items() if k not in _IGNORED}
    if isinstance(event, ResponseRecord):
        fields["tool_calls"] = [{"name": c.get("name"), "arguments": c.get("arguments")} for c in event.tool_calls]
    return fields


def _compared(events: Sequence[EventRecord]) -> list[tuple[int, dict[str, Any]]]:
    """(index in `events`, compared fields) of each event that is compared."""
    return [(index, _fields(event)) for index, event in enumerate(events) if isinstance(event, _COMPARED)]


def _line(fields: dict[str, Any]) -> str:
    return _SESSION_ID.sub("<session>", json.dumps(fields, sort_keys=True, ensure_ascii=False))


def _as_recorded(replayed: dict[str, Any], recorded: dict[str, Any], event: EventRecord) -> dict[str, Any]:
    """The replayed event's fields without the optional ones of its type that the recorded event
    does not carry: a recording made before such a field existed (a tool result's `shown`, issue
    21) still replays. A field the recording does carry is compared, and its absence is a divergence."""
    if recorded.get("type") != replayed.get("type"):
        return replayed
    return {k: v for k, v in replayed.items() if k in recorded or k not in type(event).OPTIONAL}


def event_lines(log: Path) -> list[int]:
    """The line number of each event of an events.jsonl, in order (blank lines hold none, as
    `load_events` reads them)."""
    try:
        return [n for n, raw in enumerate(log.read_bytes().splitlines(), start=1) if raw.strip()]
    except OSError:
        return []


def compare(recorded: Sequence[EventRecord], replayed: Sequence[EventRecord],
            recorded_lines: Sequence[int] = (), replayed_lines: Sequence[int] = ()) -> Divergence | None:
    """The first divergence between two logs, or None when they match. `*_lines` give each
    event's line in its file (from `event_lines`); without them an event's line is its position."""
    old, new = _compared(recorded), _compared(replayed)

    def line(lines: Sequence[int], pairs: list[tuple[int, dict[str, Any]]], at: int) -> int | None:
        if at >= len(pairs):
            return None
        index = pairs[at][0]
        return lines[index] if index < len(lines) else index + 1

    for at in range(max(len(old), len(new))):
        a = _line(old[at][1]) if at < len(old) else "(end)"
        if at < len(new):
            index, fields = new[at]
            b = _line(_as_recorded(fields, old[at][1], replayed[index]) if at < len(old) else fields)
        else:
            b = "(end)"
        if a != b:
            return Divergence(line(recorded_lines, old, at), a, b, line(replayed_lines, new, at))
    return None


async def _run(engine: Engine, step: Step) -> None:
    """Send one step; a turn the person cancelled is cancelled once it has got as far as it did
    (its responses, tool calls and results), as Esc does: the engine closes the turn."""
    log = engine.session_dir / EVENTS
    before = len(read_events(log)) if step.cancelled and log.exists() else 0
    async with aclosing(engine.run_turn(step.text)) as events:
        async for _ in events:
            if step.cancelled and sum(isinstance(e, MOVES) for e in read_events(log)[before:]) >= step.moves:
                break


def copy_project(source: Path, into: Path) -> Path:
    """A fresh copy of the project without its consultation folder (so the replay starts clean)."""
    # `--project .` has no name of its own: name the copy after the folder it resolves to.
    target = into / (source.resolve().name or "project")
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(STATE_DIR), symlinks=True)
    return target


async def check(recording: Recording, project: Path, servers: ServerSpecs) -> tuple[Divergence | None, int]:
    """Replay `recording` on a copy of `project` (with the local server in-process); return the
    first divergence and the steps run."""
    from formspec_consult.agent.engine.engine import Engine, EngineOptions
    from formspec_consult.providers import ReplayProvider

    provider = ReplayProvider.from_events(recording.raw, source=str(recording.folder))
    with tempfile.TemporaryDirectory(prefix="formspec-replay-") as tmp:
        copy = copy_project(project, Path(tmp))
        engine = await Engine.open(EngineOptions(project=copy, provider=provider, in_memory_server=True, servers=servers))
        try:
            for step in recording.steps:
                await _run(engine, step)
            replayed = read_events(engine.session_dir)
            replayed_lines = event_lines(engine.session_dir / EVENTS)
        finally:
            await engine.aclose()
    recorded_lines = event_lines(recording.folder / EVENTS if recording.folder.is_dir() else recording.folder)
    return compare(recording.raw, replayed, recorded_lines, replayed_lines), len(recording.steps)
