"""`Engine.status()` as plain text, for /status and /mcp (review texts: store.review_text)."""

from __future__ import annotations

from formspec_consult.agent.engine.status import EngineStatus


def format_status(status: EngineStatus) -> str:
    """`Engine.status()` as a few readable lines."""
    marker = "reported" if status.reported else "estimated"
    cost = status.cost
    servers = ", ".join(
        f"{s.name} {s.state}" + (f" ({s.error})" if s.error else "") for s in status.mcp
    ) or (status.mcp_note or "")
    return "\n".join(
        [
            f"Model:    {status.model} via {status.provider}",
            f"Session:  {status.session} (turn {status.turn})"
            + (f", phase {status.phase.capitalize()}" if status.phase else ""),
            f"Context:  {status.context_tokens} / {status.threshold_tokens} tokens before "
            f"compaction ({marker}); usable window {status.window_tokens}",
            f"Compactions: {status.compactions}   Cost: {'n/a' if cost is None else f'${cost:.4f}'}",
            f"Cache:    {_cache_line(status)}",
            f"MCP:      {servers}",
        ]
    )


def _cache_line(status: EngineStatus) -> str:
    """How much of the prompt tokens sent so far the provider read from its prompt cache."""
    prompt, cached = status.prompt_tokens, status.cached_tokens
    if not prompt:
        return "no request yet"
    return f"{cached} of {prompt} prompt tokens read from cache ({cached * 100 // prompt}%)"
