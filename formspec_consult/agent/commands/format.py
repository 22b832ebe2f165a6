"""`Engine.status()` as plain text, for /status and /mcp (review texts: store.review_text)."""

from __future__ import annotations

from typing import Any


def format_status(status: dict[str, Any]) -> str:
    """`Engine.status()` as a few readable lines."""
    marker = "reported" if status.get("reported") else "estimated"
    cost = status.get("cost")
    servers = ", ".join(
        f"{s['name']} {s['state']}" + (f" ({s['error']})" if s.get("error") else "")
        for s in status.get("mcp", [])
    )
    return "\n".join(
        [
            f"Model:    {status.get('model')} via {status.get('provider')}",
            f"Session:  {status.get('session')} (turn {status.get('turn')})",
            f"Context:  {status.get('context_tokens')} / {status.get('threshold_tokens')} tokens before "
            f"compaction ({marker}); usable window {status.get('window_tokens')}",
            f"Compactions: {status.get('compactions')}   Cost: {'n/a' if cost is None else f'${cost:.4f}'}",
            f"Cache:    {_cache_line(status)}",
            f"MCP:      {servers}",
        ]
    )


def _cache_line(status: dict[str, Any]) -> str:
    """How much of the prompt tokens sent so far the provider read from its prompt cache."""
    prompt, cached = int(status.get("prompt_tokens") or 0), int(status.get("cached_tokens") or 0)
    if not prompt:
        return "no request yet"
    return f"{cached} of {prompt} prompt tokens read from cache ({cached * 100 // prompt}%)"
