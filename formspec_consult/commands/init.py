"""`formspec-consult init [NAME] [--dir DIR] [--slug SLUG]`: a starter project to consult into.

A new business has no FormSpec project yet, and every other command needs one. This writes the
smallest valid one (spec.starter: the root settings file, an App under spec/apps/, the business's
Module and a Workspace), checks it with the same validation gate as every draft, and says what
to run next. It never overwrites: an existing project, or any file it would write, is refused
before anything is written; a failure part-way removes what it had written.

This is the one command that writes spec files without the local MCP server: before it runs
there is no project for a server to serve.
"""

from __future__ import annotations

from pathlib import Path

import click

from formspec_consult.i18n import N_, _


def _fail(message: str) -> click.ClickException:
    from formspec_consult.commands.consult import SetupError

    return SetupError(message)


def _refuse_existing(target: Path, files: dict[str, str]) -> None:
    """SetupError when `target` is (or sits inside) a project, or any file to write exists."""
    from formspec_consult.spec.discovery import APP_CONFIG

    if target.exists() and not target.is_dir():
        raise _fail(_("{target} is a file, not a folder: choose a folder with --dir.").format(target=target))
    markers = [name for name in (APP_CONFIG, "spec", "modules") if (target / name).exists()]
    if markers:
        raise _fail(
            _("{target} is already a FormSpec project (it has {files}): nothing was written. Consult into it with `formspec-consult`, or start a new one elsewhere with --dir.").format(target=target, files=', '.join(markers))
        )
    for parent in target.parents:
        if (parent / APP_CONFIG).is_file():
            raise _fail(
                _("{target} is inside the FormSpec project {parent}: nothing was written. Consult into that one, or choose a folder outside it with --dir.").format(target=target, parent=parent)
            )
    taken = [rel for rel in files if (target / rel).exists()]
    if taken:
        raise _fail(_("{target} already has {files}: nothing was written.").format(target=target, files=', '.join(taken)))


def write_starter(target: Path, files: dict[str, str]) -> list[Path]:
    """Write `files` under `target`, each created exclusively (never over an existing file).
    On any failure everything written so far is removed again and the error propagates."""
    created: list[Path] = []  # files and folders this call made, in order
    try:
        if not target.exists():
            target.mkdir(parents=True)
            created.append(target)
        for rel, text in files.items():
            path = target / rel
            missing = [p for p in reversed(path.parents) if not p.exists() and target in (p, *p.parents)]
            for folder in missing:
                folder.mkdir()
                created.append(folder)
            with path.open("x", encoding="utf-8", newline="\n") as handle:
                created.append(path)
                handle.write(text)
    except BaseException:
        for path in reversed(created):
            if path.is_dir():
                path.rmdir()
            else:
                path.unlink(missing_ok=True)
        raise
    return created


def _gate(target: Path) -> list[str]:
    """The validation gate's problems with the new project (none: the starter is known good)."""
    from formspec_consult.spec import open_project

    result = open_project(target).validate()
    return [f"{p.source}: {p.code} {p.message}" for p in result.problems]


@click.command()
@click.argument("name", required=False)
@click.option(
    "--dir",
    "folder",
    type=click.Path(path_type=Path),
    default=None,
    help=N_("Folder of the new project (created when missing; default: the current folder)."),
)
@click.option(
    "--slug",
    default=None,
    help=N_("Name of the App, Module and Workspace: lower-case letters, digits and dashes (default: from NAME)."),
)
def init(name: str | None, folder: Path | None, slug: str | None) -> None:
    """Start a new FormSpec project for a business, ready to consult into.

    NAME is the business's name as people say it ("Sewa Tenda Malang"; default: the folder's
    name). Writes formspec-app.yaml, spec/apps/SLUG.yaml (the App), spec/modules/SLUG/module.yaml
    (the business's module) and spec/workspaces/SLUG.yaml. Refuses a folder that already holds a
    project, and never overwrites a file.
    """
    from formspec_consult.spec.starter import StarterError, check_name, check_slug, slug_of, starter_files

    target = (folder if folder is not None else Path.cwd()).expanduser().absolute()
    try:
        business = check_name(name if name is not None else target.name)
        slug = check_slug(slug) if slug is not None else slug_of(business)
        files = starter_files(business, slug)
    except StarterError as exc:
        raise _fail(str(exc)) from exc
    _refuse_existing(target, files)
    try:
        write_starter(target, files)
    except OSError as exc:
        raise _fail(_("Could not write the project in {target} ({why}); nothing was left behind.").format(target=target, why=exc.strerror or exc)) from exc
    problems = _gate(target)
    if problems:  # a starter that fails the gate is our bug: say so, leave the files to inspect
        raise click.ClickException(_("The new project does not pass validation:") + "\n  " + "\n  ".join(problems))
    click.echo(_("Created the FormSpec project {business!r} in {target}:").format(business=business, target=target))
    for rel in files:
        click.echo(f"  {rel}")
    here = Path.cwd().absolute()
    step = "" if target == here else f"cd {_shell_path(target, here)} && "
    click.echo(
        _('\nNext: tell the consultant about the business, in the terminal app or in one line:\n  {step}formspec-consult --model <provider/model>\n  {step}formspec-consult --model <provider/model> -p "We rent camping gear by the day…"').format(step=step)
    )


def _shell_path(target: Path, here: Path) -> str:
    """`target` as short as it can be said from the current folder, quoted for a shell."""
    import shlex

    try:
        shown = str(target.relative_to(here))
    except ValueError:
        shown = str(target)
    return shlex.quote(shown)
