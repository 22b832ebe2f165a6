"""The running session an Engine drives: what :mod:`~formspec_consult.agent.engine.assembly` built
from an :class:`~formspec_consult.agent.engine.opening.Opening`, and how it closes.

A session is opened in three steps, each a module of its own: `opening` (the folder claimed, the
servers started, the context collected, beside the model layer's warm-up), `assembly` (the tools,
compressor, transcript and loop built from those parts) and `lifecycle` (the start or resume
records written, the window's fit checked).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from formspec_consult.agent.compaction.compress import Compressor
from formspec_consult.agent.history.history import History
from formspec_consult.agent.language.lock import ReplyLanguage
from formspec_consult.agent.loop.loop import AgentLoop
from formspec_consult.config import Settings
from formspec_consult.mcp_client.manager import MCPManager
from formspec_consult.providers.base import Provider
from formspec_consult.store.events import EventLog
from formspec_consult.store.locks import SessionWriter
from formspec_consult.store.records import EventRecord

if TYPE_CHECKING:
    from formspec_consult.agent.engine.phase import PhaseTracker
    from formspec_consult.store.transcript import Transcript


@dataclass(kw_only=True)
class Session:
    """Everything an Engine drives; built by :func:`~formspec_consult.agent.engine.assembly.assemble`."""

    session_id: str
    session_dir: Path
    project_root: Path
    settings: Settings
    provider: Provider
    manager: MCPManager
    log: EventLog
    history: History
    compressor: Compressor
    loop: AgentLoop
    window: int
    transcript: Transcript
    resumed_events: list[EventRecord] = field(default_factory=list)
    start_problems: list[str] = field(default_factory=list)
    writer: SessionWriter | None = None  # this process's single-writer claim on the session
    phase: PhaseTracker | None = None  # set when the session starts or resumes (lifecycle.py)
    language: ReplyLanguage = field(default_factory=ReplyLanguage)  # the reply language, once set

    async def aclose(self) -> None:
        """Stop the servers (each releases what it holds), close the log, release the claim."""
        try:
            await self.manager.aclose()
        finally:
            self.log.close()
            if self.writer is not None:
                self.writer.release()
