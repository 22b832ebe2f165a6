"""A reply's drafts judged as a set.

A model often proposes related files in one reply: a booking that has many booking items, then the
booking item. Each `propose_spec_file` is judged when it runs, so the booking, checked before the
item existed, was refused ("no such entity"), though the next call of the same reply made it valid.
The person would see it valid in the review; the model would be told it is broken.

So a proposal refused while a later proposal of the same reply was still to come waits: once the
reply's calls have run, the loop asks for it again (the same path and content: the gate now sees
every draft of the reply) and sends that verdict, with a note saying it was judged with the later
drafts. An earlier proposal that passed is asked again only when the draft list says its verdict
changed (a later draft broke it). A proposal the reply itself replaced (the same path proposed
again later) is not asked again: its later proposal is the draft.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

PROPOSE = "propose_spec_file"
LIST = "list_drafts"


def base_name(exposed: str) -> str:
    """A tool's own name from its exposed one (``server__name`` on a clash)."""
    return exposed.rsplit("__", 1)[-1]


def sibling_tool(exposed: str, name: str) -> str:
    """The exposed name of `name` on the server of the exposed tool `exposed`."""
    prefix = exposed[: -len(base_name(exposed))]
    return prefix + name


def is_propose(exposed: str) -> bool:
    return base_name(exposed) == PROPOSE


@dataclass(frozen=True)
class Verdict:
    """What one proposal's answer said: the draft's path (as the server names it) and validity."""

    path: str
    valid: bool
    problems: int


def verdict_of(text: str) -> Verdict | None:
    """The verdict a `propose_spec_file` answer gives (None for an error or another shape)."""
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("path"), str):
        return None
    problems = data.get("blocking_problems")
    valid = data.get("valid")
    if not isinstance(valid, bool):
        valid = isinstance(problems, int) and problems == 0
    return Verdict(data["path"], valid, problems if isinstance(problems, int) else 0)


def listed_validity(text: str) -> dict[str, bool]:
    """path -> valid from a `list_drafts` answer ({} when it cannot be read)."""
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    rows = data.get("drafts") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        return {}
    return {str(r["path"]): bool(r.get("valid")) for r in rows if isinstance(r, dict) and "path" in r}


def note_for(later: list[str], first: Verdict) -> str:
    """Why a proposal's answer came after the rest of its reply, and what its first check said."""
    return (
        f"Judged again with the later drafts of the same reply ({', '.join(later)}); its first check, "
        f"before they were written, found {first.problems} problem(s)."
    )


def with_note(text: str, note: str) -> str:
    """A JSON answer with ``judged_with: note`` after its verdict, in the answer's own layout."""
    data = json.loads(text)
    if not isinstance(data, dict):
        return text
    out: dict[str, Any] = {}
    for key, value in data.items():
        out[key] = value
        if key == "valid":
            out["judged_with"] = note
    out.setdefault("judged_with", note)
    if "\n" in text:
        return json.dumps(out, ensure_ascii=False, indent=2)
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))
