"""`formspec-consult diff|apply|reject|undo`: review a session's drafts without the TUI.

Everything goes through the local MCP server's tools (the same `mcp-serve` command, spawned for
the duration of the command) with the review workflow every client uses (store.review_flow): the
validation gate, backups, undo and the record of each action in the session stay in one place.
The session defaults to the latest one of the project; `--session ID` picks another.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from formspec_consult.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from formspec_consult.store.review_results import Applied, ToolResult

Call = Callable[[str, dict[str, Any]], Awaitable["ToolResult"]]
session_option = click.option(
    "--session", "session_id", default=None, metavar="ID", help=N_("Session id (default: the latest session).")
)


def _fail(message: str, code: int = 1) -> click.ClickException:
    """Exit 1 for a refused action, 2 for bad setup (no project, no session)."""
    from formspec_consult.commands.consult import SetupError
    from formspec_consult.store.wording import for_person

    message = for_person(message, "cli")  # the server's words for the model, in the person's terms
    return SetupError(message) if code == 2 else click.ClickException(message)


def _project_and_session(ctx: click.Context, session_id: str | None, *, any_session: bool = False) -> tuple[Path, str]:
    """The project and the session to review (the latest by default). `any_session`: a project
    with no session yet gets a fresh one, which a read-only command never writes."""
    from formspec_consult.agent.engine.setup import consult_dir, resolve_project
    from formspec_consult.servers.local import NEW_SESSION
    from formspec_consult.store.folder import existing_session, latest_session

    try:
        root = resolve_project((ctx.obj or {}).get("project"))
        if session_id is None:
            session_id = latest_session(consult_dir(root))
            if session_id is None and any_session:
                return root, NEW_SESSION
            if session_id is None:
                raise _fail(_("No consultation sessions in {root}; start one with formspec-consult.").format(root=root), 2)
        existing_session(consult_dir(root), session_id)
    except click.ClickException:
        raise
    except Exception as exc:  # ProjectError, SessionError: their message says what to do
        raise _fail(str(exc), 2) from exc
    return root, session_id


def with_local_server(
    ctx: click.Context, session_id: str | None, work: Callable[[Call, str], Awaitable[int]], *, any_session: bool = False
) -> None:
    """Spawn the local server for the session, run `work(call, session_id)`, exit with its code."""
    import anyio

    root, sid = _project_and_session(ctx, session_id, any_session=any_session)

    async def main() -> int:
        from formspec_consult.agent.engine.setup import LOCAL
        from formspec_consult.commands.wiring import local_server_spec
        from formspec_consult.mcp_client import MCPManager, ServerDied, ToolError
        from formspec_consult.store.review_results import ToolResult, ToolResultError

        manager = MCPManager([local_server_spec(root, sid, in_memory=False, timeout=120.0)])
        try:
            await manager.start(required=[LOCAL])

            async def call(name: str, arguments: dict[str, Any]) -> ToolResult:
                return ToolResult.of(name, await manager.call_on(LOCAL, name, arguments))

            return await work(call, sid)
        except (ToolError, ServerDied, ToolResultError) as exc:
            raise _fail(str(exc)) from exc
        finally:
            await manager.aclose()

    ctx.exit(anyio.run(main))


@click.command()
@click.argument("path", required=False)
@session_option
@click.pass_context
def diff(ctx: click.Context, path: str | None, session_id: str | None) -> None:
    """Show the session's drafts as unified diffs against the project (or one draft)."""
    from formspec_consult.store.review_flow import ReviewFlow
    from formspec_consult.store.review_text import format_diffs, state_label

    async def work(call: Call, sid: str) -> int:
        drafts = await ReviewFlow(call).diffs(path)
        if not drafts and not path:  # none under review: say what became of the session's drafts
            settled = (await ReviewFlow(call).overview()).settled
            if settled:
                click.echo(_("No drafts under review. Earlier drafts of this session:"))
                for row in settled:
                    click.echo(f"  {row.path}  [{state_label(row.state)}]")
                if any(row.state == "rejected" for row in settled):
                    click.echo(_("A rejected draft comes back when the consultant proposes it again: ask for it "
                                 "in the conversation."), err=True)
                return 0
        click.echo(format_diffs(drafts))
        if drafts:  # what to do next, on stderr so the diff itself stays pipeable
            click.echo(
                "\n" + _("Apply: formspec-consult apply PATH (or --all) · discard: formspec-consult reject PATH"),
                err=True,
            )
        return 0

    with_local_server(ctx, session_id, work)


@click.command()
@click.argument("path", required=False)
@click.option("--all", "apply_all", is_flag=True, help=N_("Apply every draft that passes validation."))
@click.option("--force", is_flag=True, help=N_("Apply even though the target changed since the draft."))
@click.option("--list-blocks", is_flag=True,
              help=N_("List the draft's change in numbered blocks (each field, state, transition, key), apply nothing."))
@click.option("--only", "only", multiple=True, metavar="BLOCK",
              help=N_("Apply only this block (a number or id from --list-blocks; repeat, or separate with commas); "
                      "the rest goes back to the consultant as a rejection."))
@click.option("--reason", default=None, metavar="TEXT", help=N_("With --only: why the other blocks were rejected."))
@session_option
@click.pass_context
def apply(ctx: click.Context, path: str | None, apply_all: bool, force: bool, list_blocks: bool,
          only: tuple[str, ...], reason: str | None, session_id: str | None) -> None:
    """Apply a draft to the project; `undo` restores the exact bytes.

    Without PATH, the session's only draft under review is applied (with several, name one, or
    give --all); with --all, every draft that passes validation (the others stay for review).
    With --list-blocks, see the draft's change in blocks; with --only, apply some of them: the
    chosen blocks are validated as a draft of their own, the others go back to the consultant.
    """
    if (list_blocks or only) and (apply_all or force):
        raise click.UsageError(_("--list-blocks and --only work on one draft: leave out --all and --force"))
    if reason is not None and not only:
        raise click.UsageError(_("--reason goes with --only (to reject a whole draft: formspec-consult reject PATH "
                                 "--reason TEXT)"))
    if list_blocks or only:
        _apply_blocks(ctx, path, list_blocks, [w for word in only for w in word.split(",") if w.strip()], reason,
                      session_id)
        return
    from formspec_consult.store.review_flow import ReviewError, ReviewFlow
    from formspec_consult.store.review_text import format_apply

    if path and apply_all:
        raise click.UsageError(_("give one draft PATH or --all, not both (see `formspec-consult diff`)"))

    def say(result: Applied) -> None:
        click.echo(format_apply(result).replace("/undo", "formspec-consult undo"))

    async def work(call: Call, sid: str) -> int:
        review = ReviewFlow(call)
        if not apply_all:
            try:
                target = path or await review.sole_draft()
            except ReviewError as exc:  # none, or several: nothing is applied
                raise _fail(_("{problem} Apply one with `formspec-consult apply PATH`, or every valid one with --all "
                              "(`formspec-consult diff` shows them).").format(problem=exc)) from exc
            say(await review.apply(target, force=force))
            return 0
        outcome = await review.apply_all(force=force)
        for skipped in outcome.skipped:
            click.echo(_("Skipped {path}: it has validation problems (see diff).").format(path=skipped), err=True)
        if not outcome.applied and not outcome.failed:
            click.echo(_("No valid drafts to apply."))
            return 1 if outcome.skipped else 0
        for result in outcome.applied:
            say(result)
        for failed, why in outcome.failed:
            click.echo(_("Not applied {path}: {why}").format(path=failed, why=why), err=True)
        return 1 if outcome.failed else 0

    with_local_server(ctx, session_id, work)


@click.command()
@click.argument("path")
@click.option("--reason", default=None, metavar="TEXT",
              help=N_("Why (optional): the consultant is told with the rejection on its next turn."))
@session_option
@click.pass_context
def reject(ctx: click.Context, path: str, reason: str | None, session_id: str | None) -> None:
    """Discard one draft; the project's file is not touched."""

    from formspec_consult.store.review_flow import ReviewFlow
    async def work(call: Call, sid: str) -> int:
        result = await ReviewFlow(call).reject(path, reason)
        left = len(result.remaining)
        click.echo(ngettext("Rejected {path}; {n} draft left.", "Rejected {path}; {n} drafts left.", left).format(
            path=result.path, n=left))
        if result.reason:
            click.echo(_('The consultant is told why on its next turn: "{reason}".').format(reason=result.reason))
        return 0

    with_local_server(ctx, session_id, work)


@click.command()
@click.option("--force", is_flag=True, help=N_("Undo even though the file changed since the apply."))
@session_option
@click.pass_context
def undo(ctx: click.Context, force: bool, session_id: str | None) -> None:
    """Undo the session's last apply, restoring the file's exact previous bytes."""
    from formspec_consult.store.review_flow import ReviewFlow
    from formspec_consult.store.review_text import format_undo

    async def work(call: Call, sid: str) -> int:
        click.echo(format_undo(await ReviewFlow(call).undo(force=force)).replace("/apply ", "formspec-consult apply "))
        return 0

    with_local_server(ctx, session_id, work)


@click.command()
@click.argument("path")
@session_option
@click.pass_context
def edit(ctx: click.Context, path: str, session_id: str | None) -> None:
    """Edit a draft in your editor ($VISUAL or $EDITOR) before accepting it.

    Your saved version becomes the draft and is validated again; the session records it as your
    edit and the consultant is told what you changed. Saving it unchanged, or an editor that exits
    with an error, changes nothing.
    """
    from formspec_consult.store.editor import EditorError, edit_text
    from formspec_consult.store.layout import SessionLayout
    from formspec_consult.store.review_flow import ReviewFlow
    from formspec_consult.store.review_text import format_edit

    root, sid = _project_and_session(ctx, session_id)

    async def work(call: Call, sid: str) -> int:
        flow = ReviewFlow(call)
        [draft] = await flow.diffs(path)  # refuses a path that is no draft, naming the drafts
        from formspec_consult.agent.engine.setup import consult_dir

        file = SessionLayout(consult_dir(root) / sid).draft / draft.path
        try:
            saved = edit_text(file.read_text(encoding="utf-8"), draft.path)
        except EditorError as exc:
            raise _fail(str(exc)) from exc
        if saved is None:
            raise _fail(_("The editor exited with an error; the draft {path} is unchanged.").format(path=draft.path))
        result = await flow.edit(draft.path, saved)
        click.echo(format_edit(result))
        for problem in result.problems:
            click.echo(f"  ! {problem.message}", err=True)
        if result.changed:
            click.echo(_("Accept it with: formspec-consult apply {path}").format(path=draft.path), err=True)
        return 0

    with_local_server(ctx, sid, work)


@click.command()
@click.option("--turn", type=int, default=None, metavar="N",
              help=N_("The turn whose drafts to show (default: the latest turn that proposed drafts)."))
@click.option("--accept", "accept", is_flag=True,
              help=N_("Accept the turn's drafts that pass validation: one apply each, each undone by undo."))
@click.option("--reject", "reject_all", is_flag=True, help=N_("Reject every draft of the turn still under review."))
@click.option("--reason", default=None, metavar="TEXT", help=N_("With --reject: why (the consultant is told)."))
@click.option("--json", "as_json", is_flag=True, help=N_("Print the changeset (or what was done) as JSON."))
@session_option
@click.pass_context
def changes(ctx: click.Context, turn: int | None, accept: bool, reject_all: bool, reason: str | None, as_json: bool,
            session_id: str | None) -> None:
    """The drafts one consultant turn proposed, as one changeset: each file new or modified, the
    lines it adds and removes, and whether it passes validation.

    With --accept, every draft of the turn still under review that passes validation is applied
    (one apply each: `undo` takes them back one at a time); with --reject, every one is rejected
    (the project is untouched). Without either, nothing changes.
    """
    import json

    from formspec_consult.store.review_flow import ReviewFlow
    from formspec_consult.store.review_text import format_changes, format_turn_accept, format_turn_reject

    if accept and reject_all:
        raise click.UsageError(_("give --accept or --reject, not both"))
    if reason is not None and not reject_all:
        raise click.UsageError(_("--reason goes with --reject"))
    if turn is not None and turn < 1:
        raise click.UsageError(_("--turn is a turn number, 1 or more (`formspec-consult changes` lists them)"))

    async def work(call: Call, sid: str) -> int:
        flow = ReviewFlow(call)
        if not accept and not reject_all:
            listing = await flow.changes(turn)
            click.echo(json.dumps(listing.to_json(), ensure_ascii=False, indent=2) if as_json
                       else format_changes(listing))
            if listing.open and not as_json:
                click.echo(_("Accept them: formspec-consult changes --accept · reject them: formspec-consult changes "
                             "--reject [--reason TEXT]"), err=True)
            return 0
        if accept:
            listing, done = await flow.accept_turn(turn)
            failed = done.failed
            if as_json:
                click.echo(json.dumps({"turn": listing.turn, "applied": [r.to_json() for r in done.applied],
                                       "skipped": list(done.skipped),
                                       "failed": [{"path": p, "why": w} for p, w in done.failed],
                                       "ok": not done.failed and not done.skipped}, ensure_ascii=False, indent=2))
            elif listing.open:
                click.echo(format_turn_accept(listing.turn, done.applied, done.skipped, done.failed).replace(
                    "/undo", "formspec-consult undo"))
            code = 1 if done.failed or (done.skipped and not done.applied) else 0  # as apply --all
        else:
            listing, gone = await flow.reject_turn(turn, reason)
            failed = gone.failed
            if as_json:
                click.echo(json.dumps({"turn": listing.turn, "rejected": [r.to_json() for r in gone.rejected],
                                       "failed": [{"path": p, "why": w} for p, w in gone.failed],
                                       "ok": not gone.failed}, ensure_ascii=False, indent=2))
            elif listing.open:
                click.echo(format_turn_reject(listing.turn, gone.rejected, gone.failed, reason))
            code = 1 if failed else 0
        if not listing.open and not as_json:
            click.echo(format_changes(listing) if not listing.turn else _(
                "Nothing of turn {turn} is left to decide: every file was applied, rejected or withdrawn.").format(
                turn=listing.turn))
        return code

    with_local_server(ctx, session_id, work)


def _apply_blocks(ctx: click.Context, path: str | None, listing: bool, only: list[str], reason: str | None,
                  session_id: str | None) -> None:
    """`apply [PATH] --list-blocks` and `apply [PATH] --only BLOCK…` (partial review)."""
    from formspec_consult.store.review_flow import ReviewError, ReviewFlow
    from formspec_consult.store.review_text import format_apply, format_part

    async def work(call: Call, sid: str) -> int:
        flow = ReviewFlow(call)
        try:
            target = path or await flow.sole_draft()
        except ReviewError as exc:
            raise _fail(str(exc)) from exc
        blocks = await flow.blocks(target)
        if listing:
            if not blocks.blocks:
                click.echo(_("{path}: no changed blocks (the draft is the project's file).").format(path=target))
                return 0
            for number, block in enumerate(blocks.blocks, 1):
                click.echo(f"{number:>2}  {block.id}  ({block.change})")
                for line in block.diff.splitlines():
                    click.echo(f"      {line}")
            click.echo(_("\nApply some: formspec-consult apply {path} --only 1 --only 3 [--reason TEXT] "
                         "(the rest goes back to the consultant)").format(path=target), err=True)
            return 0
        done = await flow.apply_blocks(target, only, reason)
        click.echo(format_part(done.path, done.accepted, done.rejected, done.reason))
        click.echo(format_apply(done.applied).replace("/undo", "formspec-consult undo"))
        return 0

    with_local_server(ctx, session_id, work)


@click.command()
@click.option("--json", "as_json", is_flag=True, help=N_("Print the result as JSON."))
@session_option
@click.pass_context
def validate(ctx: click.Context, as_json: bool, session_id: str | None) -> None:
    """Validate the whole project: its files with the session's pending drafts over them.

    Exits 1 when there are problems. A project with no session is validated as it is.
    """
    import json

    from formspec_consult.store.review_flow import ReviewFlow

    async def work(call: Call, sid: str) -> int:
        result = await ReviewFlow(call).validate_project()
        if as_json:
            click.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
            return 0 if result.ok else 1
        click.echo(ngettext("Checked {n} file", "Checked {n} files", result.files).format(n=result.files) + ", "
                   + ngettext("{n} of them a pending draft.", "{n} of them pending drafts.", result.drafts).format(
                       n=result.drafts))
        for heading, rows, more in ((_("Problems:"), result.problems, result.more_problems),
                                    (_("Warnings:"), result.warnings, result.more_warnings)):
            if not rows:
                continue
            click.echo(heading)
            for row in rows:
                where = f"{row.file}:{row.line}" if row.line else row.file
                mark = " " + _("(draft)") if row.draft else ""
                click.echo(f"  {where}{mark}: {row.code} {row.message}")
                if row.hint:
                    click.echo(f"      {row.hint}")
            if more:
                click.echo("  " + ngettext("… and {n} more.", "… and {n} more.", more).format(n=more))
        total = len(result.problems) + result.more_problems
        if result.ok:
            click.echo(_("Valid: no problems."))
            return 0
        click.echo(ngettext("{n} problem: fix it, then validate again.", "{n} problems: fix them, then validate again.",
                            total).format(n=total), err=True)
        return 1

    with_local_server(ctx, session_id, work, any_session=True)
