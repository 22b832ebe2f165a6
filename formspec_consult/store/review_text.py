"""Plain-text renderings of review results, shared by the slash commands, the CLI and the log.

The local server writes the same apply/undo/reject lines into `transcript.md` that a client
shows, so what the person read and what the record says are one text.
"""

from __future__ import annotations

from typing import Any


def format_drafts(drafts: list[dict[str, Any]]) -> str:
    """`list_drafts` rows as lines: path, status, validity."""
    if not drafts:
        return "No drafts in this session."
    lines = []
    for row in drafts:
        state = "valid" if row.get("valid") else f"{row.get('problems', '?')} problem(s)"
        changed = "  (target changed since the draft)" if row.get("target_changed") else ""
        undone = ", undone" if row.get("state") == "undone" else ""
        lines.append(f"{row.get('path')}  [{row.get('status')}{undone}, {state}]{changed}")
    return "\n".join(lines)


def format_diffs(drafts: list[dict[str, Any]]) -> str:
    """`diff_drafts` entries as unified diffs with a header and any blocking problems."""
    if not drafts:
        return "No drafts in this session."
    parts = []
    for row in drafts:
        state = "valid" if row.get("valid") else "INVALID"
        undone = ", undone" if row.get("state") == "undone" else ""
        header = f"=== {row.get('path')} ({row.get('status')}{undone}, {state}) ==="
        problems = "\n".join(
            f"  ! {p.get('message', p) if isinstance(p, dict) else p}" for p in row.get("problems") or []
        )
        body = row.get("diff") or "(no changes)"
        parts.append("\n".join(part for part in (header, problems, body.rstrip("\n")) if part))
    return "\n\n".join(parts)


def format_apply(result: dict[str, Any]) -> str:
    previous = result.get("previous", "")
    return f"Applied {result.get('applied')} → {result.get('file')} ({previous}; undo with /undo)."


def format_undo(result: dict[str, Any]) -> str:
    back = f" the draft is back for review (accept it again with /apply {result.get('undone')});" if result.get("draft") == "back for review" else ""
    return (
        f"Undid the apply of {result.get('undone')} ({result.get('outcome')});{back} "
        f"{result.get('remaining_steps', 0)} more step(s) can be undone."
    )


def format_reject(result: dict[str, Any]) -> str:
    return f"Rejected the draft {result.get('rejected')}."
