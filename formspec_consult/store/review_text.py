"""Plain-text renderings of review results, shared by the slash commands, the CLI and the log.

The local server writes the same apply/undo/reject lines into `transcript.md` that a client
shows, so what the person read and what the record says are one text. They are the person's,
in the interface language (formspec_consult.i18n); the model never reads them.
"""

from __future__ import annotations

from collections.abc import Sequence

from formspec_consult.i18n import N_, _, ngettext
from formspec_consult.store.review_results import (
    Applied,
    ChangeRow,
    DraftDiff,
    DraftRow,
    Edited,
    Rejected,
    TurnChanges,
    Undone,
)

# A draft's status against the project and its review state, as the person reads them.
_LABELS = {
    "new": N_("new"),
    "modified": N_("modified"),
    "unchanged": N_("unchanged"),
    "pending": N_("pending"),
    "undone": N_("undone"),
    "applied": N_("applied"),
    "rejected": N_("rejected"),
    "invalid": N_("invalid"),
    "withdrawn": N_("withdrawn"),
    "closed": N_("closed"),
    "backed up": N_("backed up"),
    "did not exist": N_("did not exist"),
    "restored": N_("restored"),
    "deleted": N_("deleted"),
    "already restored": N_("already restored"),
    "every file it wrote restored or removed": N_("every file it wrote restored or removed"),
}


def state_label(word: str) -> str:
    """A draft's status or review state ("new", "applied", …), or the words of an apply or undo
    ("backed up", "restored"), in the interface language."""
    return _(_LABELS[word]) if word in _LABELS else word


def format_drafts(drafts: Sequence[DraftRow]) -> str:
    """`list_drafts` rows as lines: path, status, validity."""
    if not drafts:
        return _("No drafts in this session.")
    lines = []
    for row in drafts:
        state = _("valid") if row.valid else ngettext("{n} problem", "{n} problems", row.problems).format(
            n=row.problems)
        changed = "  " + _("(target changed since the draft)") if row.target_changed else ""
        undone = ", " + state_label("undone") if row.state == "undone" else ""
        lines.append(f"{row.path}  [{state_label(row.status)}{undone}, {state}]{changed}")
    return "\n".join(lines)


def format_diffs(drafts: Sequence[DraftDiff]) -> str:
    """`diff_drafts` entries as unified diffs with a header and any blocking problems."""
    if not drafts:
        return _("No drafts in this session.")
    parts = []
    for row in drafts:
        state = _("valid") if row.valid else _("INVALID")
        undone = ", " + state_label("undone") if row.state == "undone" else ""
        header = f"=== {row.path} ({state_label(row.status)}{undone}, {state}) ==="
        problems = "\n".join(f"  ! {p.message}" for p in row.problems)
        body = row.diff or _("(no changes)")
        parts.append("\n".join(part for part in (header, problems, body.rstrip("\n")) if part))
    return "\n\n".join(parts)


def format_apply(result: Applied) -> str:
    return _("Applied {path} → {file} ({previous}; undo with /undo).").format(
        path=result.path, file=result.file, previous=state_label(result.previous)
    )


def format_undo(result: Undone) -> str:
    steps = ngettext(
        "{n} more step can be undone.", "{n} more steps can be undone.", result.remaining_steps
    ).format(n=result.remaining_steps)
    if result.back_for_review:
        return _(
            "Undid the apply of {path} ({outcome}); the draft is back for review (accept it again with "
            "/apply {path}); {steps}"
        ).format(path=result.path, outcome=state_label(result.outcome), steps=steps)
    return _("Undid the apply of {path} ({outcome}); {steps}").format(
        path=result.path, outcome=state_label(result.outcome), steps=steps
    )


def format_reject(result: Rejected) -> str:
    if result.reason:
        return _('Rejected the draft {path}: "{reason}".').format(path=result.path, reason=result.reason)
    return _("Rejected the draft {path}.").format(path=result.path)


def format_edit(result: Edited) -> str:
    """What the person's edit of a draft did."""
    if not result.changed:
        return _("{path}: the editor saved the draft unchanged; nothing was changed.").format(path=result.path)
    if result.valid:
        return _("Your edit of {path} is now the draft; it passes validation.").format(path=result.path)
    return ngettext("Your edit of {path} is now the draft; it has {n} problem (see the diff).",
                    "Your edit of {path} is now the draft; it has {n} problems (see the diff).",
                    len(result.problems)).format(path=result.path, n=len(result.problems))


def format_part(path: str, accepted: Sequence[str], rejected: Sequence[str], reason: str | None) -> str:
    """What a partial review of a draft did: the blocks applied, the blocks sent back."""
    text = _("Applied {n_acc} of {n_all} blocks of {path} ({accepted}); the rest went back to the consultant "
             "({rejected}).").format(n_acc=len(accepted), n_all=len(accepted) + len(rejected), path=path,
                                     accepted=", ".join(accepted), rejected=", ".join(rejected) or "-")
    if reason:
        text += " " + _('Why: "{reason}".').format(reason=reason)
    return text


def change_counts(row: ChangeRow) -> str:
    """A changeset file's lines added and removed, `+9 -2` (`+? -?` when not known)."""
    if row.added is None or row.removed is None:
        return "+? -?"
    return f"+{row.added} -{row.removed}"


def change_gate(row: ChangeRow) -> str:
    """What a changeset file is now: its review state, and the gate's verdict while under review."""
    if row.later_turn is not None:
        return _("proposed again in turn {turn}").format(turn=row.later_turn)
    if row.valid is None:
        return state_label(row.state)
    gate = _("valid") if row.valid else ngettext("{n} problem", "{n} problems", row.problems).format(n=row.problems)
    return f"{state_label(row.state)}, {gate}"


def changes_heading(changes: TurnChanges) -> str:
    """`Turn 2 ("customers and suppliers") proposed 3 files:`"""
    said = changes.user_text.strip().splitlines()[0] if changes.user_text.strip() else ""
    if len(said) > 60:
        said = said[:59] + "…"
    count = len(changes.files)
    if said:
        return ngettext('Turn {turn} ("{said}") proposed {n} file:', 'Turn {turn} ("{said}") proposed {n} files:',
                        count).format(turn=changes.turn, said=said, n=count)
    return ngettext("Turn {turn} proposed {n} file:", "Turn {turn} proposed {n} files:", count).format(
        turn=changes.turn, n=count)


def changes_summary(changes: TurnChanges) -> str:
    """What accepting or rejecting the turn's set would do, in one line."""
    open_rows = changes.open
    if not open_rows:
        return _("Nothing of this turn is left to decide: every file was applied, rejected or withdrawn.")
    valid = sum(1 for row in open_rows if row.valid)
    refused = len(open_rows) - valid
    text = ngettext("{n} draft to decide on", "{n} drafts to decide on", len(open_rows)).format(n=len(open_rows))
    if refused:
        text += "; " + ngettext("{n} is refused by the gate and stays for review when you accept",
                                "{n} are refused by the gate and stay for review when you accept",
                                refused).format(n=refused)
    return text + "."


def format_changes(changes: TurnChanges) -> str:
    """A turn's changeset as lines: each file's status, lines added/removed, path and state."""
    if not changes.turn:
        return _("No turn of this session has proposed drafts yet.")
    status_width = max((len(state_label(row.status)) for row in changes.files if row.status), default=3)
    count_width = max(len(change_counts(row)) for row in changes.files)
    path_width = max(len(row.path) for row in changes.files)
    lines = [changes_heading(changes)]
    for row in changes.files:
        status = state_label(row.status) if row.status else "-"
        lines.append(f"  {status:<{status_width}}  {change_counts(row):<{count_width}}  {row.path:<{path_width}}  "
                     f"[{change_gate(row)}]")
    lines.append(changes_summary(changes))
    if len(changes.turns) > 1:
        lines.append(_("Turns that proposed drafts: {turns}.").format(turns=", ".join(map(str, changes.turns))))
    return "\n".join(lines)


def format_turn_accept(turn: int, applied: Sequence[Applied], skipped: Sequence[str],
                       failed: Sequence[tuple[str, str]]) -> str:
    """What accepting a turn's changeset did."""
    text = ngettext("Accepted turn {turn}: applied {n} draft", "Accepted turn {turn}: applied {n} drafts",
                    len(applied)).format(turn=turn, n=len(applied))
    if applied:
        text += " (" + ", ".join(result.path for result in applied) + ")"
    text += "; " + ngettext("/undo takes back one apply at a time ({n} step).",
                            "/undo takes back one apply at a time ({n} steps).", len(applied)).format(n=len(applied))
    if skipped:
        text += " " + ngettext("Left for review (refused by the gate): {paths}.",
                               "Left for review (refused by the gate): {paths}.", len(skipped)).format(
            paths=", ".join(skipped))
    for path, why in failed:
        text += " " + _("Not applied: {path} — {why}").format(path=path, why=why)
    return text


def format_turn_reject(turn: int, rejected: Sequence[Rejected], failed: Sequence[tuple[str, str]],
                       reason: str | None) -> str:
    """What rejecting a turn's changeset did."""
    text = ngettext("Rejected turn {turn}: {n} draft discarded", "Rejected turn {turn}: {n} drafts discarded",
                    len(rejected)).format(turn=turn, n=len(rejected))
    if rejected:
        text += " (" + ", ".join(result.path for result in rejected) + ")"
    text += "; " + _("the project is untouched.")
    if reason:
        text += " " + _('The consultant is told why: "{reason}".').format(reason=reason)
    for path, why in failed:
        text += " " + _("Not rejected: {path} — {why}").format(path=path, why=why)
    return text
