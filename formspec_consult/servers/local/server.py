"""The local MCP server's type: a `CitizenServer` that owns its typed state and registers its
tool groups from one tuple (as `servers/registry.py`'s `RegistryServer` owns its store)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from mcp.server.mcpserver import MCPServer

from formspec_consult import __version__
from formspec_consult.servers.base import CitizenServer
from formspec_consult.servers.local import dev_tools, draft_tools, extra_tools, module_tools, read_tools
from formspec_consult.servers.local.state import LocalState

INSTRUCTIONS = (
    "Tools for one FormSpec project on this machine. Ground yourself with read_workspace_manifest, "
    "list_installed_modules and list_skills; look up kinds with list_kind_schemas. Write spec YAML only "
    "through propose_spec_file (it creates a draft and validates it); fix every problem it reports. "
    "Drafts are applied with apply_draft after the person reviewed them; undo_apply reverts. vendors/ "
    "is read-only: extend vendor entities with an Entity Extension or shadow them in overrides/."
)

# Every tool group of the local server, in the order a client lists them: a new group is added
# here and nowhere else (the server, the skill's tool catalogue and the tests all read this).
TOOL_GROUPS: tuple[Callable[[MCPServer, LocalState], None], ...] = (
    read_tools.register,
    draft_tools.register,
    dev_tools.register,
    extra_tools.register,
    module_tools.register,
)

Lifespan = Callable[[MCPServer], AbstractAsyncContextManager[Any]]


class LocalServer(CitizenServer):
    """The local FormSpec server bound to one project and session: `state` is what its tools share."""

    def __init__(
        self,
        state: LocalState,
        *,
        name: str = "formspec-local",
        lifespan: Lifespan | None = None,
    ) -> None:
        options: dict[str, Any] = {"lifespan": lifespan} if lifespan is not None else {}
        super().__init__(
            name,
            title="FormSpec (local project)",
            instructions=INSTRUCTIONS,
            version=__version__,
            **options,
        )
        self.state = state
        for register in TOOL_GROUPS:
            register(self, state)

