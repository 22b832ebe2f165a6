"""How a finished tool call reads to the person: ok, refused by the gate, or failed.

A `propose_spec_file` whose draft the validation gate refused is a successful call (the draft is
kept for the model to fix) but not an "ok" for the person; the TUI, headless text and JSON output
and the transcript all say "refused" for it. Only that answer's own verdict counts: the answers of
`apply_draft` and `undo_apply` carry the whole project's validation, and a problem elsewhere in the
project does not make an apply that happened read as refused.
"""

from __future__ import annotations

import json
from typing import Literal

Status = Literal["ok", "refused", "failed"]


def gate_refused(result: str) -> bool:
    """True when a tool succeeded but the gate refused the draft it wrote: `propose_spec_file`'s
    answer with blocking problems."""
    if not result.startswith("{") or len(result) > 200_000:
        return False
    try:
        data = json.loads(result)
    except (ValueError, RecursionError):
        return False
    blocking = data.get("blocking_problems") if isinstance(data, dict) else None
    return isinstance(blocking, int) and not isinstance(blocking, bool) and blocking > 0


def tool_status(ok: bool, result: str) -> Status:
    """"ok", "refused" (the gate refused the draft) or "failed"."""
    if not ok:
        return "failed"
    return "refused" if gate_refused(result) else "ok"
