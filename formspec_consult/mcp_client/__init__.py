"""Connecting to MCP servers: stdio, Streamable HTTP, in-memory; timeouts, restarts, routing."""

from formspec_consult.mcp_client.config import MCPConfigError, ServerSpec, load_servers_file, parse_servers
from formspec_consult.mcp_client.connection import AuthenticationFailed, ServerConnection, ServerDied
from formspec_consult.mcp_client.manager import MCPManager, ToolError, ToolOutcome

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
