"""`formspec-consult compare A [B]`: two sessions' drafts side by side (`/compare` headless).

Without B, A is compared with the session it was forked from. Read-only. Exit 2 for an unknown
session, or an A that is not a fork when B is left out.
"""

from __future__ import annotations

import click


@click.command()
@click.argument("session_a", metavar="A")
@click.argument("session_b", metavar="[B]", required=False)
@click.pass_context
def compare(ctx: click.Context, session_a: str, session_b: str | None) -> None:
    """Show the drafts under review of session A beside session B's (A's fork source when B is left
    out): each entity's fields and states, `+` marking what only one side has."""
    from formspec_consult.commands.review import _fail
    from formspec_consult.errors import UserError
    from formspec_consult.store.compare import compare_sessions
    from formspec_consult.store.layout import consult_dir

    try:
        from formspec_consult.agent.engine.setup import resolve_project

        root = resolve_project((ctx.obj or {}).get("project"))
        click.echo(compare_sessions(consult_dir(root), session_a, session_b), nl=False)
    except (ValueError, UserError) as exc:  # ProjectError, SessionError, CompareError: they say what to do
        raise _fail(str(exc), 2) from exc
