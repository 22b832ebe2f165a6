"""The local MCP server: grounding, validation gate, drafts, apply/undo and dev-server control.

Built by :func:`create_local_server` (never at import time); run over stdio by
``formspec-consult mcp-serve`` or used in-process through ``mcp.Client(server)``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.types import Tool

from formspec_consult.devserver import DevServer, resolve_config
from formspec_consult.store.folder import (
    check_session_id,
    current_external_session,
    new_session_id,
    session_dir,
)
from formspec_consult.store.layout import consult_dir

NEW_SESSION = "new"  # `mcp-serve --session new`: a fresh session, even when a current one exists

if TYPE_CHECKING:
    from formspec_consult.servers.local.server import LocalServer
    from formspec_consult.servers.local.state import LocalState


def create_local_server(
    project_dir: Path,
    session_id: str | None = None,
    *,
    dev_command: list[str] | None = None,
    health_url: str | None = None,
    trusted: bool = False,
) -> LocalServer:
    """Build the local server bound to the project at (or above) ``project_dir`` and one session.

    ``session_id`` names the session; None binds to the project's current external session
    (see :func:`~formspec_consult.store.folder.current_external_session`) or, without one, a fresh
    id that becomes the current external session on its first write; ``"new"`` always starts a
    fresh one. A session folder is created only by the first write, so a server that is only
    asked to list its tools (a health check) leaves nothing behind. ``trusted`` says the person
    trusts the folder: only then does ``consult.dev_command`` in ``formspec-app.yaml`` run. Raises
    ``formspec_consult.spec.ProjectError`` when ``project_dir`` is not a FormSpec project.
    """
    from formspec_consult.servers.local.server import LocalServer
    from formspec_consult.servers.local.state import LocalState
    from formspec_consult.spec import open_project

    project = open_project(Path(project_dir))
    consult = consult_dir(Path(project.root))
    external = session_id is None or session_id == NEW_SESSION
    if session_id is None:
        session_id = current_external_session(consult)
    sid = new_session_id() if session_id is None or session_id == NEW_SESSION else check_session_id(session_id)
    folder = session_dir(consult, sid)
    devserver = DevServer(
        Path(project.root),
        consult,
        resolve_config(Path(project.root), dev_command, health_url, project_command=trusted),
    )
    state = LocalState(project=project, session_id=sid, session_folder=folder, devserver=devserver)
    state.external = "follow" if session_id is None else ("adopt" if external else "")

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[dict[str, str]]:
        try:
            yield {"session": sid}
        finally:
            # A dev server this instance started must not outlive it (no orphans).
            if devserver.started_here:
                await anyio.to_thread.run_sync(devserver.stop)

    return LocalServer(state, lifespan=lifespan)


class _CatalogueState:
    """Stands in for LocalState while the tools are only registered, never called."""

    lock = None

    @staticmethod
    def serialised(fn: Any) -> Any:
        return fn


async def tool_catalogue() -> list[Tool]:
    """The local server's tools as a client lists them (name, title, description, hints), without
    a project: what `formspec-consult skill install` writes into the skill's tool guide."""
    from formspec_consult.servers.local.server import LocalServer

    # Registering reads only `lock` and `serialised`: a stand-in state, since no tool is called.
    return await LocalServer(cast("LocalState", _CatalogueState()), name="formspec-local-catalogue").list_tools()
