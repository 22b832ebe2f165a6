"""`/status` as readable text: what the person wants to know, in their words, not a field dump."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any


def _as_dict(value: Any) -> dict[str, Any]:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return dict(value)
    return {}


def _k(tokens: Any) -> str:
    try:
        number = int(tokens or 0)
    except (TypeError, ValueError):
        return str(tokens)
    return f"{number / 1000:.1f}k" if number >= 1000 else str(number)


def _servers(mcp: Any) -> list[str]:
    if isinstance(mcp, Mapping):
        items: Iterable[Any] = [{"name": name, **_as_dict(value)} for name, value in mcp.items()]
    elif isinstance(mcp, (list, tuple)):
        items = mcp
    else:
        return []
    lines = []
    for server in items:
        data = _as_dict(server)
        line = f"- **{data.get('name', '?')}**: {data.get('state', '?')}"
        if data.get("tools"):
            line += f", {data['tools']} tools"
        if data.get("restarts"):
            line += f", restarted {data['restarts']}×"
        if data.get("error"):
            line += f" — {data['error']}"
        lines.append(line)
    return lines


def status_text(status: Any, recent: Iterable[str] = ()) -> str:
    """Markdown for the status screen from `Engine.status()` (a dict or a typed record)."""
    data = _as_dict(status)
    used, threshold, window = data.get("context_tokens"), data.get("threshold_tokens"), data.get("window_tokens")
    share = f" ({100 * int(used or 0) / int(threshold):.0f}% of the way)" if threshold else ""
    source = "as reported by the provider" if data.get("reported") else "estimated locally"
    cost = data.get("cost")
    lines = [
        f"**Model**: {data.get('model') or '?'} (via {data.get('provider') or '?'})",
        f"**Session**: {data.get('session') or '?'}, turn {data.get('turn', 0)}",
        f"**Context**: {_k(used)} tokens used; the history is compacted at {_k(threshold)}{share}; "
        f"the usable window is {_k(window)} — {source}.",
        f"**Compactions so far**: {data.get('compactions', 0)}",
        f"**Cost of this session**: {f'${cost:.4f}' if isinstance(cost, (int, float)) else 'not known for this model'}",
    ]
    text = "\n\n".join(lines)
    servers = _servers(data.get("mcp"))
    if servers:
        text += "\n\n### MCP servers\n\n" + "\n".join(servers)
    notes = [f"- {line}" for line in list(recent)[-10:]]
    text += "\n\n### Recent notifications\n\n" + ("\n".join(notes) if notes else "- (none)")
    return text + "\n"
