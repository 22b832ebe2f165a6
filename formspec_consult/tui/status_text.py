"""`/status` as readable text: what the person wants to know, in their words, not a field dump."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from formspec_consult.agent.commands.format import describe_server
from formspec_consult.agent.engine.phase import phase_title
from formspec_consult.i18n import _, format_money, format_number, format_percent

if TYPE_CHECKING:
    from formspec_consult.agent.engine.status import EngineStatus, ServerStatus


def _k(tokens: int) -> str:
    return format_number(tokens / 1000, decimals=1) + "k" if tokens >= 1000 else format_number(tokens)


def _servers(servers: Iterable[ServerStatus]) -> list[str]:
    return [f"- **{server.name}**: {describe_server(server)}" for server in servers]


def status_text(status: EngineStatus, recent: Iterable[str] = ()) -> str:
    """Markdown for the status screen from `Engine.status()`."""
    used, threshold, window = status.context_tokens, status.threshold_tokens, status.window_tokens
    share = " " + _("({share} of the way)").format(share=format_percent(used / threshold)) if threshold else ""
    source = _("as reported by the provider") if status.reported else _("estimated locally")
    cost = status.cost
    lines = [
        _("**Model**: {model} (via {provider})").format(model=status.model or "?", provider=status.provider or "?"),
        _("**Session**: {session}, turn {turn}").format(session=status.session or "?", turn=status.turn)
        + (", " + _("phase **{phase}**").format(phase=phase_title(status.phase)) if status.phase else ""),
        _("**Context**: {used} tokens used; the history is compacted at {threshold}{share}; the usable window "
          "is {window} — {source}.").format(used=_k(used), threshold=_k(threshold), share=share,
                                            window=_k(window), source=source),
        _("**Compactions so far**: {n}").format(n=status.compactions),
        _("**Cost of this session**: {cost}").format(
            cost=format_money(cost, decimals=4) if cost is not None else _("not known for this model")),
    ]
    text = "\n\n".join(lines)
    servers = _servers(status.mcp)
    if servers:
        text += "\n\n### " + _("MCP servers") + "\n\n" + "\n".join(servers)
    notes = [f"- {line}" for line in list(recent)[-10:]]
    text += "\n\n### " + _("Recent notifications") + "\n\n" + ("\n".join(notes) if notes else "- " + _("(none)"))
    return text + "\n"
