"""Forking a session: a new session folder whose history is another session's up to now.

The fork's ``events.jsonl`` is the source's, line for line, with one change: its header (the
``session_started`` record) names the fork's own id and says where it came from — ``forked_from``,
``forked_at_seq`` (the source's last seq it holds) and ``forked_at_turn``. Every other line is
copied byte for byte with its seq, so rebuilding the fork's log gives exactly the messages the
model saw in the source up to the fork point, and ``rebuild_history(…, upto_seq=forked_at_seq)``
of either log agrees. The transcript and the discovery summary are copied too (the model's pruned
outputs point into the transcript). Drafts still under review are copied as the fork's own
pending drafts — their own files, never shared; applied and rejected ones stay the source's, and
so does the undo history (a fork cannot undo the source's applies).

The source is only read, and never changed — and never through a symbolic link: a log, transcript,
summary or draft of the source that is a link (or sits in a linked folder) refuses the fork, as
every other reader of a session refuses one, so a fork cannot copy a file from outside the session.
The source is refused too while another process has it open
(its writer claim): that process may be mid-turn, so the log could hold half a turn and a draft
could be written between its file and the manifest. The process that holds the claim itself (the
app's ``/fork``) forks between turns, where the session is at rest.
"""

from __future__ import annotations

import errno
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from formspec_consult.store.atomic import write_atomic
from formspec_consult.store.drafts import DraftError, refuse_symlinks
from formspec_consult.store.events import events_of, load_records
from formspec_consult.store.folder import SessionError, ensure_session, existing_session
from formspec_consult.store.layout import SessionLayout
from formspec_consult.store.locks import SessionBusy, SessionWriter
from formspec_consult.store.manifest import LIVE_STATES, DraftManifest
from formspec_consult.store.records import SessionStartedRecord, TurnStartedRecord, record_from_json

__all__ = ["ForkPoint", "fork_point_of", "fork_session"]


@dataclass(frozen=True)
class ForkPoint:
    """Where a fork came from: the source session, its last seq and turn the fork holds."""

    source: str
    seq: int
    turn: int


def fork_point_of(folder: Path) -> ForkPoint | None:
    """The fork point a session's header records, or None when it is not a fork."""
    log = SessionLayout(folder).events
    header = next(iter(load_records(log)), None) if log.is_file() else None  # the header is the first record
    if isinstance(header, SessionStartedRecord) and header.forked_from:
        return ForkPoint(header.forked_from, header.forked_at_seq or 0, header.forked_at_turn or 0)
    return None


def fork_session(consult_dir: Path, source_id: str, *, held_here: bool = False) -> tuple[str, Path, ForkPoint]:
    """Copy session `source_id` into a new session; return its (id, folder, fork point).

    `held_here`: this process holds the source's writer claim (the app forking its own session
    between turns). Otherwise the source is claimed for the copy and refused (SessionBusy) when
    another process has it open. Raises SessionError for an unknown id or a session with nothing
    to fork; nothing is written then.
    """
    source = existing_session(consult_dir, source_id)
    claim = None if held_here else SessionWriter(source)
    if claim is not None:
        try:
            claim.claim()
        except SessionBusy as exc:
            raise SessionBusy(
                f"Session {source_id} is open in another formspec-consult ({_holder(claim)}); a fork "
                "copies the session at rest, and that process may be in the middle of a turn. Close "
                f"it (or use /fork inside it), then run --resume {source_id} --fork again."
            ) from exc
    try:
        return _copy(consult_dir, source_id, source)
    finally:
        if claim is not None:
            claim.release()


def _holder(claim: SessionWriter) -> str:
    info = claim.holder()
    return f"process {info.get('pid', '?')}" if info else "another process"


def _real_bytes(path: Path, source_id: str) -> bytes | None:
    """The bytes of one file of the source session, never read through a link; None when absent."""
    try:
        refuse_symlinks(path.parent.parent, path)  # the session folder and the file itself
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except (DraftError, OSError) as exc:
        if isinstance(exc, DraftError) or exc.errno == errno.ELOOP:
            raise SessionError(
                f"{path} is a symbolic link (or lies in a linked folder); formspec-consult reads a session only "
                f"from the real files of its folder, so session {source_id} cannot be forked. Put the real "
                "file back in place of the link, then fork again."
            ) from None
        raise
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _copy(consult_dir: Path, source_id: str, source: Path) -> tuple[str, Path, ForkPoint]:
    files = SessionLayout(source)
    log = _real_bytes(files.events, source_id)
    records = [record_from_json(e, source=str(files.events)) for e in events_of(log, files.events)] if log else []
    header = records[0] if records else None
    if not isinstance(header, SessionStartedRecord):
        raise SessionError(
            f"Session {source_id} has no conversation to fork (its log {files.events} is missing, empty "
            "or does not begin with the session's start). Start a new session instead."
        )
    point = ForkPoint(
        source_id,
        records[-1].seq,
        max((r.turn for r in records if isinstance(r, TurnStartedRecord)), default=0),
    )
    fork_id, folder = ensure_session(consult_dir, None)
    try:
        forked = replace(
            header,
            session_id=fork_id,
            forked_from=point.source,
            forked_at_seq=point.seq,
            forked_at_turn=point.turn,
            order=(*header.order, "forked_from", "forked_at_seq", "forked_at_turn") if header.order else (),
        )
        log = b"".join([forked.to_line(), *(record.to_line() for record in records[1:])])
        target = SessionLayout(folder)
        for name in ("transcript", "summary"):
            data = _real_bytes(getattr(files, name), source_id)
            if data is not None:
                write_atomic(getattr(target, name), data, durable=False)
        _copy_live_drafts(source, folder, source_id)
        write_atomic(target.events, log)  # last: a folder without its log is no session yet
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return fork_id, folder, point


def _copy_live_drafts(source: Path, folder: Path, source_id: str) -> None:
    """The drafts under review, as the fork's own pending drafts (their bytes copied)."""
    theirs, ours = SessionLayout(source), SessionLayout(folder)
    manifest = DraftManifest(folder)
    for rel, record in DraftManifest(source).load().items():
        if record.state not in LIVE_STATES:
            continue
        draft = theirs.draft.joinpath(*rel.split("/"))
        try:
            refuse_symlinks(source, draft)  # a link is never followed out of a session
        except DraftError as exc:
            raise SessionError(
                f"{exc} Session {source_id} cannot be forked while it holds the link."
            ) from None
        data = _real_bytes(draft, source_id)
        if data is None:  # listed, but its file is gone: nothing to copy
            continue
        write_atomic(ours.draft.joinpath(*rel.split("/")), data, durable=False)
        manifest.put(replace(record, state="pending", settled_at=None))
