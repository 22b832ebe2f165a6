"""How a finished tool call reads to the person: ok, refused by the gate, or failed.

A `propose_spec_file` whose draft the validation gate refused is a successful call (the draft is
kept for the model to fix) but not an "ok" for the person; the TUI, headless text and JSON output
and the transcript all say "refused" for it.
"""

from __future__ import annotations

import json
from typing import Literal

Status = Literal["ok", "refused", "failed"]


def gate_refused(result: str) -> bool:
    """True when a tool succeeded but reports a validation that failed (a draft the gate refused)."""
    if not result.startswith("{") or len(result) > 200_000:
        return False
    try:
        data = json.loads(result)
    except ValueError:
        return False
    validation = data.get("validation") if isinstance(data, dict) else None
    return isinstance(validation, dict) and (validation.get("ok") is False or validation.get("valid") is False)


def tool_status(ok: bool, result: str) -> Status:
    """"ok", "refused" (the gate refused the draft) or "failed"."""
    if not ok:
        return "failed"
    return "refused" if gate_refused(result) else "ok"
