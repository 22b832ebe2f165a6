"""``<session>/drafts.json``: per draft, the target's sha256 when it was proposed and its state.

A draft's state is ``pending`` (proposed, waiting for review), ``undone`` (applied, then undone:
back for review with its exact bytes), ``applied`` or ``rejected`` (no longer under review; the
record stays so the session still lists every draft it had and what became of it).

Read-modify-write happens under an exclusive file lock, because the TUI's in-process server
and a ``formspec-consult apply`` (or an external client) may serve the same session at once.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Literal

from formspec_consult.store.atomic import write_atomic
from formspec_consult.store.layout import SessionLayout

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


LiveState = Literal["pending", "undone"]  # a draft under review; "undone": applied, undone, back
SettledState = Literal["applied", "rejected"]  # a draft that left review
DraftState = LiveState | SettledState
LIVE_STATES: frozenset[str] = frozenset({"pending", "undone"})  # under review: can be accepted
SETTLED_STATES: frozenset[str] = frozenset({"applied", "rejected"})


@dataclass(frozen=True)
class DraftRecord:
    """What the manifest knows about one draft."""

    rel: str
    project_rel: str
    target_sha256: str
    proposed_at: str
    state: DraftState = "pending"  # records written before states existed are pending drafts
    settled_at: str | None = None  # when it was applied, rejected or undone


class DraftManifest:
    """The manifest of one session folder."""

    def __init__(self, session_folder: Path) -> None:
        self.folder = session_folder
        self.path = SessionLayout(session_folder).manifest

    def get(self, rel: str) -> DraftRecord | None:
        """The record of draft ``rel``, if any."""
        return self.load().get(rel)

    def put(self, record: DraftRecord) -> None:
        """Add or replace one record."""
        with self._locked():
            records = self.load()
            records[record.rel] = record
            self._save(records)

    def set_state(self, rel: str, state: DraftState, at: str) -> None:
        """Mark draft ``rel`` applied, rejected or undone (nothing when it has no record)."""
        with self._locked():
            records = self.load()
            record = records.get(rel)
            if record is not None:
                records[rel] = replace(record, state=state, settled_at=at)
                self._save(records)

    def drop(self, rel: str) -> None:
        """Forget draft ``rel``."""
        with self._locked():
            records = self.load()
            if records.pop(rel, None) is not None:
                self._save(records)

    def load(self) -> dict[str, DraftRecord]:
        """Every record; a missing or corrupt manifest counts as empty."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {}
        records = {}
        for rel, item in (raw.get("drafts", {}) if isinstance(raw, dict) else {}).items():
            try:
                record = DraftRecord(**item)
            except TypeError:
                continue
            if record.state not in LIVE_STATES | SETTLED_STATES:
                record = replace(record, state="pending")
            records[rel] = record
        return records

    def _save(self, records: dict[str, DraftRecord]) -> None:
        payload = {"v": 1, "drafts": {rel: asdict(rec) for rel, rec in sorted(records.items())}}
        # Scratch state next to the drafts: atomic, but not worth an fsync per proposal.
        write_atomic(self.path, json.dumps(payload, indent=2).encode("utf-8"), durable=False)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        if fcntl is None:  # pragma: no cover - not POSIX
            yield
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / ".drafts.lock", "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def live_state(state: DraftState) -> LiveState:
    """The review state of a draft under review (any settled state reads as pending again)."""
    return "undone" if state == "undone" else "pending"


def settled_state(state: DraftState) -> SettledState:
    """The state of a draft that left review (only applied and rejected drafts do)."""
    return "applied" if state == "applied" else "rejected"
