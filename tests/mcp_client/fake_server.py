"""A tiny stdio MCP server for the client tests: echo, a tool that kills its own process, a hang,
a tool that reports the environment it was given (to prove the parent env is not leaked), names
no provider accepts (`files.read`, 65 characters), and `grow`, which adds a tool and says so
with `notifications/tools/list_changed`. Its tools declare themselves read-only (MCP's readOnlyHint)
but `grow` (an additive write) and the tools it adds (no annotation: a write, by MCP's defaults),
so a client asks the person before those two."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import ToolAnnotations
from pydantic import Field

PIXEL = bytes.fromhex(  # a 1×1 PNG
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005fe02fea7d6a4a50000000049454e44ae426082"
)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False)
ADDITIVE = ToolAnnotations(read_only_hint=False, destructive_hint=False)
LONG_NAME = "summarise_every_open_purchase_order_of_the_current_fiscal_year_xy"  # 65 characters


def build(name: str = "fake") -> MCPServer:
    server = MCPServer(name)

    @server.tool(annotations=READ_ONLY)
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @server.tool(annotations=READ_ONLY)
    def fail(reason: str) -> str:
        """Always fails with the reason."""
        raise ToolError(reason)

    @server.tool(annotations=READ_ONLY)
    def crash() -> str:
        """Crashes with an exception that says nothing (the SDK then hides it as well)."""
        raise RuntimeError()

    @server.tool(annotations=READ_ONLY)
    def die() -> str:
        """Kill this server process mid-call."""
        os._exit(9)

    @server.tool(annotations=READ_ONLY)
    async def hang() -> str:
        """Never answers."""
        await anyio.sleep_forever()
        return ""

    @server.tool(annotations=READ_ONLY)
    def env(name: str) -> str:
        """The value of an environment variable in the server, or <unset>."""
        return os.environ.get(name, "<unset>")

    @server.tool(annotations=READ_ONLY)
    def pid() -> str:
        """This server's process id."""
        return str(os.getpid())

    @server.tool(name="files.read", annotations=READ_ONLY)
    def files_read(path: str) -> str:
        """A dotted name, as filesystem servers have."""
        return f"{name} read {path}"

    @server.tool(annotations=READ_ONLY)
    def find(
        query: Annotated[str, Field(description="What to find.", max_length=50)],
        title: Annotated[str | None, Field(description="Only items with this title.")] = None,
        limit: Annotated[int, Field(ge=1, le=9)] = 3,
    ) -> str:
        """Pydantic's schema shapes: titles everywhere, an optional as anyOf with null, a property named title."""
        return f"{query} {title} {limit}"

    @server.tool(name=LONG_NAME, annotations=READ_ONLY)
    def long_name() -> str:
        """A name over the providers' 64 characters."""
        return f"{name} long"

    @server.tool(annotations=READ_ONLY)
    def whoami(ctx: Context) -> str:
        """The client's name and version, as it introduced itself."""
        params = ctx.session.client_params
        info = params.client_info if params is not None else None
        return f"{info.name} {info.version}" if info is not None else "anonymous"

    @server.tool(annotations=READ_ONLY)
    def picture() -> list[str | Image]:
        """A caption and a 1×1 PNG."""
        return ["a picture:", Image(data=PIXEL, format="png")]

    @server.tool(annotations=ADDITIVE)
    async def grow(tool: str, ctx: Context) -> str:
        """Add a tool named `tool` (it answers "grown <tool>") and notify the client."""

        def grown() -> str:
            return f"grown {tool}"

        server.add_tool(grown, name=tool, description="Added while the session ran.")
        await ctx.session.send_tool_list_changed()
        return f"added {tool}"

    return server


def hold_at_the_gate() -> None:
    """A server slow to start, under the test's control: with FAKE_SERVER_ALIVE set, write that
    file once the process runs; with FAKE_SERVER_GATE set, serve only once that file exists."""
    import time
    from pathlib import Path

    alive, gate = os.environ.get("FAKE_SERVER_ALIVE"), os.environ.get("FAKE_SERVER_GATE")
    if alive:
        Path(alive).write_text(str(os.getpid()), encoding="utf-8")
    deadline = time.monotonic() + 120
    while gate and not Path(gate).exists() and time.monotonic() < deadline:
        time.sleep(0.02)


if __name__ == "__main__":
    hold_at_the_gate()
    if "--banner" in sys.argv:  # a line on the wire that is not JSON-RPC, as many servers print at start
        os.write(1, b"fake server 1.0 starting, this line is not JSON\n")
    build(sys.argv[1] if len(sys.argv) > 1 else "fake").run()
