"""The state of one MCP server as the engine reports it (`Engine.status().mcp`).

A typed record, so every renderer (the TUI's tool pane and `/status`, headless `/status`, `--json`)
and every test fake reads the same fields and the same states: the states are exactly those a
:class:`~formspec_consult.mcp_client.connection.ServerConnection` goes through.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

ServerState = Literal["stopped", "starting", "running", "dead"]
SERVER_STATES: tuple[ServerState, ...] = get_args(ServerState)

__all__ = ["SERVER_STATES", "ServerState", "ServerStatus"]


@dataclass(frozen=True)
class ServerStatus:
    """One server: its name, transport, state, tool count, last error, restarts and stderr log."""

    name: str
    state: ServerState
    transport: str = "stdio"
    tools: int = 0
    error: str | None = None
    reinitialised: int = 0  # sessions re-created after an HTTP server lost one
    log: str | None = None  # the file its stderr goes to (stdio servers)
    restarts: int = 0  # automatic restarts since the last manual one

    def __post_init__(self) -> None:
        if self.state not in SERVER_STATES:
            raise ValueError(f"MCP server state must be one of {', '.join(SERVER_STATES)}, got {self.state!r}")

    @property
    def in_trouble(self) -> bool:
        """Not running, or running with an error left from before."""
        return self.state in {"dead", "stopped"} or bool(self.error)

    def to_json(self) -> dict[str, Any]:
        """As the JSON object `--json` and older status dicts spelled it."""
        return asdict(self)
