"""Recording review actions (apply, undo, reject) in the session's event log and transcript.

The local MCP server performs them; the client records them, whichever client ran them (the
engine for the TUI and slash commands, the `apply`/`undo`/`reject` commands for the shell).
"""

from __future__ import annotations

from typing import Any

from formspec_consult.agent.commands.format import format_apply, format_undo

REVIEW_TOOLS = {"apply_draft": "apply", "undo_apply": "undo", "reject_draft": "reject"}


def review_record(tool: str, result: dict[str, Any]) -> tuple[str, dict[str, Any], str] | None:
    """(event type, event data, transcript note) for a successful review tool result, else None."""
    kind = REVIEW_TOOLS.get(tool)
    if kind == "apply":
        data = {
            "path": result.get("applied"),
            "file": result.get("file"),
            "backup": result.get("backup"),
            "undo_step": result.get("undo_step"),
            "forced": result.get("forced"),
        }
        return kind, data, format_apply(result)
    if kind == "undo":
        data = {
            "path": result.get("undone"),
            "file": result.get("file"),
            "outcome": result.get("outcome"),
            "undo_step": result.get("undo_step"),
        }
        return kind, data, format_undo(result)
    if kind == "reject":
        return kind, {"path": result.get("rejected")}, f"Rejected the draft {result.get('rejected')}."
    return None
