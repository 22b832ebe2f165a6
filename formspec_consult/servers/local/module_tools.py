"""The tool that installs a registry module into the project: the next step after a registry
search found a module that fits, taken only with the person's approval (a guarded tool)."""

from __future__ import annotations

from typing import Annotated, TypedDict

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from formspec_consult.servers.local.draft_tools import SessionArg
from formspec_consult.servers.local.results import Validation
from formspec_consult.servers.local.state import LocalState
from formspec_consult.store.install import InstallRefused, install_module

# It changes the project (not read-only) but only adds: it refuses to overwrite anything and is
# undone as one step (not destructive). A second call is refused, not repeated (not idempotent).
MODULE_INSTALL = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)


class Installed(TypedDict):
    installed: str
    version: str
    source: str
    folder: str
    files: list[str]
    checksum: str
    lock: str
    app: str
    active: bool
    undo_steps: int
    validation: Validation


def register(server: MCPServer, state: LocalState) -> None:
    """Add `install_module` to ``server``."""

    @server.tool(name="install_module", title="Install a registry module", annotations=MODULE_INSTALL,
                 structured_output=True)
    @state.serialised
    def install_module_tool(
        name: Annotated[str, Field(description="Registry module name.", max_length=100)],
        activate: Annotated[bool, Field(strict=True, description="Add it to the App's modules.")] = True,
        session: SessionArg = None,
    ) -> Installed:
        """Install a registry module as `formspec module install` does (vendors/, formspec.lock);
        undoable."""
        from formspec_consult.registry.packages import install_command, package_files, shipped_record

        record = shipped_record(name)
        if record is None:
            raise InstallRefused(
                f"The files of {name!r} do not ship with this consultant, so it cannot be installed from here. "
                f"Offer the person FormSpec's command, to run in the project folder: `{install_command(name)}` "
                "(or check the name with the registry search)."
            )
        return install_module(  # type: ignore[return-value]
            state.review(session), name=record.name, version=record.version, source=record.source,
            files=package_files(name), trust_tier=record.trust_tier, activate=activate,
        )
