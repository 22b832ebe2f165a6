"""Building an engine's parts: the project, the usable window, the session folder.

Kept apart from :mod:`engine` so the Engine class reads as the contract it is. Which MCP servers a
session gets is decided by the composition root (`commands.wiring.server_specs`), handed in as
``EngineOptions.servers``: the agent never imports a server.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from formspec_consult.store import layout

if TYPE_CHECKING:
    from formspec_consult.config import Settings
    from formspec_consult.providers.base import Provider

LOCAL = "formspec"  # the local server's name in status and tool routing
REGISTRY = "registry"


def resolve_project(project: Path | None) -> Path:
    """The project root (spec.open_project walks up from `project` or the cwd); ProjectError propagates."""
    from formspec_consult.spec import open_project

    opened = open_project(Path(project) if project is not None else Path.cwd())
    return Path(opened.root).resolve()


def consult_dir(project_root: Path) -> Path:
    return layout.consult_dir(project_root)


def usable_window(settings: Settings, provider: Provider) -> tuple[int, int]:
    """(window, usable): the context window (config override first) and it minus reserved output."""
    window = int(settings.context_window or provider.context_window)
    reserved = min(int(settings.reserved_output), int(provider.max_output_tokens or settings.reserved_output))
    return window, max(1024, window - reserved)
