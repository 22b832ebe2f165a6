"""A tiny stdio MCP server for the client tests: echo, a tool that kills its own process, a hang,
and a tool that reports the environment it was given (to prove the parent env is not leaked)."""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError


def build(name: str = "fake") -> MCPServer:
    server = MCPServer(name)

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @server.tool()
    def fail(reason: str) -> str:
        """Always fails with the reason."""
        raise ToolError(reason)

    @server.tool()
    def die() -> str:
        """Kill this server process mid-call."""
        os._exit(9)

    @server.tool()
    async def hang() -> str:
        """Never answers."""
        await anyio.sleep_forever()
        return ""

    @server.tool()
    def env(name: str) -> str:
        """The value of an environment variable in the server, or <unset>."""
        return os.environ.get(name, "<unset>")

    @server.tool()
    def pid() -> str:
        """This server's process id."""
        return str(os.getpid())

    return server


if __name__ == "__main__":
    build(sys.argv[1] if len(sys.argv) > 1 else "fake").run()
