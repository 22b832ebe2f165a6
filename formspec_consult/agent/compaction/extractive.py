"""The deterministic extractive summary: the fallback that makes compaction unable to fail.

No model involved: it lifts out what people lose most after a compaction — the stated goal, every
decision (``[chosen: …]`` lines verbatim), the files and drafts touched, the last open questions —
in the same sections as the LLM summary, within a size budget (decisions are never cut).
"""

from __future__ import annotations

import json
import re
from typing import Any

from formspec_consult.agent.history.summary import is_summary, summary_text

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


def _earlier_sections(messages: list[Message]) -> dict[str, list[str]]:
    """The bullet lines of the latest earlier summary, by section ("goal", "facts", "drafts", …).

    Carrying them over keeps the original goal and facts alive through repeated compactions
    instead of summarising a summary of a summary.
    """
    earlier = [m for m in messages if is_summary(m)]
    if not earlier:
        return {}
    body = _text(earlier[-1])
    body = summary_text(body)
    sections: dict[str, list[str]] = {}
    current = "preamble"
    for line in body.splitlines():
        if line.startswith("## "):
            current = line[3:].split()[0].lower() if line[3:].split() else "preamble"
            continue
        item = line.strip().removeprefix("- ").strip()
        if item and not item.startswith("(") and "[chosen:" not in item:
            sections.setdefault(current, []).append(item)
    return sections


def _paths(messages: list[Message]) -> list[str]:
    found: dict[str, None] = {}
    for message in messages:
        texts = [_text(message)]
        for call in message.get("tool_calls") or []:
            texts.append(call["function"]["arguments"])
            try:
                args = json.loads(call["function"]["arguments"])
            except (ValueError, RecursionError):  # broken, huge-number or absurdly deep arguments
                args = {}
            if isinstance(args, dict) and isinstance(args.get("path"), str):
                found.setdefault(args["path"], None)
        for text in texts:
            for path in _PATH.findall(text):
                found.setdefault(path, None)
    return list(found)


def _mentions(messages: list[Message], focus: str) -> list[str]:
    """The latest lines (from the person or the consultant) that mention a word of the focus."""
    def stems(text: str) -> set[str]:  # crude but language-neutral: "refunds" ~ "refunded"
        return {word[:5] for word in re.findall(r"\w{4,}", text.casefold())}

    words = stems(focus)
    if not words:
        return []
    found = [
        _clip(line, 240)
        for message in messages
        if message.get("role") in ("user", "assistant") and not is_summary(message)
        for line in _text(message).splitlines()
        if words & stems(line)
    ]
    return list(dict.fromkeys(found))[-8:]


def extractive_summary(messages: list[Message], *, focus: str | None = None, budget_chars: int = 4000) -> str:
    """A structured summary of `messages` built without a model, about `budget_chars` long."""
    users = [_text(m) for m in messages if m.get("role") == "user" and not is_summary(m) and _text(m).strip()]
    users = [u for u in users if not u.lstrip().startswith("[chosen:")]
    earlier = _earlier_sections(messages)
    assistants = [_text(m) for m in messages if m.get("role") == "assistant" and _text(m).strip()]
    agreed = [
        _clip(line, 200)
        for text in assistants + users
        for line in text.splitlines()
        if _DECISION_WORDS.search(line) and "[chosen:" not in line
    ]
    last_questions: list[str] = []
    if assistants:
        lines = assistants[-1].splitlines()
        last_questions = [_clip(line, 200) for line in lines if line.strip().endswith("?") or _OPTION.match(line)]
    tools: dict[str, int] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            tools[call["function"]["name"]] = tools.get(call["function"]["name"], 0) + 1

    share = max(120, budget_chars // 6)
    goal = earlier.get("goal") or [_clip(text, share) for text in users[:2]] or ["(not stated yet)"]
    files = list(dict.fromkeys([*earlier.get("drafts", []), *_paths(messages)]))
    sections: list[tuple[str, list[str]]] = [
        ("Goal (the person's own words)", goal[:3]),
        ("Decisions (chosen options, verbatim)", chosen_options(messages) or ["(none recorded)"]),
        ("Facts and other agreements", [*earlier.get("facts", []), *earlier.get("other", []), *agreed][-8:]),
        ("Drafts and files", files[-20:]),
        ("Open questions (last asked)", last_questions[:8]),
        ("Latest requests", [_clip(text, share // 2) for text in users[-3:]] if len(users) > 2 else []),
        ("Tools used", [f"{name} ×{count}" for name, count in tools.items()]),
    ]
    if focus:
        sections.insert(0, ("Focus requested", [_clip(focus, 300)]))
        sections.insert(3, ("About the focus", _mentions(messages, focus)))
    out = ["(extractive summary, made without a model)"]
    for title, items in sections:
        if not items:
            continue
        block = [f"## {title}"] + [f"- {item}" for item in items]
        if title.startswith("Decisions") or sum(map(len, out)) + sum(map(len, block)) <= budget_chars:
            out.extend(block)
    out.append("## Next steps\n- Continue from the latest user message; ask again for anything missing here.")
    return "\n".join(out)
