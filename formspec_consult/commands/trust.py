"""`formspec-consult trust [--revoke | --status | --list]`: trust a project folder's settings.

A project's `.formspec/consult.yaml` may ask for things only the person can allow: MCP servers that
run commands, a model endpoint, the variable a key is read from, a registry, write tools without
asking (see `config.trust`). Until the folder is trusted those settings are left out. `trust`
shows exactly what the file asks for and records the folder (its real path, the file's SHA-256)
in the user's config folder; a changed file is untrusted again.
"""

from __future__ import annotations

from pathlib import Path

import click

from formspec_consult.config import ConfigError, project_config_path, trust_request
from formspec_consult.config import trust as store
from formspec_consult.config.trust import digest_of, folder_key, trust_file, trusted_folders
from formspec_consult.i18n import N_, _


def _project(ctx: click.Context, option: Path | None) -> Path:
    from formspec_consult.spec import ProjectError, open_project

    folder = option or (ctx.obj or {}).get("project") or Path.cwd()
    try:
        return Path(open_project(Path(folder)).root)
    except ProjectError as exc:
        raise click.ClickException(str(exc)) from exc


def _file_digest(root: Path) -> str:
    path = project_config_path(root)
    try:
        return digest_of(path.read_bytes())
    except FileNotFoundError:
        return digest_of(b"")
    except OSError as exc:
        raise click.ClickException(_("{path}: cannot be read ({strerror})").format(path=path, strerror=exc.strerror)) from exc


@click.command("trust")
@click.option("--project", "project_opt", type=click.Path(file_okay=False, path_type=Path), default=None,
              help=N_("The project folder (default: --project of the main command, else the current folder)."))
@click.option("--revoke", is_flag=True, help=N_("Stop trusting the folder: its settings are left out again."))
@click.option("--status", is_flag=True, help=N_("Say whether the folder is trusted and what its settings ask for."))
@click.option("--list", "list_", is_flag=True, help=N_("List every trusted folder."))
@click.pass_context
def trust_command(ctx: click.Context, project_opt: Path | None, revoke: bool, status: bool, list_: bool) -> None:
    """Trust this project folder's settings (MCP servers, model endpoint, key variable, registry,
    write tools allowed without asking) after showing exactly what they ask for."""
    if sum((revoke, status, list_)) > 1:
        raise click.UsageError(_("use one of --revoke, --status, --list"))
    if list_:
        _list()
        return
    root = _project(ctx, project_opt)
    if revoke:
        _revoke(root)
        return
    try:
        request = trust_request(root, include_trusted=True)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    digest = request.digest if request is not None else _file_digest(root)
    trusted = store.is_trusted(root, digest)
    if request is None:
        click.echo(_("{file} asks for nothing that needs trust.").format(file=project_config_path(root)))
    else:
        click.echo(_("This project's settings ({keys}) ask to:").format(keys=', '.join(request.keys)))
        for line in request.wants:
            click.echo(f"  - {line}")
    if status:
        known = folder_key(root) in trusted_folders()
        said = _("trusted") if trusted else (_("changed since you trusted it") if known else _("not trusted"))
        click.echo(f"{folder_key(root)}: {said}.")
        return
    if trusted:
        click.echo(_("{folder} is already trusted with this file.").format(folder=folder_key(root)))
        return
    try:
        store.trust(root, digest)
    except OSError as exc:
        raise click.ClickException(_("cannot record the trust in {file} ({why})").format(file=trust_file(), why=exc.strerror or exc)) from exc
    click.echo(_("Trusted {folder} (recorded in {file}). A change to the file asks again; "
                 "`formspec-consult trust --revoke` undoes it.").format(folder=folder_key(root), file=trust_file()))


def _revoke(root: Path) -> None:
    try:
        removed = store.revoke(root)
    except OSError as exc:
        raise click.ClickException(_("cannot update {file} ({why})").format(file=trust_file(), why=exc.strerror or exc)) from exc
    if removed:
        click.echo(_("{folder} is no longer trusted; its settings that need trust are left out.").format(folder=folder_key(root)))
    else:
        click.echo(_("{folder} was not trusted.").format(folder=folder_key(root)))


def _list() -> None:
    folders = trusted_folders()
    if not folders:
        click.echo(_("No trusted folders."))
        return
    for folder, entry in sorted(folders.items()):
        root = Path(folder)
        current = _file_digest(root) if root.is_dir() else None
        state = _("trusted") if current == entry.get("sha256") else (
            _("folder gone") if current is None else _("changed since trusted (asks again)"))
        click.echo(_("{folder}  {state}  since {when}").format(folder=folder, state=state, when=entry.get('trusted_at', '?')))
