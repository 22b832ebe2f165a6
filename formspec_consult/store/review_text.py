"""Plain-text renderings of review results, shared by the slash commands, the CLI and the log.

The local server writes the same apply/undo/reject lines into `transcript.md` that a client
shows, so what the person read and what the record says are one text.
"""

from __future__ import annotations

from collections.abc import Sequence

from formspec_consult.store.review_results import Applied, DraftDiff, DraftRow, Rejected, Undone


def format_drafts(drafts: Sequence[DraftRow]) -> str:
    """`list_drafts` rows as lines: path, status, validity."""
    if not drafts:
        return "No drafts in this session."
    lines = []
    for row in drafts:
        state = "valid" if row.valid else f"{row.problems} problem(s)"
        changed = "  (target changed since the draft)" if row.target_changed else ""
        undone = ", undone" if row.state == "undone" else ""
        lines.append(f"{row.path}  [{row.status}{undone}, {state}]{changed}")
    return "\n".join(lines)


def format_diffs(drafts: Sequence[DraftDiff]) -> str:
    """`diff_drafts` entries as unified diffs with a header and any blocking problems."""
    if not drafts:
        return "No drafts in this session."
    parts = []
    for row in drafts:
        state = "valid" if row.valid else "INVALID"
        undone = ", undone" if row.state == "undone" else ""
        header = f"=== {row.path} ({row.status}{undone}, {state}) ==="
        problems = "\n".join(f"  ! {p.message}" for p in row.problems)
        body = row.diff or "(no changes)"
        parts.append("\n".join(part for part in (header, problems, body.rstrip("\n")) if part))
    return "\n\n".join(parts)


def format_apply(result: Applied) -> str:
    return f"Applied {result.path} → {result.file} ({result.previous}; undo with /undo)."


def format_undo(result: Undone) -> str:
    back = (
        f" the draft is back for review (accept it again with /apply {result.path});"
        if result.back_for_review
        else ""
    )
    return (
        f"Undid the apply of {result.path} ({result.outcome});{back} "
        f"{result.remaining_steps} more step(s) can be undone."
    )


def format_reject(result: Rejected) -> str:
    return f"Rejected the draft {result.path}{reason_tail(result.reason)}"


def reason_tail(reason: str | None) -> str:
    """The end of a rejection's sentence: `.` alone, or the person's reason quoted."""
    return f': "{reason}".' if reason else "."
