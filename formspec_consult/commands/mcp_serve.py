"""``formspec-consult mcp-serve``: the local MCP server on stdio.

stdout carries only the protocol; every log line goes to
``<project>/.formspec/consult/mcp-server.log`` (stderr stays quiet so a TUI parent is not painted over).
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from formspec_consult.devserver import DevServer


def _log_to_file(consult_dir: Path) -> None:
    consult_dir.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(consult_dir / "mcp-server.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    # Installed before the MCP server exists, so its basicConfig (a stderr handler) becomes a no-op.
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    # The SDK logs every request at INFO; one disk write per message would slow each round trip.
    logging.getLogger("mcp").setLevel(logging.WARNING)


@click.command("mcp-serve")
@click.option(
    "--project",
    "project_opt",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="FormSpec project folder (default: --project of the main command, else the current folder).",
)
@click.option(
    "--session",
    "session_id",
    default=None,
    metavar="ID",
    help="Bind to this session; 'new' starts a fresh one. Default: the project's current external "
    "session (shared by every mcp-serve started without --session), created on the first write.",
)
@click.pass_context
def mcp_serve(ctx: click.Context, project_opt: Path | None, session_id: str | None) -> None:
    """Run the local FormSpec MCP server on stdio, bound to one consultation session."""
    from formspec_consult.spec import ProjectError, open_project
    from formspec_consult.store.folder import SessionError, check_session_id

    parent = (ctx.obj or {}).get("project") if ctx.obj else None
    folder = project_opt or parent or Path.cwd()
    try:
        project = open_project(Path(folder))
        if session_id is not None:
            check_session_id(session_id)
    except (ProjectError, SessionError) as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        _log_to_file(Path(project.consult_dir))
    except OSError as exc:  # a read-only project: the setup message, exit 2, not a traceback
        from formspec_consult.commands.consult import SetupError, unwritable_message

        raise SetupError(unwritable_message(exc)) from exc

    from formspec_consult.servers.local import create_local_server, server_state

    server = create_local_server(Path(project.root), session_id)
    state = server_state(server)
    logging.getLogger(__name__).info("serving %s, session %s", project.root, state.session_id)
    _stop_dev_server_on_exit(state.devserver)
    server.run("stdio")


def _stop_dev_server_on_exit(devserver: DevServer) -> None:
    """A dev server this process started must not outlive it, even when the client kills us."""

    def stop() -> None:
        if devserver.started_here:
            devserver.stop()

    def on_term(*_: object) -> None:
        # SIGTERM is what most clients send. A normal exit could hang on the thread blocked
        # reading stdin, so clean up here and leave at once.
        stop()
        logging.shutdown()
        os._exit(0)

    atexit.register(stop)
    signal.signal(signal.SIGTERM, on_term)
