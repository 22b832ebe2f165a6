"""Rewinding a session to the end of one of its turns (`/rewind`, `formspec-consult rewind`).

The session goes on from the end of turn N: with ``files`` (or ``both``) every apply made after
it is undone, newest first, through the local server's ``undo_apply`` (exact bytes; the server
logs each undo), and each draft touched after it goes back to what it was then — withdrawn when
it was not under review, proposed again with its content of that turn when it was; with
``conversation`` (or ``both``) a :class:`~formspec_consult.store.records.RewindRecord` cuts the
model-visible history back to what the model saw at the end of turn N (the event log keeps
everything: a compaction made since is rebuilt around, from the events it replaced).

Everything is checked before anything is written: a turn that is not in the conversation, an
apply whose file was changed by hand since (named — undo would lose that edit), an apply that is
not this session's to undo (a fork's source's) — each refused with what to do, nothing changed.
Turn numbers are never reused: after rewinding from turn 5 to turn 2 the next turn is 6.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from formspec_consult.i18n import N_, _
from formspec_consult.store.atomic import sha256_of
from formspec_consult.store.layout import SessionLayout
from formspec_consult.store.manifest import LIVE_STATES, DraftManifest
from formspec_consult.store.records import (
    ApplyRecord,
    EventRecord,
    RejectRecord,
    RewindMode,
    RewindRecord,
    SessionStartedRecord,
    ToolCallRecord,
    ToolResultRecord,
    TurnFinishedRecord,
    TurnStartedRecord,
    UndoRecord,
)
from formspec_consult.store.review_flow import ReviewFlow
from formspec_consult.store.transcript import Transcript
from formspec_consult.store.undo import UndoEntry, UndoStack

__all__ = [
    "MODES",
    "NoSuchTurn",
    "RewindFailed",
    "RewindPlan",
    "RewindRefused",
    "Turn",
    "conversation_turns",
    "plan_rewind",
    "run_rewind",
]

MODES: tuple[RewindMode, ...] = ("both", "files", "conversation")


class RewindRefused(ValueError):
    """The rewind cannot run as asked; nothing was changed. The message says what to do."""


class NoSuchTurn(RewindRefused):
    """The turn asked for is not in the conversation (never was, or was rewound away)."""


class RewindFailed(RuntimeError):
    """An undo was refused part-way (a file changed between the check and the undo); the message
    says what was undone and what was not. The conversation was not cut."""


@dataclass(frozen=True)
class Turn:
    """A turn of the conversation as it stands: its number, what the person said, its last seq."""

    number: int
    user_text: str
    end_seq: int
    finished: bool

    @property
    def said(self) -> str:
        """What the person said, on one line as they would recognise it: a picked option (recorded
        for the model as `[chosen: A) …]`) reads "You picked: A) …" in their language."""
        text = " ".join(self.user_text.split())
        if text.startswith("[chosen: ") and text.endswith("]"):
            return _("You picked: {option}").format(option=text.removeprefix("[chosen: ").removesuffix("]"))
        return text


def conversation_turns(records: Sequence[EventRecord]) -> list[Turn]:
    """The turns the conversation holds now, oldest first: a rewind drops those after its point."""
    turns: list[Turn] = []
    for record in records:
        if isinstance(record, TurnStartedRecord):
            turns.append(Turn(record.turn, record.user_text, record.seq, False))
        elif isinstance(record, TurnFinishedRecord):
            turns = [Turn(t.number, t.user_text, record.seq, True) if t.number == record.turn else t for t in turns]
        elif isinstance(record, RewindRecord) and record.cuts_conversation:
            turns = [t for t in turns if t.end_seq <= record.to_seq]
    return turns


@dataclass(frozen=True)
class UndoStep:
    """An apply (or a module install: a group of writes) to undo: its undo step and files."""

    step: int
    label: str  # the draft path, or "install <module>"
    files: tuple[str, ...]  # project-relative


@dataclass(frozen=True)
class RewindPlan:
    """What a rewind will do, checked against the session and the project as they are now."""

    session_id: str
    to_turn: int
    to_seq: int
    mode: RewindMode
    undo: tuple[UndoStep, ...] = ()  # newest first, as undo_apply takes them
    drafts: dict[str, str | None] = field(default_factory=dict)  # path -> its content at to_seq (None: none)
    cut_turns: tuple[int, ...] = ()  # the turns the conversation drops

    @property
    def files(self) -> bool:
        return self.mode in ("both", "files")

    @property
    def conversation(self) -> bool:
        return self.mode in ("both", "conversation")


def plan_rewind(
    records: Sequence[EventRecord], session_dir: Path, project_root: Path, to_turn: int, mode: RewindMode
) -> RewindPlan:
    """Check a rewind of the session whose log is `records` to the end of turn `to_turn`;
    RewindRefused (nothing changed) when it cannot run."""
    if mode not in MODES:
        raise RewindRefused(f"Unknown rewind mode {mode!r}: use files, conversation or both.")
    session_id = session_dir.name
    turns = conversation_turns(records)
    to_seq = _end_of(turns, records, to_turn, session_id)
    cut = tuple(t.number for t in turns if t.end_seq > to_seq)
    plan = RewindPlan(session_id, to_turn, to_seq, mode, cut_turns=cut if mode != "files" else ())
    if plan.files:
        plan = RewindPlan(session_id, to_turn, to_seq, mode, _undo_steps(records, session_dir, project_root, to_seq),
                          _draft_targets(records, to_seq), plan.cut_turns)
    if not plan.cut_turns and not plan.undo and not _drafts_to_change(plan, session_dir):
        raise RewindRefused(
            f"Nothing to rewind: the session is already as it was at the end of turn {to_turn}"
            + (" (no later turns, applies or drafts)." if mode == "both" else f" for --{mode}.")
        )
    return plan


def _end_of(turns: list[Turn], records: Sequence[EventRecord], to_turn: int, session_id: str) -> int:
    """The last seq of turn `to_turn` of the conversation (0: before its first turn)."""
    numbers = ", ".join(str(t.number) for t in turns) or "none yet"
    if to_turn == 0:
        first = next((r.seq for r in records if isinstance(r, TurnStartedRecord)), None)
        if first is None:
            raise NoSuchTurn(f"Session {session_id} has no turns yet: there is nothing to rewind.")
        return first - 1
    turn = next((t for t in turns if t.number == to_turn), None)
    if turn is None:
        ever = any(isinstance(r, TurnStartedRecord) and r.turn == to_turn for r in records)
        why = "was rewound away earlier" if ever else "does not exist"
        raise NoSuchTurn(
            f"Turn {to_turn} of session {session_id} {why}: the conversation's turns are {numbers} "
            "(0 goes back to before the first). Pick one of those."
        )
    if not turn.finished:
        raise RewindRefused(
            f"Turn {to_turn} of session {session_id} never finished (the program stopped in it): resume the "
            "session once (it closes the turn), or rewind to an earlier turn."
        )
    return turn.end_seq


def _tool(name: str, wanted: str) -> bool:
    """Whether a logged tool name is the local server's `wanted` (exposed as is, or prefixed)."""
    return name == wanted or name.endswith(f"__{wanted}")


def _result_json(record: ToolResultRecord) -> dict[str, Any]:
    try:
        data = json.loads(record.result)
    except (ValueError, TypeError):
        return {}
    return data if isinstance(data, dict) else {}


def _undo_steps(records: Sequence[EventRecord], session_dir: Path, project_root: Path, to_seq: int) -> tuple[UndoStep, ...]:
    """The undo steps made after `to_seq`, newest first; refused when one is not this session's or
    when a file it wrote was changed since (each such file named)."""
    origin = _apply_seqs(records)
    stack = UndoStack(SessionLayout(session_dir).undo)
    entries = stack.entries()
    later: list[list[UndoEntry]] = []
    unknown: list[str] = []
    index = len(entries) - 1
    while index >= 0:
        entry = entries[index]
        group = [entry]
        while entry.group and index > 0 and entries[index - 1].group == entry.group:
            index -= 1
            group.append(entries[index])
        index -= 1
        key = ("group", entry.group) if entry.group else ("apply", f"{entry.seq}:{entry.rel}")
        seq = origin.get(key)
        if seq is None:
            unknown.append(entry.group or entry.rel)
            continue
        if seq <= to_seq:
            break
        later.append(group)
    if unknown:
        raise RewindRefused(
            "The undo history holds writes this session's log does not show (" + ", ".join(unknown) + "), so "
            "a rewind cannot tell whether they came after that turn. Undo them yourself (/undo, or "
            "formspec-consult undo), or rewind the conversation only (--conversation)."
        )
    _refuse_source_applies(records, to_seq)
    _refuse_changed_files(later, project_root)
    return tuple(
        UndoStep(group[0].seq, group[0].group or group[0].rel, tuple(e.project_rel for e in group)) for group in later
    )


def _apply_seqs(records: Sequence[EventRecord]) -> dict[tuple[str, str], int]:
    """The log seq that made each undo step: an apply's (step and path), an install's (its group).
    Step numbers are reused after an undo, so the latest record of a step is the one that holds."""
    found: dict[tuple[str, str], int] = {}
    calls: dict[str, ToolCallRecord] = {}
    for record in records:
        if isinstance(record, ApplyRecord) and record.undo_step is not None:
            found[("apply", f"{record.undo_step}:{record.path}")] = record.seq
        elif isinstance(record, ToolCallRecord):
            calls[record.call_id] = record
        elif isinstance(record, ToolResultRecord) and record.ok and _tool(record.name, "install_module"):
            call = calls.get(record.call_id)
            name = _result_json(record).get("installed") or (call.arguments.get("name") if call else None)
            if isinstance(name, str):
                found[("group", f"install {name}")] = record.seq
    return found


def _refuse_source_applies(records: Sequence[EventRecord], to_seq: int) -> None:
    """A fork holds its source's log up to the fork point, not its undo history: applies the source
    made after `to_seq` are the source's to undo."""
    header = records[0] if records else None
    if not isinstance(header, SessionStartedRecord) or not header.forked_from or header.forked_at_seq is None:
        return
    net: dict[str, int] = {}
    for record in records:
        if record.seq <= to_seq or record.seq > header.forked_at_seq:
            continue
        if isinstance(record, ApplyRecord):
            net[record.path] = net.get(record.path, 0) + 1
        elif isinstance(record, UndoRecord):
            net[record.path] = net.get(record.path, 0) - 1
    theirs = sorted(path for path, count in net.items() if count > 0)
    if theirs:
        raise RewindRefused(
            f"That turn is before this session was forked from {header.forked_from} (after its turn "
            f"{header.forked_at_turn}); the applies made there since ({', '.join(theirs)}) are "
            f"{header.forked_from}'s, and this session cannot undo them. Rewind this session's conversation "
            f"only (--conversation), or rewind {header.forked_from} itself."
        )


def _refuse_changed_files(later: list[list[UndoEntry]], project_root: Path) -> None:
    """Every file an undo would restore must hold what its apply wrote (or the bytes before it):
    walked newest first, as the undos will run."""
    now: dict[str, str] = {}
    changed: list[str] = []
    for group in later:
        for entry in group:
            current = now.get(entry.project_rel) or sha256_of(project_root.joinpath(*entry.project_rel.split("/")))
            if current not in (entry.after_sha256, entry.before_sha256) and entry.project_rel not in changed:
                changed.append(entry.project_rel)
            now[entry.project_rel] = entry.before_sha256
    if changed:
        raise RewindRefused(
            f"{', '.join(changed)} changed outside this session after it was applied, so undoing the apply would "
            "lose that change. Nothing was rewound. Keep the edit by rewinding the conversation only "
            "(--conversation), or save it elsewhere, put the applied version back, and rewind again."
        )


def _draft_targets(records: Sequence[EventRecord], to_seq: int) -> dict[str, str | None]:
    """Each draft the log shows touched after `to_seq`, with its content under review at `to_seq`
    (None when it was not under review then)."""
    at: dict[str, str | None] | None = None  # the state at to_seq, once the records pass it
    state: dict[str, str | None] = {}
    applied: dict[str, str | None] = {}
    touched: set[str] = set()
    calls: dict[str, ToolCallRecord] = {}
    for record in records:
        if at is None and record.seq > to_seq:
            at = dict(state)
        path: str | None = None
        if isinstance(record, ToolCallRecord):
            calls[record.call_id] = record
        elif isinstance(record, ToolResultRecord) and record.ok and record.call_id in calls:
            call, answer = calls[record.call_id], _result_json(record)
            if _tool(record.name, "propose_spec_file") and isinstance(call.arguments.get("content"), str):
                path = str(answer.get("path") or call.arguments.get("path") or "")
                state[path] = str(call.arguments["content"])
            elif _tool(record.name, "withdraw_draft"):
                path = str(answer.get("withdrawn") or call.arguments.get("path") or "")
                state[path] = None
        elif isinstance(record, (ApplyRecord, RejectRecord)):
            path = record.path
            if isinstance(record, ApplyRecord):
                applied[path] = state.get(path)
            state[path] = None
        elif isinstance(record, UndoRecord):
            path = record.path
            if state.get(path) is None:  # back for review with the bytes it was applied with
                state[path] = applied.get(path)
        if path and record.seq > to_seq:
            touched.add(path)
    at = dict(state) if at is None else at
    return {path: at.get(path) for path in sorted(touched)}


def _live_drafts(session_dir: Path) -> dict[str, tuple[str, bytes | None]]:
    """The drafts under review now: path -> (state, bytes)."""
    layout = SessionLayout(session_dir)
    found: dict[str, tuple[str, bytes | None]] = {}
    for rel, record in DraftManifest(session_dir).load().items():
        if record.state not in LIVE_STATES:
            continue
        file = layout.draft.joinpath(*rel.split("/"))
        found[rel] = (record.state, None if file.is_symlink() or not file.is_file() else file.read_bytes())
    return found


def _drafts_to_change(plan: RewindPlan, session_dir: Path) -> list[tuple[str, str, str | None]]:
    """(path, action, content) for each draft that is not as it was at the turn: "propose" it
    again, "withdraw" it (pending) or "reject" it (applied and undone: the person's to settle)."""
    live = _live_drafts(session_dir)
    actions: list[tuple[str, str, str | None]] = []
    for path, content in plan.drafts.items():
        state, data = live.get(path, ("", None))
        if content is not None:
            if data is None or data != content.encode("utf-8"):
                actions.append((path, "propose", content))
        elif state:
            actions.append((path, "withdraw" if state == "pending" else "reject", None))
    return actions


async def run_rewind(plan: RewindPlan, flow: ReviewFlow, session_dir: Path, project_root: Path) -> RewindRecord:
    """Carry out a checked plan: undo, then settle the drafts; returns the record to log (the
    caller writes it: the engine through its History, so the live view is cut too)."""
    undone: list[str] = []
    if plan.files:
        for step in plan.undo:
            try:
                result = await flow.undo()
            except Exception as exc:  # noqa: BLE001 - said with what was done so far
                done = f"undid {', '.join(undone)}; " if undone else ""
                raise RewindFailed(
                    f"The rewind stopped: it {done}could not undo {step.label} ({exc}). The conversation was not "
                    "cut; the applies undone so far are in the session log (/diff shows their drafts back for "
                    "review)."
                ) from exc
            undone.append(result.path)
    withdrawn: list[str] = []
    restored: list[str] = []
    if plan.files:
        for path, action, content in _drafts_to_change(plan, session_dir):
            if action == "propose" and content is not None:
                await flow.propose(path, content)
                restored.append(path)
            elif action == "withdraw":
                await flow.withdraw(path)
                withdrawn.append(path)
            else:
                await flow.reject(path, f"taken back by a rewind to the end of turn {plan.to_turn}")
                withdrawn.append(path)
    record = RewindRecord(
        to_turn=plan.to_turn, to_seq=plan.to_seq, mode=plan.mode, undone=undone, withdrawn=withdrawn,
        restored=restored, note=_note(plan, undone, withdrawn, restored, session_dir),
    )
    Transcript(SessionLayout(session_dir).transcript).write_note(describe(record))
    return record


def _note(plan: RewindPlan, undone: list[str], withdrawn: list[str], restored: list[str], session_dir: Path) -> str | None:
    """What the model is told with the next message: where the project stands when it differs
    from what its (cut or kept) conversation shows."""
    if plan.mode == "both":
        return None
    if plan.mode == "files":
        done = _done(undone, withdrawn, restored)
        return f"The person rewound the project files and drafts to the end of turn {plan.to_turn}: {done}." if done \
            else None
    live = sorted(_live_drafts(session_dir))
    parts = [f"drafts under review now: {', '.join(live)}" if live else "no drafts are under review now"]
    return (f"The person rewound the conversation to the end of turn {plan.to_turn}; the project files and drafts "
            f"stay as they are now ({'; '.join(parts)}). list_drafts shows them.")


def _done(undone: Sequence[str], withdrawn: Sequence[str], restored: Sequence[str]) -> str:
    parts = []
    if undone:
        parts.append(_("undid the applies of {paths}").format(paths=", ".join(undone)))
    if withdrawn:
        parts.append(_("withdrew the drafts {paths}").format(paths=", ".join(withdrawn)))
    if restored:
        parts.append(_("put back the drafts {paths} as they were then").format(paths=", ".join(restored)))
    return "; ".join(parts)


# What a rewind took back and to where: (before the first turn, to the end of turn N), per mode.
_REWOUND = {
    "both": (N_("Rewound the conversation and the files to before the first turn"),
             N_("Rewound the conversation and the files to the end of turn {turn}")),
    "files": (N_("Rewound the files and drafts to before the first turn"),
              N_("Rewound the files and drafts to the end of turn {turn}")),
    "conversation": (N_("Rewound the conversation to before the first turn"),
                     N_("Rewound the conversation to the end of turn {turn}")),
}


def describe(record: RewindRecord) -> str:
    """One line for the person (the app, the CLI, the transcript, a replay), in their language."""
    first, later = _REWOUND.get(record.mode, _REWOUND["both"])
    what = _(first) if record.to_turn == 0 else _(later).format(turn=record.to_turn)
    done = _done(record.undone, record.withdrawn, record.restored)
    return f"{what}: {done}." if done else f"{what}."
