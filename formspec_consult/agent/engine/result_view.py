"""What the consultant is sent of our servers' answers: the facts it acts on, compact.

Our servers answer every client alike (external MCP clients, the review workflow and the event log
read the whole structured result). The model is sent a view of it, written into the outcome's
``for_model`` (the log, the transcript and the UI keep the whole answer):

- compact JSON (no indentation, no spaces after separators): the same facts in fewer tokens;
- no machine-only fields: where a draft lies inside the session folder (``draft_path``), which
  schema file checked each kind (``schema_sources``), the bound ``session``, ``written`` (always
  true), the count that repeats a list's length (``blocking_problems``), a problem's ``layer`` and
  ``column``, and a problem's ``source`` when it is the very file the answer is about;
- a proposal's verdict on its own: ``valid``, the problems that block it, its warnings, and the
  other drafts' problems as one count (they do not block this one);
- the skills a proposal points to, each named once per session (the system prompt already says
  what each is for); a later proposal of the same kind does not repeat them.

A result that is not a JSON object (an error, a skill's Markdown) is sent as it is.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from formspec_consult.agent.loop.json_answer import json_object
from formspec_consult.agent.loop.loop import DelegatingTools, ToolRunner
from formspec_consult.mcp_client.manager import ToolOutcome

PROPOSE = "propose_spec_file"
MACHINE_ONLY = frozenset({"draft_path", "schema_sources", "session", "written", "blocking_problems"})
PROBLEM_MACHINE_ONLY = frozenset({"layer", "column"})
SKILLS_KEY = "skills"  # the view's key for the skills a proposal names (once per session)


def compact(value: Any) -> str:
    """JSON with no whitespace between tokens (non-ASCII kept as is)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def named_skills(messages: Iterable[dict[str, Any]]) -> set[str]:
    """The skills earlier proposal views named, from the tool messages the model was sent.

    Pass every message the event log holds (:func:`logged_messages`), not the history: compaction
    takes old results out of the history, though the model did read them. A view is read with
    what followed it (the step budget's footer, a cut's note), so its leading JSON object is
    decoded, and a view the cap cut gives the skill list it still holds whole.
    """
    named: set[str] = set()
    for message in messages:
        if message.get("role") != "tool":
            continue
        for text in _texts(message.get("content")):
            if f'"{SKILLS_KEY}":' in text:
                named.update(_skills_in(text))
    return named


def logged_messages(events: Iterable[Any]) -> list[dict[str, Any]]:
    """Every message the model was sent, as the event log records them (``message`` events)."""
    return [e.message for e in events if getattr(e, "type", None) == "message" and isinstance(e.message, dict)]


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):  # content parts: text beside images
        return [str(p.get("text")) for p in content if isinstance(p, dict) and p.get("type") == "text"]
    return []


_SKILLS_LIST = re.compile(r'"' + SKILLS_KEY + r'":(\[[^\]]*\])')


def _skills_in(text: str) -> list[str]:
    try:
        data, _end = json.JSONDecoder().raw_decode(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        skills = data.get(SKILLS_KEY)
        return [s for s in skills if isinstance(s, str)] if isinstance(skills, list) else []
    found = _SKILLS_LIST.search(text)  # a view cut after its skill list
    if found is None:
        return []
    try:
        listed = json.loads(found.group(1))
    except ValueError:
        return []
    return [s for s in listed if isinstance(s, str)] if isinstance(listed, list) else []


class ModelView(DelegatingTools):
    """Delegates to ``inner``; gives each answer of our servers (``ours``) its model view."""

    def __init__(
        self,
        inner: ToolRunner,
        *,
        ours: Callable[[str], bool],
        real_name: Callable[[str], str],
        skills_named: set[str] | None = None,
    ) -> None:
        super().__init__(inner)
        self._ours, self._real_name = ours, real_name
        self.skills_named: set[str] = skills_named if skills_named is not None else set()

    async def call(self, exposed: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        outcome = await self.inner.call(exposed, arguments)
        if not outcome.ok or not self._ours(exposed):
            return outcome
        data = json_object(outcome.text)
        if data is None:
            return outcome
        return dataclasses.replace(outcome, for_model=compact(self.view(self._real_name(exposed), data)))

    def view(self, tool: str, data: dict[str, Any]) -> dict[str, Any]:
        """The model's view of one answer of ``tool``."""
        if tool == PROPOSE:
            return self._proposal(data)
        lean: dict[str, Any] = _lean(data, None)
        return lean

    def _proposal(self, data: dict[str, Any]) -> dict[str, Any]:
        path = data.get("path")
        raw = data.get("validation")
        validation: dict[str, Any] = raw if isinstance(raw, dict) else {}
        view: dict[str, Any] = {}
        for key in ("path", "status", "diff", "valid", "judged_with"):
            if key in data:
                view[key] = data[key]
        if "valid" not in view and isinstance(validation.get("ok"), bool):  # an answer from before `valid`
            view["valid"] = validation["ok"]
        for key in ("problems", "warnings"):
            if validation.get(key):
                view[key] = _lean(validation[key], path)
        if data.get("other_problems"):
            view["other_drafts"] = (
                f"{data['other_problems']} problem(s) elsewhere (other drafts or files) do not block this draft"
            )
        if data.get("findings"):
            view["findings"] = _lean(data["findings"], path)
        if data.get("review"):
            view["review"] = data["review"]
        fresh = [name for name in _skill_names(data.get("relevant_skills")) if name not in self.skills_named]
        if fresh:
            self.skills_named.update(fresh)
            view[SKILLS_KEY] = fresh
        if "next" in data:
            view["next"] = data["next"]
        return view


def _skill_names(skills: Any) -> list[str]:
    if not isinstance(skills, list):
        return []
    return [str(s.get("name")) if isinstance(s, dict) else str(s) for s in skills]


def _lean(value: Any, path: Any) -> Any:
    """``value`` without machine-only keys, at any depth; a problem's ``source`` naming ``path``
    (the file the answer is about) goes too."""
    if isinstance(value, list):
        return [_lean(item, path) for item in value]
    if not isinstance(value, dict):
        return value
    problem = "code" in value and "message" in value
    out = {}
    for key, item in value.items():
        if key in MACHINE_ONLY or (problem and key in PROBLEM_MACHINE_ONLY):
            continue
        if problem and key == "source" and path and _names(item, str(path)):
            continue
        out[key] = _lean(item, path)
    return out


def _names(source: Any, path: str) -> bool:
    """Whether a problem's source names the spec path ``path`` ("modules/x.yaml" or with "spec/")."""
    return isinstance(source, str) and (source == path or source.endswith("/" + path))
