"""A reply's drafts judged as a set.

A model often proposes related files in one reply: a booking that has many booking items, then the
booking item. Each `propose_spec_file` is judged when it runs, so the booking, checked before the
item existed, was refused ("no such entity"), though the next call of the same reply made it valid.
The person would see it valid in the review; the model would be told it is broken. The same holds
for a draft that passed: a later call of the reply may break it, or change the problems elsewhere
its answer counts (`other_problems`).

So a proposal followed, in the same reply, by a call that changes the drafts (another proposal, a
withdrawal, …) waits: once the reply's calls have run, the loop asks for it again (the same path
and content: the gate now sees every draft of the reply) and sends that answer — every proposal's
verdict and count of other problems is then the state at the end of the reply, one consistent
picture. When the verdict changed, a note says it was judged with the later drafts and what the
first check found. A proposal a later call of the reply replaced, withdrew, rejected or applied
(the same path) is not asked again: asking would bring back a draft the reply itself settled.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from formspec_consult.agent.loop.json_answer import json_object
from formspec_consult.agent.loop.tools import DRAFT_TOOLS

PROPOSE = "propose_spec_file"


def base_name(exposed: str) -> str:
    """A tool's own name from its exposed one (``server__name`` on a clash)."""
    return exposed.rsplit("__", 1)[-1]


def is_propose(exposed: str) -> bool:
    return base_name(exposed) == PROPOSE


def changes_drafts(exposed: str) -> bool:
    """Whether a call of this tool changes the session's drafts (so earlier verdicts may change)."""
    return base_name(exposed) in DRAFT_TOOLS


def path_argument(arguments: dict[str, Any]) -> str | None:
    """The draft path a draft tool's arguments name (`path`, or apply's `file`)."""
    value = arguments.get("path") or arguments.get("file")
    return str(value) if value else None


def same_draft(named: str, path: str) -> bool:
    """Whether a path as the model wrote it (`spec/modules/x.yaml`, `./modules/x.yaml`) names the
    draft at the server's spec path `path`."""
    named = named.strip().lstrip("./")
    return named == path or named.endswith("/" + path)


@dataclass(frozen=True)
class Verdict:
    """What one proposal's answer said: the draft's path (as the server names it), its validity and
    the number of problems blocking it."""

    path: str
    valid: bool
    problems: int


def verdict_of(text: str) -> Verdict | None:
    """The verdict a `propose_spec_file` answer gives (None for an error or another shape)."""
    data = json_object(text)
    if data is None or not isinstance(data.get("path"), str):
        return None
    problems = data.get("blocking_problems")
    valid = data.get("valid")
    if not isinstance(valid, bool):
        valid = isinstance(problems, int) and problems == 0
    return Verdict(data["path"], valid, problems if isinstance(problems, int) else 0)


def note_for(later: list[str], first: Verdict) -> str:
    """Why a proposal's verdict differs from its first check, and what that check said."""
    where = f"the later drafts of the same reply ({', '.join(later)})" if later else "the rest of the same reply"
    return (
        f"Judged again with {where}; its first check, before they were written, found "
        f"{first.problems} problem(s) in this draft."
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
