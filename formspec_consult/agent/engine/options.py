"""How to open an engine: `EngineOptions` (the CLI flags, or what a test injects).

Its own module so that opening a session (`session.py`) and the Engine (`engine.py`) both name it
without importing each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from formspec_consult.config import Settings
from formspec_consult.mcp_client.config import ServerSpec
from formspec_consult.providers.base import Provider

__all__ = ["EngineOptions", "ServerSpecs"]


class ServerSpecs(Protocol):
    """Which MCP servers a session gets (the composition root's `commands.wiring.server_specs`)."""

    def __call__(
        self, settings: Settings, project_root: Path, session_id: str, *, in_memory: bool
    ) -> list[ServerSpec]: ...


@dataclass
class EngineOptions:
    """How to open an engine (the CLI flags, or what a test injects)."""

    project: Path | None = None  # default: cwd (spec.open_project walks up)
    flags: Mapping[str, Any] = field(default_factory=dict)  # CLI flags for config.load_settings
    resume: str | None = None
    continue_latest: bool = False
    fork: bool = False  # with resume/continue_latest: open a fork of that session (store/fork.py)
    provider: Provider | None = None  # injected (tests, demo); else open_provider(settings)
    in_memory_server: bool = False  # tests: run the local server in-process
    servers: ServerSpecs | None = None  # wired by the composition root; required to open
    reply_language: str | None = None  # `--lang`: the reply language (else the owner's first message sets it)
