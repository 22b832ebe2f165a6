"""Where a session lives on disk — the one place these names are spelled.

``<project>/.formspec/consult/<session>/`` holds ``events.jsonl`` (append-only, the source of
truth), ``transcript.md`` (human-readable, written as it happens), ``discovery-summary.md``,
``drafts.json`` (every draft's record and state), ``draft/`` and ``undo/NNNN/`` (``meta.json``,
``before``, ``after``); ``.formspec/consult/external-session`` names the session external MCP
clients share, the MCP servers' stderr goes to ``.formspec/consult/mcp-*.log`` and the per-file
apply/undo locks to ``.formspec/locks/``. ``tests/store/test_layout_names.py`` checks that no
other module spells them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

STATE_DIR = ".formspec"  # formspec-consult's own state inside a project (never written by tools)
CONSULT_DIR = "consult"
EVENTS = "events.jsonl"
TRANSCRIPT = "transcript.md"
SUMMARY = "discovery-summary.md"
DRAFT = "draft"
UNDO = "undo"
MANIFEST = "drafts.json"
UNDO_META = "meta.json"  # in each undo step folder, written last
EXTERNAL_SESSION = "external-session"  # in the consult dir: the session external clients share
LOCKS = "locks"  # in the state dir: one lock file per target file being applied or undone
MCP_SERVER_LOG = "mcp-server.log"
MCP_REGISTRY_LOG = "mcp-registry.log"


def state_dir(project_root: Path) -> Path:
    """``<project>/.formspec``: formspec-consult's own state in a project."""
    return Path(project_root) / STATE_DIR


def consult_dir(project_root: Path) -> Path:
    """``<project>/.formspec/consult``: every session folder of a project is in here."""
    return state_dir(project_root) / CONSULT_DIR


def project_of_session(folder: Path) -> Path | None:
    """The project a session folder belongs to, when it sits at ``.formspec/consult/<id>``."""
    parents = Path(folder).resolve().parents
    if len(parents) >= 3 and parents[0].name == CONSULT_DIR and parents[1].name == STATE_DIR:
        return parents[2]
    return None


@dataclass(frozen=True)
class SessionLayout:
    """The files of one session folder."""

    folder: Path

    @property
    def events(self) -> Path:
        return self.folder / EVENTS

    @property
    def transcript(self) -> Path:
        return self.folder / TRANSCRIPT

    @property
    def summary(self) -> Path:
        return self.folder / SUMMARY

    @property
    def draft(self) -> Path:
        return self.folder / DRAFT

    @property
    def undo(self) -> Path:
        return self.folder / UNDO

    @property
    def manifest(self) -> Path:
        return self.folder / MANIFEST

    def is_session(self) -> bool:
        """A folder with a log or a transcript is a session (a bare folder is not)."""
        return self.events.is_file() or self.transcript.is_file()
