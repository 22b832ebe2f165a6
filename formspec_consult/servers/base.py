"""What both of our MCP servers (local and registry) share: honest capabilities and proper errors.

Two workarounds for the MCP SDK (2.3):

- ``MCPServer`` serves ``subscriptions/listen`` by default, and at protocol 2026-07-28 its
  capabilities derive ``tools/prompts/resources.listChanged`` and ``resources.subscribe`` from
  that alone, although our tool, prompt and resource lists never change and we have no
  subscribable resources. ``subscriptions=False`` leaves the method unserved, so every flag reads
  false in both handshakes.
- ``MCPServer.get_prompt`` turns an unknown prompt or a missing required argument into a plain
  ``ValueError``, which the legacy dispatcher answers with JSON-RPC code 0 and the 2026-07-28
  one with -32603 "Internal server error". Both are invalid params (-32602): we check them
  before the SDK renders the prompt.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import GetPromptResult, Icon, InputRequiredResult, ToolAnnotations
from mcp_types.jsonrpc import INVALID_PARAMS


class CitizenServer(MCPServer[Any]):
    """An ``MCPServer`` that advertises only what it has and answers bad prompt requests -32602."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("subscriptions", False)
        super().__init__(*args, **kwargs)

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | None = None,
        icons: list[Icon] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> None:
        """Register a tool; its description (the docstring) without the source indentation."""
        if description is None and fn.__doc__:
            description = inspect.cleandoc(fn.__doc__)
        super().add_tool(fn, name, title, description, annotations, icons, meta, structured_output)

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[Any, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        prompts = {prompt.name: prompt for prompt in await self.list_prompts()}
        prompt = prompts.get(name)
        if prompt is None:
            known = ", ".join(sorted(prompts)) or "none"
            raise MCPError(INVALID_PARAMS, f"Unknown prompt {name!r}. Known prompts: {known}.")
        given = arguments or {}
        missing = sorted(a.name for a in prompt.arguments or [] if a.required and a.name not in given)
        if missing:
            raise MCPError(
                INVALID_PARAMS, f"Prompt {name!r} needs the argument(s): {', '.join(missing)}."
            )
        return await super().get_prompt(name, arguments, context)


# Tool hints shared by both servers. Read-only tools are also idempotent and non-destructive
# (clients may retry them or run them without asking); every tool here works on a closed world.
READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
