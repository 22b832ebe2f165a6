"""`formspec-consult sessions`: the project's consultation sessions and their state.

Metadata comes from each session's event log (read-only); draft counts come from the local MCP
server's list_drafts, like every other review command.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from formspec_consult.i18n import N_, _, format_when, ngettext
from formspec_consult.store.layout import SUMMARY
from formspec_consult.store.review_text import state_label


def session_summary(path: Path) -> dict[str, Any]:
    """Model, turns, last activity and state of one session, from its events.jsonl."""
    from formspec_consult.store.events import EventLog
    from formspec_consult.store.layout import EVENTS
    from formspec_consult.store.records import (
        SessionResumedRecord,
        SessionStartedRecord,
        TurnFinishedRecord,
        TurnStartedRecord,
        UsageRecord,
    )

    model: str | None = None
    turns, last, cost, state = 0, None, None, "new"
    open_turn = False
    forked_from: str | None = None
    forked_at_turn: int | None = None
    for event in EventLog.records(path / EVENTS):
        last = event.ts or last
        if isinstance(event, SessionStartedRecord) and event.forked_from:
            forked_from, forked_at_turn = event.forked_from, event.forked_at_turn
        if isinstance(event, (SessionStartedRecord, SessionResumedRecord)):
            model = event.model or model
        elif isinstance(event, TurnStartedRecord):
            turns, open_turn = max(turns, int(event.turn)), True
        elif isinstance(event, TurnFinishedRecord):
            open_turn = False
            state = "interrupted" if event.error == "interrupted" else "idle"
        elif isinstance(event, UsageRecord) and (not event.order or "session_cost" in event.order):
            cost = event.session_cost  # a line without the field (an older writer's) keeps the last cost
    if open_turn:
        state = "interrupted"  # killed mid-turn: --resume closes the turn and goes on
    return {
        "model": model,
        "turns": turns,
        "last_activity": last,
        "cost": cost,
        "state": state,
        "summary": (path / SUMMARY).exists(),
        "forked_from": forked_from,  # a fork: the session it copied, and that one's last turn it holds
        "forked_at_turn": forked_at_turn,
    }


@click.command()
@click.option("--json", "as_json", is_flag=True, help=N_("Print the sessions as JSON lines."))
@click.pass_context
def sessions(ctx: click.Context, as_json: bool) -> None:
    """List consultation sessions of the project, newest first."""
    import anyio

    from formspec_consult.agent.engine.setup import LOCAL, consult_dir, resolve_project
    from formspec_consult.commands.wiring import local_server_spec
    from formspec_consult.mcp_client import MCPManager, ToolError
    from formspec_consult.store.folder import list_sessions
    from formspec_consult.store.review_results import DraftList, ToolResult, ToolResultError

    try:
        root = resolve_project((ctx.obj or {}).get("project"))
    except Exception as exc:  # ProjectError names the folder and what makes a project
        from formspec_consult.commands.consult import SetupError

        raise SetupError(str(exc)) from exc
    infos = sorted(list_sessions(consult_dir(root)), key=lambda info: info.id, reverse=True)
    if not infos:
        click.echo(_("No consultation sessions in {root}.").format(root=root))
        return
    rows = [
        {"id": info.id, "created": info.created.isoformat(timespec="seconds"), **session_summary(info.path)}
        for info in infos
    ]

    async def count_drafts() -> None:
        manager = MCPManager([local_server_spec(root, infos[0].id, in_memory=False, timeout=60.0)])
        try:
            await manager.start(required=[LOCAL])
            for row in rows:
                try:
                    answer = await manager.call_on(LOCAL, "list_drafts", {"session": row["id"]})
                    listing = DraftList.from_result(ToolResult.of("list_drafts", answer))
                    row["drafts"] = len(listing.drafts) + len(listing.settled)  # every draft of the session
                    row["drafts_by_state"] = listing.by_state()
                except (ToolError, ToolResultError):
                    row["drafts"], row["drafts_by_state"] = None, {}
        finally:
            await manager.aclose()

    anyio.run(count_drafts)
    width = max(len(_(word)) for word in SESSION_STATES.values())
    for row in rows:
        if as_json:
            click.echo(json.dumps(row, ensure_ascii=False))
            continue
        count = row["drafts"]
        states = ", ".join(f"{n} {state_label(state)}" for state, n in sorted(row["drafts_by_state"].items()))
        drafts = "? " + _("drafts") if count is None else ngettext("{n} draft", "{n} drafts", count).format(n=count)
        drafts = f"{drafts} ({states})" if states else drafts
        summary = "  " + _("summary") if row["summary"] else ""
        fork = "  " + _("forked from {source} at turn {turn}").format(
            source=row["forked_from"], turn=row["forked_at_turn"]) if row["forked_from"] else ""
        turns = ngettext("{n} turn", "{n} turns", row["turns"]).format(n=f"{row['turns']:>3}")
        last = _("last {when}").format(when=_when(row["last_activity"]))
        state = _(SESSION_STATES.get(row["state"], row["state"]))
        click.echo(
            f"{row['id']}  {state:<{width}} {turns}  {drafts}{summary}  {row['model'] or '-'}  {last}{fork}"
        )


# A session's state in the list (the JSON keeps the English word).
SESSION_STATES = {"new": N_("new"), "idle": N_("idle"), "interrupted": N_("interrupted")}


def _when(ts: str | None) -> str:
    """An event's time (ISO 8601, UTC) as the person's locale writes it, on their clock."""
    if not ts:
        return "-"
    try:
        moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return ts
    return format_when(moment)
