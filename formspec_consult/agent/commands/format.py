"""`Engine.status()` as plain text, for /status and /mcp (review texts: store.review_text); an MCP
server's state in the person's words (the app's MCP line and /status say it the same way)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from formspec_consult.agent.engine.phase import phase_title
from formspec_consult.agent.engine.status import EngineStatus
from formspec_consult.i18n import N_, _, format_money, format_number, ngettext

if TYPE_CHECKING:
    from formspec_consult.mcp_client.status import ServerStatus

# mcp_client.status.ServerState, in words for the person
SERVER_STATES = {"stopped": N_("stopped"), "starting": N_("starting"), "running": N_("running"), "dead": N_("dead")}


def describe_server(server: ServerStatus) -> str:
    """A server's state in words: `running (18 tools), 2 restarts — exit 1` (the error as the
    server or the connection said it)."""
    line = _(SERVER_STATES.get(server.state, server.state))
    if server.tools:
        line += " " + ngettext("({n} tool)", "({n} tools)", server.tools).format(n=format_number(server.tools))
    if server.restarts:
        line += ", " + ngettext("{n} restart", "{n} restarts", server.restarts).format(n=server.restarts)
    if server.error:  # an error is said in any state
        line += f" — {server.error}"
    return line


def mcp_line(status: EngineStatus) -> str:
    """The servers and their states on one line (a replay's note when it has none)."""
    servers = ", ".join(f"{s.name} {describe_server(s)}" for s in status.mcp)
    return servers or (status.mcp_note or "")


def format_status(status: EngineStatus) -> str:
    """`Engine.status()` as a few readable lines."""
    marker = _("reported") if status.reported else _("estimated")
    cost = status.cost
    rows = [
        (_("Model:"), _("{model} via {provider}").format(model=status.model, provider=status.provider)),
        (_("Session:"), (_("{session} (turn {turn}), phase {phase}") if status.phase else _("{session} (turn {turn})"))
         .format(session=status.session, turn=status.turn, phase=phase_title(status.phase) if status.phase else "")),
        (_("Context:"), _("{used} / {threshold} tokens before compaction ({marker}); usable window {window}").format(
            used=format_number(status.context_tokens), threshold=format_number(status.threshold_tokens),
            marker=marker, window=format_number(status.window_tokens))),
        (_("Compactions:"), _("{n}   Cost: {cost}").format(
            n=status.compactions, cost=_("n/a") if cost is None else format_money(cost, decimals=4))),
        (_("Cache:"), _cache_line(status)),
        (_("MCP:"), mcp_line(status)),
    ]
    width = max(len(label) for label, _value in rows[:3]) + 1  # the first three aligned, as before
    return "\n".join(f"{label:<{width}} {value}" for label, value in rows)


def _cache_line(status: EngineStatus) -> str:
    """How much of the prompt tokens sent so far the provider read from its prompt cache."""
    prompt, cached = status.prompt_tokens, status.cached_tokens
    if not prompt:
        return _("no request yet")
    return _("{cached} of {prompt} prompt tokens read from cache ({share}%)").format(
        cached=format_number(cached), prompt=format_number(prompt), share=cached * 100 // prompt)
