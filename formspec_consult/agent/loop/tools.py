"""Tool plumbing for the loop: argument parsing, capping results for the model, draft changes.

The model sees a tool result capped at `tool_result_cap` characters with a note saying where the
full text is; the transcript, the event log and the UI always get the full result.
"""

from __future__ import annotations

import json
from typing import Any

# Tools whose success changes the session's drafts (the UI refreshes its review pane).
DRAFT_TOOLS = frozenset({"propose_spec_file", "apply_draft", "reject_draft", "withdraw_draft", "undo_apply"})


class ArgumentsError(ValueError):
    """The model sent tool arguments that are not a JSON object."""


def parse_arguments(raw: str | dict[str, Any] | None) -> dict[str, Any]:
    """The arguments of a tool call as a dict; raise ArgumentsError with a message for the model."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ArgumentsError(
            f"the arguments are not valid JSON ({exc.msg} at position {exc.pos}); "
            "send a JSON object matching the tool's parameters"
        ) from exc
    except RecursionError as exc:  # the decoder recurses per level: ~1,000 levels end it
        raise _too_deep() from exc
    except ValueError as exc:  # Python refuses decimal integers above 4,300 digits
        raise ArgumentsError(
            "the arguments hold a number of more than 4,300 digits; send numbers of a sensible size "
            "(or the value as a string)"
        ) from exc
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ArgumentsError(f"the arguments must be a JSON object, got {type(value).__name__}")
    if _depth(value) > MAX_ARGUMENT_DEPTH:  # every later step (the MCP client, validation) recurses too
        raise _too_deep()
    return value


#: levels of nesting a tool call's arguments may have; no tool's parameters need more than a few
MAX_ARGUMENT_DEPTH = 64


def _too_deep() -> ArgumentsError:
    return ArgumentsError(
        f"the arguments nest deeper than {MAX_ARGUMENT_DEPTH} levels of lists/objects; send the flat "
        "JSON object the tool's parameters describe"
    )


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (iterative: a deep value cannot overflow it)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level > MAX_ARGUMENT_DEPTH:
                return level
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def cap_result(text: str, cap: int, seq: int | None, call_id: str = "") -> str:
    """`text` as the model sees it: at most `cap` characters, with a note when it was cut.

    The note names the call that gives the rest: the server's `read_transcript` pages the logged
    result (event `seq`) from the offset where the cut fell, each page small enough not to be cut
    again — a cut never points back at itself.
    """
    if cap <= 0 or len(text) <= cap:
        return text
    where = (f"read_transcript(seq={seq}, offset={cap})" if seq
             else f'read_transcript(query="{call_id}", type="tool_result"), then its seq with offset={cap}')
    return f"{text[:cap]}\n\n[Result cut: {cap} of {len(text)} characters shown. Read on with {where}.]"


def drafts_touched(name: str, arguments: dict[str, Any], ok: bool) -> tuple[str, ...] | None:
    """The draft paths a successful draft tool changed (None when it changed none)."""
    base = name.rsplit("__", 1)[-1]
    if not ok or base not in DRAFT_TOOLS:
        return None
    path = arguments.get("path") or arguments.get("file")
    return (str(path),) if path else ()


def tools_digest(tools: list[dict[str, Any]]) -> str:
    """A stable digest of the tool declarations (logged with each request; the cache prefix)."""
    import hashlib

    return hashlib.sha256(json.dumps(tools, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
