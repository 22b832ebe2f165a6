"""`formspec-consult docs [--check]`: the generated part of the owner documents, made headless.

`docs/domain-model.md` carries a part generated from the specs (a Mermaid ER diagram and one state
diagram per lifecycle, `spec.owner_docs`), between markers; the owner's text around it is theirs.
`--check` writes nothing and exits 1 when the part is stale (naming the file and why). Without it,
the regenerated file goes through the local MCP server like any reviewed file: proposed as a draft
of the session (`--session ID`, the latest, or a new one when the project has none), through the
gate, and applied — so `formspec-consult undo` takes it back byte for byte. A part edited by hand
between the markers, a project with no entities, or broken markers: a message, nothing written.
"""

from __future__ import annotations

from pathlib import Path

import click

from formspec_consult.commands.review import Call, session_option, with_local_server
from formspec_consult.i18n import N_, _


def _title(project: object) -> str:
    """The app's title for a new domain model: the first App's title or name, else the folder's."""
    from formspec_consult.spec.project import Project

    assert isinstance(project, Project)
    for app in project.apps():
        title = app.spec.get("title") or app.name
        if isinstance(title, str) and title.strip():
            return title.strip()
    return Path(project.root).name


@click.command()
@click.option("--check", is_flag=True, help=N_("Write nothing; exit 1 when the generated part is stale."))
@session_option
@click.pass_context
def docs(ctx: click.Context, check: bool, session_id: str | None) -> None:
    """Regenerate the part of docs/domain-model.md made from the specs (its diagrams).

    Your own text above and below the generated part is kept. The new file is applied through the
    session's review (undo it with `formspec-consult undo`); --check only says whether it is stale.
    """
    from formspec_consult.agent.engine.setup import consult_dir, resolve_project
    from formspec_consult.commands.consult import SetupError
    from formspec_consult.spec.owner_docs import DOMAIN_MODEL, regenerate
    from formspec_consult.spec.project import Project
    from formspec_consult.store.folder import ensure_session, latest_session

    try:
        root = resolve_project((ctx.obj or {}).get("project"))
    except Exception as exc:  # ProjectError: its message says what to do
        raise SetupError(str(exc)) from exc
    project = Project(root)
    file = root / DOMAIN_MODEL
    try:
        current = file.read_text(encoding="utf-8") if file.is_file() else None
    except (OSError, UnicodeDecodeError) as exc:
        raise click.ClickException(_("Cannot read {file}: {problem}. Nothing was written.").format(file=DOMAIN_MODEL, problem=exc)) from exc
    found = regenerate(project.documents(), current, _title(project))
    if found.status in ("no-entities", "edited", "broken"):
        raise click.ClickException(found.message + " " + _("Nothing was written."))
    if found.status == "fresh":
        click.echo(found.message)
        ctx.exit(0)
    if check and found.status == "new":  # nothing there can be stale
        click.echo(_("{message} Run `formspec-consult docs` to make it.").format(message=found.message))
        ctx.exit(0)
    if check:
        click.echo(_("{message} Run `formspec-consult docs` to regenerate it.").format(message=found.message), err=True)
        ctx.exit(1)
    assert found.text is not None
    if session_id is None and latest_session(consult_dir(root)) is None:
        session_id, _created = ensure_session(consult_dir(root), None)
    text = found.text

    async def work(call: Call, sid: str) -> int:
        from formspec_consult.store.review_flow import ReviewFlow
        from formspec_consult.store.review_text import format_apply

        review = ReviewFlow(call)
        proposed = await review.propose(DOMAIN_MODEL, text)
        if not proposed.passes:
            problems = "; ".join(p.message for p in proposed.validation.problems)
            click.echo(_("Not written: {problems} The draft stays in session {sid} (formspec-consult diff).").format(problems=problems, sid=sid), err=True)
            return 1
        click.echo(found.message)
        click.echo(format_apply(await review.apply(DOMAIN_MODEL)).replace("/undo", "formspec-consult undo"))
        return 0

    with_local_server(ctx, session_id, work)
