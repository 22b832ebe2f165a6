"""`replay --check`: run a recording again, headless, and report where the new run diverges.

The recorded assistant messages are replayed by the replay provider into the real engine and
the real local server (in-process), working on a fresh copy of the project, and the user's steps
are sent in order. The two event logs are then compared on what matters — user turns, replies,
tool calls and results, apply and undo — with session ids and folders masked, timings ignored.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from formspec_consult.replay.recording import Recording, read_events
from formspec_consult.store.records import (
    ApplyRecord,
    CommandRecord,
    CompactionRecord,
    EventRecord,
    RejectRecord,
    ResponseRecord,
    ToolCallRecord,
    ToolResultRecord,
    TurnStartedRecord,
    UndoRecord,
)

if TYPE_CHECKING:
    from formspec_consult.agent.engine.engine import ServerSpecs

_COMPARED = (
    TurnStartedRecord, ResponseRecord, ToolCallRecord, ToolResultRecord, ApplyRecord, UndoRecord, RejectRecord,
    CompactionRecord, CommandRecord,
)
_IGNORED = frozenset({"v", "seq", "ts", "duration_ms", "call_id", "backup"})
_SESSION_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{4}")


@dataclass(frozen=True)
class Divergence:
    """The first point where the runs differ (index in the compared sequence)."""

    index: int
    recorded: str
    replayed: str

    def describe(self) -> str:
        """Both lines cut around the first character where they differ, with a caret under it."""
        at = first_difference(self.recorded, self.replayed)
        recorded, start = excerpt(self.recorded, at)
        replayed, _ = excerpt(self.replayed, at)
        caret = " " * (len("  replayed: ") + at - start) + "^"
        return (f"event {self.index + 1}, character {at + 1}:\n  recorded: {recorded}\n"
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
    out: list[str] = []
    for event in events:
        if not isinstance(event, _COMPARED):
            continue
        fields = {k: v for k, v in event.to_json().items() if k not in _IGNORED}
        if isinstance(event, ResponseRecord):
            fields["tool_calls"] = [{"name": c.get("name"), "arguments": c.get("arguments")} for c in event.tool_calls]
        out.append(_SESSION_ID.sub("<session>", json.dumps(fields, sort_keys=True, ensure_ascii=False)))
    return out


def compare(recorded: Sequence[EventRecord], replayed: Sequence[EventRecord]) -> Divergence | None:
    """The first divergence between two logs, or None when they match."""
    old, new = signature(recorded), signature(replayed)
    for index, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return Divergence(index, a, b)
    if len(old) != len(new):
        index = min(len(old), len(new))
        return Divergence(index, old[index] if index < len(old) else "(end)",
                          new[index] if index < len(new) else "(end)")
    return None


def copy_project(source: Path, into: Path) -> Path:
    """A fresh copy of the project without its consultation folder (so the replay starts clean)."""
    # `--project .` has no name of its own: name the copy after the folder it resolves to.
    target = into / (source.resolve().name or "project")
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".formspec"), symlinks=True)
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
                async for _ in engine.run_turn(step.text):
                    pass
            replayed = read_events(engine.session_dir)
        finally:
            await engine.aclose()
    return compare(recording.raw, replayed), len(recording.steps)
