"""``formspec-consult mcp-serve``: the local MCP server on stdio, or over Streamable HTTP with ``--http``.

stdout carries only the protocol; every log line goes to
``<project>/.formspec/consult/mcp-server.log`` (stderr stays quiet so a TUI parent is not painted over).
With ``--http [HOST:]PORT`` it listens on loopback only (the server has no authentication and
writes to the project), with the registry's DNS-rebinding protection, and prints its URL on stderr.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING

import click

from formspec_consult.i18n import N_, _

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from formspec_consult.devserver import DevServer


def _log_to_file(consult_dir: Path) -> None:
    from formspec_consult.store.layout import MCP_SERVER_LOG

    consult_dir.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(consult_dir / MCP_SERVER_LOG, encoding="utf-8")
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
    help=N_("FormSpec project folder (default: --project of the main command, else the current folder)."),
)
@click.option(
    "--session",
    "session_id",
    default=None,
    metavar="ID",
    help=N_("Bind to this session; 'new' starts a fresh one. Default: the project's current external "
            "session (shared by every mcp-serve started without --session), created on the first write."),
)
@click.option(
    "--http",
    "http",
    default=None,
    metavar="[HOST:]PORT",
    help=N_("Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (loopback only; 0 picks a port)."),
)
@click.option(
    "--trust-project",
    "trust_project",
    is_flag=True,
    help=N_("Honour the project's settings that need trust (consult.dev_command in formspec-app.yaml) "
            "although the folder is not trusted (`formspec-consult trust`)."),
)
@click.pass_context
def mcp_serve(
    ctx: click.Context, project_opt: Path | None, session_id: str | None, http: str | None, trust_project: bool
) -> None:
    """Run the local FormSpec MCP server on stdio, bound to one consultation session."""
    from formspec_consult.spec import ProjectError, open_project
    from formspec_consult.store.folder import SessionError, check_session_id
    from formspec_consult.store.layout import consult_dir

    parent = (ctx.obj or {}).get("project") if ctx.obj else None
    folder = project_opt or parent or Path.cwd()
    address = _http_address(http) if http is not None else None
    try:
        project = open_project(Path(folder))
        if session_id is not None:
            check_session_id(session_id)
    except (ProjectError, SessionError) as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        _log_to_file(consult_dir(Path(project.root)))
    except OSError as exc:  # a read-only project: the setup message, exit 2, not a traceback
        from formspec_consult.commands.consult import SetupError, unwritable_message

        raise SetupError(unwritable_message(exc)) from exc

    from formspec_consult.servers.local import create_local_server

    trusted = trust_project or bool((ctx.obj or {}).get("trust_project")) or _trusted(Path(project.root))
    server = create_local_server(Path(project.root), session_id, trusted=trusted)
    state = server.state
    logging.getLogger(__name__).info("serving %s, session %s", project.root, state.session_id)
    _stop_dev_server_on_exit(state.devserver, stdio=address is None)
    if address is not None:
        _serve_http(server, *address)
        return
    import anyio

    from formspec_consult.servers.stdio_guard import serve_stdio

    anyio.run(serve_stdio, server)


def _trusted(root: Path) -> bool:
    """Whether the person trusts the folder (or it asks for nothing that needs trust). Nobody is at
    the terminal to ask (Claude Code, Cursor start this): untrusted, those settings are simply left
    out and the server starts all the same; a broken settings file trusts nothing."""
    from formspec_consult.config import ConfigError, trust_request

    try:
        return trust_request(root) is None
    except ConfigError:
        return False


_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _http_address(value: str) -> tuple[str, int]:
    """Parse ``[HOST:]PORT`` (``[::1]:PORT`` for IPv6); refuse anything that is not loopback."""
    host, sep, port_text = value.strip().rpartition(":")
    host = host.strip("[]") if sep else "127.0.0.1"
    if not port_text.isdigit() or int(port_text) > 65535:
        raise click.BadParameter(
            _("{value!r} is not [HOST:]PORT, e.g. 8766 or 127.0.0.1:8766.").format(value=value), param_hint="--http"
        )
    if host not in _LOOPBACK:
        raise click.BadParameter(
            _("{host!r} is not a loopback address. The local server has no authentication and writes to your project, so it listens only on 127.0.0.1, localhost or ::1.").format(host=host),
            param_hint="--http",
        )
    return host, int(port_text)


def _serve_http(server: MCPServer, host: str, port: int) -> None:
    import uvicorn

    from formspec_consult.servers.http_edge import bind_socket, dns_rebinding_protection

    sock = bind_socket(host, port)
    bound = sock.getsockname()[1]
    app = server.streamable_http_app(
        streamable_http_path="/mcp", transport_security=dns_rebinding_protection(host), host=host
    )
    shown = f"[{host}]" if ":" in host else host
    click.echo(_("formspec-consult mcp-serve: http://{shown}:{bound}/mcp").format(shown=shown, bound=bound), err=True)
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", access_log=False, timeout_graceful_shutdown=2
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])  # uvicorn shuts down cleanly on SIGINT and SIGTERM
    except KeyboardInterrupt:  # uvicorn re-raises the SIGINT it captured once it has shut down
        raise SystemExit(130) from None


def _stop_dev_server_on_exit(devserver: DevServer, *, stdio: bool) -> None:
    """A dev server this process started must not outlive it, even when the client kills us.

    On stdio, SIGTERM and SIGINT (Ctrl-C) end the process at once: a normal exit waits for the
    thread blocked reading stdin, so without this it ran on until the client closed its stdin.
    Over HTTP uvicorn handles both signals and shuts down cleanly; atexit stops the dev server.
    """

    def stop() -> None:
        if devserver.started_here:
            devserver.stop()

    def on_signal(signum: int, _frame: object) -> None:
        stop()
        logging.shutdown()
        os._exit(130 if signum == signal.SIGINT else 0)

    atexit.register(stop)
    if stdio:
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
