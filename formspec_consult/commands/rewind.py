"""`formspec-consult rewind SESSION --to-turn N [--files|--conversation|--both]`: `/rewind` headless.

The session goes back to the end of turn N (store/rewind.py): later applies undone through the
local server's tools (spawned for the command, as `undo` does), later drafts withdrawn, and a
`rewind` event in its log that cuts the conversation the model is sent when it is resumed. The
session must be at rest: one open in another formspec-consult is refused (that process holds its
history in memory). Exit codes: 0 done; 1 refused (a file changed by hand since its apply, a
session open elsewhere, nothing to rewind, a fork's source's applies); 2 no such project,
session or turn, or a damaged log.
"""

from __future__ import annotations

import click

from formspec_consult.commands.review import Call, _fail, _project_and_session, with_local_server
from formspec_consult.i18n import N_, _


@click.command()
@click.argument("session_id", metavar="SESSION")
@click.option("--to-turn", "to_turn", type=click.IntRange(min=0), required=True, metavar="N",
              help=N_("The turn whose end the session goes back to (0: before the first turn)."))
@click.option("--files", "mode", flag_value="files", help=N_("Take back the files and drafts only; keep the conversation."))
@click.option("--conversation", "mode", flag_value="conversation",
              help=N_("Cut the conversation only; the files and drafts stay as they are."))
@click.option("--both", "mode", flag_value="both", default=True, help=N_("Both (the default)."))
@click.pass_context
def rewind(ctx: click.Context, session_id: str, to_turn: int, mode: str) -> None:
    """Go back to the end of turn N: later applies undone (exact bytes), later drafts withdrawn,
    the conversation cut back; the session log keeps everything (`replay` shows the rewind)."""
    from formspec_consult.store.events import EventLog, EventLogError, load_records
    from formspec_consult.store.layout import EVENTS, consult_dir
    from formspec_consult.store.locks import SessionBusy, SessionWriter
    from formspec_consult.store.records import CommandRecord, TurnStartedRecord
    from formspec_consult.store.review_flow import ReviewFlow
    from formspec_consult.store.rewind import (
        NoSuchTurn,
        RewindFailed,
        RewindRefused,
        describe,
        plan_rewind,
        run_rewind,
    )

    root, sid = _project_and_session(ctx, session_id)
    folder = consult_dir(root) / sid
    claim = SessionWriter(folder)
    try:
        claim.claim()
    except SessionBusy as exc:
        raise _fail(_("{problem} A rewind changes the history that process holds; close it (or use /rewind in it) "
                      "and run this again.").format(problem=exc)) from exc
    try:
        try:
            records = load_records(folder / EVENTS)
            plan = plan_rewind(records, folder, root, to_turn, mode)  # type: ignore[arg-type]
        except FileNotFoundError as exc:
            raise _fail(_("Session {session} has no log ({log}): there is nothing to rewind.").format(
                session=sid, log=folder / EVENTS), 2) from exc
        except (EventLogError, NoSuchTurn) as exc:
            raise _fail(str(exc), 2) from exc
        except RewindRefused as exc:
            raise _fail(str(exc)) from exc
        turn = max((r.turn for r in records if isinstance(r, TurnStartedRecord)), default=0)

        async def work(call: Call, _sid: str) -> int:
            with EventLog(folder / EVENTS) as log:
                # the undos and rejects the server logs next belong to this command (a replay runs it again)
                log.write(CommandRecord(turn=turn, name="rewind", args=[str(to_turn), f"--{mode}"]))
                try:
                    record = await run_rewind(plan, ReviewFlow(call), folder, root)
                except RewindFailed as exc:
                    raise _fail(str(exc)) from exc
                log.write(record)
            click.echo(describe(record))
            if plan.conversation:
                click.echo(_("Resume it with: formspec-consult --resume {session}").format(session=sid), err=True)
            return 0

        with_local_server(ctx, sid, work)
    finally:
        claim.release()
