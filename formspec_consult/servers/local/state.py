"""What one local server instance is bound to: a project, a session and a dev server."""

from __future__ import annotations

import functools
import inspect
import logging
import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from formspec_consult.devserver import DevServer, DevServerError
from formspec_consult.errors import UserError
from formspec_consult.spec.errors import ProjectError, SkillNotFound, UnknownKind

if TYPE_CHECKING:
    from formspec_consult.spec.project import Project
from formspec_consult.store.apply import ApplyRefused
from formspec_consult.store.drafts import DraftError
from formspec_consult.store.folder import (
    SessionError,
    current_external_session,
    existing_session,
    set_current_external_session,
)
from formspec_consult.store.install import InstallRefused
from formspec_consult.store.layout import consult_dir
from formspec_consult.store.locks import external_session_claim
from formspec_consult.store.paths import PathRefused, tool_path
from formspec_consult.store.review import SessionReview
from formspec_consult.store.review_log import ReviewJournal
from formspec_consult.store.undo import UndoError

_log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")

# Errors the caller can fix: their message goes back as the tool error (is_error: true).
EXPECTED_ERRORS: tuple[type[Exception], ...] = (
    PathRefused,
    DraftError,
    SessionError,
    ApplyRefused,
    UndoError,
    DevServerError,
    ProjectError,
    SkillNotFound,
    UnknownKind,
    InstallRefused,
)


def tool_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn the expected errors of ``fn`` into ``ToolError`` so the model reads the message."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except EXPECTED_ERRORS as exc:
            # the model is addressed in English, whatever language the person's errors are said in
            message = (exc.args[0] if isinstance(exc, LookupError) and exc.args
                       else exc.untranslated() if isinstance(exc, UserError) else str(exc))
            raise ToolError(str(message)) from exc
        except OSError as exc:  # disk full, permissions: the person can fix these, so say which
            where = f" ({exc.filename})" if exc.filename else ""
            raise ToolError(
                f"File system error: {exc.strerror or exc}{where}. "
                "Check free space and permissions, then retry."
            ) from exc
        except ToolError:
            raise
        except Exception as exc:  # a bug of ours: still say what happened, never an empty error
            _log.exception("tool %s failed", fn.__name__)
            detail = str(exc) or "no details"
            raise ToolError(
                f"{fn.__name__} failed inside formspec-consult ({type(exc).__name__}: {detail[:300]}). "
                "This is not a problem of the arguments: nothing was written. Retry once; if it "
                "fails again, tell the person (the MCP server log has the details)."
            ) from exc

    # The docstring is the tool description the model reads: drop the source indentation.
    wrapper.__doc__ = inspect.cleandoc(fn.__doc__ or "")
    return wrapper


@dataclass
class LocalState:
    """The project, bound session and dev server behind one local MCP server."""

    project: Project
    session_id: str
    session_folder: Path
    devserver: DevServer
    # Tools run in worker threads; writes to one session must not interleave.
    lock: threading.RLock = field(default_factory=threading.RLock)
    _reviews: dict[str, SessionReview] = field(default_factory=dict)
    # The external-session rule (mcp-serve without --session): "follow" = no current external
    # session yet, so until our first write take the one another server may create meanwhile;
    # "adopt" = make ours the current one once it is written; "" = an explicit --session.
    external: str = ""

    def serialised(self, fn: Callable[P, R]) -> Callable[P, R]:
        """``tool_errors`` plus the server lock: tools run in worker threads, and the project's
        parse cache and the session files are not meant for concurrent use."""
        guarded = tool_errors(fn)

        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            self.check_project()
            # Until the first write, another mcp-serve without --session may be choosing too:
            # choose, write and name the current session under one claim across processes.
            claim = external_session_claim(Path(self.project.root)) if self.external else nullcontext()
            with self.lock, claim:
                self._follow_external()
                try:
                    return guarded(*args, **kwargs)
                finally:
                    self._adopt_external()

        wrapper.__doc__ = guarded.__doc__
        return wrapper

    def _follow_external(self) -> None:
        if self.external != "follow" or self.session_folder.exists():
            return
        current = current_external_session(self.consult_dir)
        if current is not None and current != self.session_id:  # another server wrote first
            self.session_id, self.session_folder = current, self.consult_dir / current
            self._reviews.clear()
            self.external = "adopt"

    def _adopt_external(self) -> None:
        if not self.external or not self.session_folder.is_dir():
            return  # nothing written yet: a health check leaves no session behind
        if current_external_session(self.consult_dir) != self.session_id:
            set_current_external_session(self.consult_dir, self.session_id)
        self.external = ""

    def check_project(self) -> None:
        """Raise a ``ToolError`` that says what to do when the project folder has gone."""
        if not Path(self.project.root).is_dir():
            raise ToolError(
                f"The project folder {self.project.root} no longer exists (moved or deleted). "
                "Restart the MCP server with --project pointing at the project."
            )

    @property
    def consult_dir(self) -> Path:
        """``<project>/.formspec/consult``."""
        return consult_dir(Path(self.project.root))

    def tool_path(self, project_rel: str) -> str:
        """The path to give write tools for a file known by its project-relative path."""
        return tool_path(
            project_rel, project_root=Path(self.project.root), spec_root=Path(self.project.spec_root)
        )

    def session(self, session_id: str | None) -> tuple[str, Path]:
        """The bound session, or the given one, which must exist."""
        if session_id is None or session_id == "" or session_id == self.session_id:
            return self.session_id, self.session_folder
        return session_id, existing_session(self.consult_dir, session_id)

    def review(self, session_id: str | None = None) -> SessionReview:
        """The draft/undo view of a session (cached per session)."""
        sid, folder = self.session(session_id)
        if sid not in self._reviews:
            self._reviews[sid] = SessionReview(self.project, folder, journal=ReviewJournal(folder))
        return self._reviews[sid]
