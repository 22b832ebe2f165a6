"""`/status` as readable text: what the person wants to know, in their words, not a field dump."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from formspec_consult.agent.engine.status import EngineStatus, ServerStatus


def _k(tokens: int) -> str:
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


def _servers(servers: Iterable[ServerStatus]) -> list[str]:
    return [f"- **{server.name}**: {server.describe()}" for server in servers]


def status_text(status: EngineStatus, recent: Iterable[str] = ()) -> str:
    """Markdown for the status screen from `Engine.status()`."""
    used, threshold, window = status.context_tokens, status.threshold_tokens, status.window_tokens
    share = f" ({100 * used / threshold:.0f}% of the way)" if threshold else ""
    source = "as reported by the provider" if status.reported else "estimated locally"
    cost = status.cost
    lines = [
        f"**Model**: {status.model or '?'} (via {status.provider or '?'})",
        f"**Session**: {status.session or '?'}, turn {status.turn}"
        + (f", phase **{status.phase.capitalize()}**" if status.phase else ""),
        f"**Context**: {_k(used)} tokens used; the history is compacted at {_k(threshold)}{share}; "
        f"the usable window is {_k(window)} — {source}.",
        f"**Compactions so far**: {status.compactions}",
        f"**Cost of this session**: {f'${cost:.4f}' if cost is not None else 'not known for this model'}",
    ]
    text = "\n\n".join(lines)
    servers = _servers(status.mcp)
    if servers:
        text += "\n\n### MCP servers\n\n" + "\n".join(servers)
    notes = [f"- {line}" for line in list(recent)[-10:]]
    text += "\n\n### Recent notifications\n\n" + ("\n".join(notes) if notes else "- (none)")
    return text + "\n"
