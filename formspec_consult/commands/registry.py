"""`registry-serve` and `registry import`: run the registry, and load modules/templates into it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import click

from formspec_consult.i18n import N_, _
from formspec_consult.registry.models import TRUST_TIERS, TrustTier
from formspec_consult.servers.registry_guard import DEFAULT_BURST, DEFAULT_RATE

if TYPE_CHECKING:
    from formspec_consult.registry.store import RegistryStore

TOKEN_ENV = "FORMSPEC_REGISTRY_TOKEN"
_DB_HELP = "Database URL: postgresql://… or sqlite:///path (default: $FORMSPEC_REGISTRY_DB, else a per-user SQLite file)."


def _open(db: str | None) -> RegistryStore[Any]:
    """Open the store, turning configuration and catalogue problems into a clean CLI error."""
    from formspec_consult.registry.db import open_store
    from formspec_consult.registry.documents import CatalogueError

    try:
        return open_store(db)
    except (ValueError, ConnectionError, CatalogueError) as exc:
        raise click.ClickException(str(exc)) from exc


@click.command("registry-serve")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help=N_("Interface to bind (loopback unless told otherwise)."),
)
@click.option(
    "--port",
    default=8765,
    show_default=True,
    type=click.IntRange(0, 65535),
    help=N_("TCP port (0 picks a free one)."),
)
@click.option("--db", default=None, metavar="URL", help=_DB_HELP)
@click.option(
    "--token", default=None, help=f"Require this bearer token (default: ${TOKEN_ENV}; unset means no auth)."
)
@click.option(
    "--stdio",
    is_flag=True,
    help=N_("Serve over stdio instead of HTTP (what the engine uses for the bundled registry)."),
)
@click.option(
    "--rate",
    default=DEFAULT_RATE,
    show_default=True,
    type=click.FloatRange(0),
    help=N_("Requests per second per client (0: no limit)."),
)
@click.option("--burst", default=DEFAULT_BURST, show_default=True, type=click.IntRange(1), help=N_("Burst size per client."))
@click.option(
    "--max-body",
    default=64 * 1024,
    show_default=True,
    type=click.IntRange(1024),
    help=N_("Largest request body in bytes."),
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help=N_("Server processes sharing the port (HTTP only)."),
)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="HOST[:PORT]",
    help=N_("Extra Host header value to accept (DNS-rebinding protection)."),
)
def registry_serve(
    host: str,
    port: int,
    db: str | None,
    token: str | None,
    stdio: bool,
    rate: float,
    burst: int,
    max_body: int,
    workers: int,
    allow_hosts: tuple[str, ...],
) -> None:
    """Serve business templates and the module registry over MCP (Streamable HTTP at /mcp)."""
    from formspec_consult.servers.registry import create_registry_server

    token = token or os.environ.get(TOKEN_ENV) or None
    store = _open(db)
    server = create_registry_server(store=store, token=token)
    try:
        if stdio:
            server.run("stdio")
            return
        from formspec_consult.servers.registry_http import HttpLimits, http_server, run_workers

        if host not in ("127.0.0.1", "localhost", "::1") and not token:
            click.echo(
                _("warning: serving on {host} without a token; anyone who can reach it may query it").format(host=host), err=True
            )
        limits = HttpLimits(
            rate_per_second=rate, burst=burst, max_body_bytes=max_body, allowed_hosts=allow_hosts
        )
        click.echo(_("formspec registry on http://{host}:{port}/mcp ({store})").format(host=host, port=port, store=store.url.split('@')[-1]), err=True)
        if workers > 1:
            # The store above has seeded the database; each worker opens its own connections.
            run_workers(store.url, token=token, host=host, port=port, limits=limits, workers=workers)
        else:
            http_server(server, host=host, port=port, limits=limits, log_level="info").run()
    finally:
        server.close()


@click.group("registry")
def registry() -> None:
    """Manage the registry database."""


@registry.command("import")
@click.argument("target", type=click.Path(path_type=Path))
@click.option("--db", default=None, metavar="URL", help=_DB_HELP)
@click.option(
    "--trust-tier",
    type=click.Choice(TRUST_TIERS),
    default=None,
    help=N_("Tier to record (default: formspec.lock's, else community)."),
)
def import_cmd(target: Path, db: str | None, trust_tier: str | None) -> None:
    """Load module.yaml files (ai_index + lock metadata) and business templates from TARGET (a file or folder).

    Everything is validated first and written in one transaction; re-importing is idempotent.
    """
    from formspec_consult.registry.documents import CatalogueError
    from formspec_consult.registry.importer import import_path

    store = _open(db)
    try:
        result = import_path(store, target, trust_tier=cast(TrustTier | None, trust_tier))
    except CatalogueError as exc:
        raise click.ClickException(_("{exc}\nNothing was imported.").format(exc=exc)) from exc
    finally:
        store.close()
    for kind, records in (("template", result.templates), ("module", result.modules)):
        for name, change in sorted(records.items()):
            click.echo(f"{change:9} {kind} {name}")
    click.echo(
        _("Imported into {store}: {added} added, {updated} updated, {unchanged} unchanged.").format(
            store=store.url.split('@')[-1], added=result.count('added'), updated=result.count('updated'),
            unchanged=result.count('unchanged'))
    )


@registry.group("token")
def token_group() -> None:
    """Store the bearer token of a remote registry in the OS keyring (for the consultant)."""


@token_group.command("set")
@click.argument("url")
@click.option("--token", prompt=True, hide_input=True, help=N_("The token (asked for when omitted)."))
def token_set(url: str, token: str) -> None:
    """Remember TOKEN for the registry at URL (used when FORMSPEC_REGISTRY_TOKEN is unset)."""
    from formspec_consult.providers.registry_credentials import store_registry_token

    try:
        account = store_registry_token(url, token.strip())
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    except Exception as exc:  # any keyring backend failure: point at the env variable instead
        raise click.ClickException(
            _("The OS keyring refused the token ({name}); set {TOKEN_ENV} instead.").format(name=type(exc).__name__, TOKEN_ENV=TOKEN_ENV)
        ) from exc
    click.echo(_("Stored the registry token in the OS keyring ({account}).").format(account=account))


@token_group.command("clear")
@click.argument("url")
def token_clear(url: str) -> None:
    """Forget the stored token for the registry at URL."""
    from formspec_consult.providers.registry_credentials import forget_registry_token

    try:
        removed = forget_registry_token(url)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(_("Removed the stored registry token.") if removed else _("No token was stored for that registry."))
