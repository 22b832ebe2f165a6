"""The deterministic extractive summary: the fallback that makes compaction unable to fail.

No model involved: it lifts out what people lose most after a compaction — the stated goal, every
decision (``[chosen: …]`` lines verbatim), the files and drafts touched, the last open questions —
in the same sections as the LLM summary, within a size budget (decisions are never cut).
"""

from __future__ import annotations

import json
import re
from typing import Any

from formspec_consult.agent.history import SUMMARY_PREFIX, is_summary

Message = dict[str, Any]
_CHOSEN = re.compile(r"\[chosen:.*?\](?=\s|$)", re.DOTALL)
_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.(?:ya?ml|md|json|csv|txt))\b")
_OPTION = re.compile(r"^\s*[A-H]\)\s+\S")
_DECISION_WORDS = re.compile(r"\b(decided|agreed|confirmed|we will|we'll|let's go with|chosen)\b", re.I)

__all__ = ["chosen_options", "extractive_summary"]


def chosen_options(messages: list[Message]) -> list[str]:
    """Every ``[chosen: …]`` marker in the messages, verbatim, in order, without repeats."""
    found: dict[str, None] = {}
    for message in messages:
        for match in _CHOSEN.findall(str(message.get("content") or "")):
            found.setdefault(match, None)
    return list(found)


def _text(message: Message) -> str:
    return str(message.get("content") or "")


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _earlier_summary(message: Message) -> str:
    """The body of a previous compaction's summary (its header line dropped)."""
    body = _text(message)
    return body.split("]\n\n", 1)[1] if body.startswith(SUMMARY_PREFIX) and "]\n\n" in body else body


def _paths(messages: list[Message]) -> list[str]:
    found: dict[str, None] = {}
    for message in messages:
        texts = [_text(message)]
        for call in message.get("tool_calls") or []:
            texts.append(call["function"]["arguments"])
            try:
                args = json.loads(call["function"]["arguments"])
            except ValueError:
                args = {}
            if isinstance(args, dict) and isinstance(args.get("path"), str):
                found.setdefault(args["path"], None)
        for text in texts:
            for path in _PATH.findall(text):
                found.setdefault(path, None)
    return list(found)


def extractive_summary(messages: list[Message], *, focus: str | None = None, budget_chars: int = 4000) -> str:
    """A structured summary of `messages` built without a model, about `budget_chars` long."""
    users = [_text(m) for m in messages if m.get("role") == "user" and not is_summary(m) and _text(m).strip()]
    earlier = [_earlier_summary(m) for m in messages if is_summary(m)]
    assistants = [_text(m) for m in messages if m.get("role") == "assistant" and _text(m).strip()]
    decisions = chosen_options(messages)
    agreed = [
        _clip(line, 200)
        for text in assistants + users
        for line in text.splitlines()
        if _DECISION_WORDS.search(line) and "[chosen:" not in line
    ][-6:]
    last_questions: list[str] = []
    if assistants:
        lines = assistants[-1].splitlines()
        last_questions = [_clip(line, 200) for line in lines if line.strip().endswith("?") or _OPTION.match(line)]
    tools: dict[str, int] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            tools[call["function"]["name"]] = tools.get(call["function"]["name"], 0) + 1

    share = max(120, budget_chars // 6)
    sections: list[tuple[str, list[str]]] = [
        ("Goal (the person's own words)", [_clip(text, share) for text in users[:2]] or ["(not stated yet)"]),
        ("Decisions (chosen options, verbatim)", decisions or ["(none recorded)"]),
        ("Other agreements", agreed),
        ("Drafts and files", _paths(messages)[:20]),
        ("Open questions (last asked)", last_questions[:8]),
        ("Latest requests", [_clip(text, share // 2) for text in users[2:][-3:]]),
        ("Tools used", [f"{name} ×{count}" for name, count in tools.items()]),
    ]
    if earlier:
        sections.insert(1, ("Earlier summary", [_clip(text, share * 2) for text in earlier[-1:]]))
    if focus:
        sections.insert(0, ("Focus requested", [_clip(focus, 300)]))
    out = ["(extractive summary, made without a model)"]
    for title, items in sections:
        if not items:
            continue
        block = [f"## {title}"] + [f"- {item}" for item in items]
        if title.startswith("Decisions") or sum(map(len, out)) + sum(map(len, block)) <= budget_chars:
            out.extend(block)
    out.append("## Next steps\n- Continue from the latest user message; ask again for anything missing here.")
    return "\n".join(out)
