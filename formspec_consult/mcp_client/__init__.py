"""Connecting to MCP servers: stdio, Streamable HTTP, in-memory; timeouts, restarts, routing.

The names are loaded on first use (PEP 562): `mcp_client.config` — what the composition root
needs to describe servers — imports no MCP SDK, so the TUI's first frame does not wait for it;
the connection and the manager (and with them the SDK) load when a session starts.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from formspec_consult.mcp_client.config import (
        MCPConfigError,
        ServerSpec,
        load_servers_file,
        parse_servers,
    )
    from formspec_consult.mcp_client.connection import AuthenticationFailed, ServerConnection, ServerDied
    from formspec_consult.mcp_client.manager import MCPManager, ToolError, ToolOutcome

_HOMES = {
    "AuthenticationFailed": "connection",
    "MCPConfigError": "config",
    "MCPManager": "manager",
    "ServerConnection": "connection",
    "ServerDied": "connection",
    "ServerSpec": "config",
    "ToolError": "manager",
    "ToolOutcome": "manager",
    "load_servers_file": "config",
    "parse_servers": "config",
}
__all__ = [
    "AuthenticationFailed",
    "MCPConfigError",
    "MCPManager",
    "ServerConnection",
    "ServerDied",
    "ServerSpec",
    "ToolError",
    "ToolOutcome",
    "load_servers_file",
    "parse_servers",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # once loaded, a plain module attribute
    return value
