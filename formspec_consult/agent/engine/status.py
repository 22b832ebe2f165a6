"""`Engine.status()` as a typed record: what the status bar, `/status` (TUI and headless), `/mcp`
and `--json` render, and what every stand-in engine (the replay player, test fakes) returns.

Importing this module is cheap (no MCP SDK, no provider): the app reads it before the engine exists.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only the type: the MCP client package loads the SDK
    from formspec_consult.mcp_client.status import ServerState, ServerStatus

__all__ = ["EngineStatus", "ServerState", "ServerStatus"]


@dataclass(frozen=True)
class EngineStatus:
    """Model, provider, session, context use (reported or estimated), cost, turn, MCP servers."""

    model: str
    provider: str
    session: str
    session_dir: str = ""
    project: str = ""
    context_tokens: int = 0  # reported by the provider, or estimated locally (`reported`)
    threshold_tokens: int = 0  # the history is compacted at this size
    window_tokens: int = 0  # the usable window (the model's window less the output reserve)
    reported: bool = False
    cost: float | None = None  # None: not known for this model
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    compactions: int = 0
    turn: int = 0
    mcp: tuple[ServerStatus, ...] = ()
    mcp_log: str | None = None  # the local server's stderr log
    mcp_note: str | None = None  # said instead of the servers when there are none (a replay)
    model_loading: bool = False  # the session is open, its model layer still loading (no figures yet)
    phase: str = ""  # discovery | draft | iterate (agent/engine/phase.py); "" while unknown

    def to_json(self) -> dict[str, Any]:
        """A JSON object of every field; the servers as objects."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["mcp"] = [server.to_json() for server in self.mcp]
        return data

    def server(self, name: str) -> ServerStatus | None:
        """The named MCP server's state, or None."""
        return next((s for s in self.mcp if s.name == name), None)
