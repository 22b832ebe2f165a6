"""Dev-server tools: restart (after validating), status and stop."""

from __future__ import annotations

from typing import cast

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from formspec_consult.servers.base import READ_ONLY
from formspec_consult.servers.local.results import Restarted, ServerStatus, Stopped
from formspec_consult.servers.local.state import LocalState, tool_errors

CONTROL = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


def register(server: MCPServer, state: LocalState) -> None:
    """Add the dev-server tools to ``server``."""

    @server.tool(title="Restart the dev server", annotations=CONTROL, structured_output=True)
    @state.serialised
    def restart_server() -> Restarted:
        """Validate the project, then (re)start the dev server."""
        result = state.project.validate(None).to_dict()
        if not result["ok"]:
            first = result["problems"][0]
            raise ToolError(
                f"Not restarting: the project has {len(result['problems'])} validation problem(s) "
                f"(first: {first.get('source')}: {first.get('message')}). Fix them, then restart."
            )
        stopped = state.devserver.stop()
        started = state.devserver.start()
        restarted = {**started, "was_running": bool(stopped.get("stopped")), "log": str(state.devserver.log_path)}
        return cast(Restarted, restarted)

    @server.tool(title="Dev server status", annotations=READ_ONLY, structured_output=True)
    @tool_errors
    def get_server_status() -> ServerStatus:
        """Whether the dev server runs: running, pid, health."""
        return state.devserver.status()  # type: ignore[return-value]

    @server.tool(title="Stop the dev server", annotations=CONTROL, structured_output=True)
    @tool_errors
    def stop_server() -> Stopped:
        """Stop the dev server and every process it started."""
        with state.lock:
            return state.devserver.stop()  # type: ignore[return-value]
