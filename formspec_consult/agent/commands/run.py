"""Executing the slash commands that act on the session. Each yields events and ends with a
TurnFinished, like a turn, so every consumer can treat commands and turns alike."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Literal

from formspec_consult.agent.commands.format import format_status
from formspec_consult.agent.commands.slash import SlashCommand, changes_args, help_text, rewind_args
from formspec_consult.i18n import _
from formspec_consult.mcp_client.manager import ToolError
from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantMessage,
    DraftsChanged,
    Notice,
    SessionChanged,
    TurnFinished,
)
from formspec_consult.store.layout import SUMMARY
from formspec_consult.store.records import (
    CommandRecord,
    NoticeRecord,
    RequestRecord,
    SideReplyRecord,
    SummaryWrittenRecord,
)
from formspec_consult.store.review_flow import ReviewError, ReviewFlow
from formspec_consult.store.review_results import ToolResultError
from formspec_consult.store.review_text import (
    format_apply,
    format_changes,
    format_diffs,
    format_reject,
    format_turn_accept,
    format_turn_reject,
    format_undo,
)

if TYPE_CHECKING:
    from formspec_consult.agent.engine.port import EngineLike
    from formspec_consult.agent.engine.session import Session
    from formspec_consult.store.rewind import Turn

# Commands whose effect the log records anyway: the local server logs apply/reject/undo itself.
_SELF_LOGGED = frozenset({"apply", "reject", "undo"})
# /fork is recorded in the fork's header, not here: the source's log stays as it was, and a replay
# of the source never forks again.
_NOT_LOGGED = _SELF_LOGGED | {"fork"}


def log_command(session: Session, command: SlashCommand) -> None:
    """Log a slash command as a `command` event, so a replay can play it again at the same point.

    Review commands are skipped: the server that performs them logs `apply`/`reject`/`undo` (a
    turn's changeset accepted or rejected: each apply and reject)."""
    acting = command.name == "changes" and (changes_args(command.args) or (None, None, None))[1] is not None
    if command.name not in _NOT_LOGGED and not acting:
        session.log.write(CommandRecord(turn=session.loop.turn, name=command.name, args=list(command.args)))


async def run_slash(engine: EngineLike, session: Session, command: SlashCommand) -> AsyncGenerator[AgentEvent, None]:
    """Run `command` (logged first); a failing tool becomes an error Notice and TurnFinished('error')."""
    log_command(session, command)
    try:
        steps = _summary(engine, session) if command.name == "summary" else _simple(engine, session, command)
        async for event in steps:
            yield event
    except (ToolError, ToolResultError) as exc:
        session.log.write(NoticeRecord(level="error", message=str(exc)))
        yield Notice("error", str(exc))
        yield TurnFinished("error", error=str(exc))
        return
    yield TurnFinished("done")


async def _simple(engine: EngineLike, session: Session, command: SlashCommand) -> AsyncGenerator[AgentEvent, None]:
    name, args = command.name, command.args
    review = ReviewFlow(engine.call_tool)
    if name == "diff":
        yield Notice("info", format_diffs(await review.diffs(args[0] if args else None)))
    elif name == "apply":
        async for event in _apply(review, args):
            yield event
    elif name == "reject":
        rejected = await review.reject(args[0], " ".join(args[1:]) or None)
        yield Notice("info", format_reject(rejected))
        yield DraftsChanged((rejected.path,))
    elif name == "changes":
        async for event in _changes(review, args):
            yield event
    elif name == "undo":
        undone = await review.undo()
        yield Notice("info", format_undo(undone))
        yield DraftsChanged((undone.path,))
    elif name == "compact":
        done = await session.compressor.compact(session.history, force=True, focus=command.arg_text or None)
        if done is None:
            yield Notice("info", _("Nothing to compact yet: the conversation is only the latest turn."))
        else:
            session.loop.record(done)
            yield done
    elif name == "status":
        yield Notice("info", format_status(engine.status()))
    elif name == "mcp":
        if args and args[0] == "log":  # the app opens it in a pane; elsewhere: where it is
            yield Notice("info", _("MCP server log: {path}").format(path=engine.status().mcp_log))
            return
        if args and args[0] == "restart":
            await engine.restart_mcp(args[1] if len(args) > 1 else None)
        yield Notice("info", format_status(engine.status()).splitlines()[-1])
    elif name == "help":
        yield Notice("info", help_text())
    elif name == "model":
        yield Notice(
            "info",
            _("Model: {model} via {provider}. To switch, start again with --model NAME --continue (the session "
              "keeps its history).").format(model=engine.model, provider=engine.provider_name),
        )
    elif name == "sessions":
        from formspec_consult.store.folder import list_sessions

        rows = [
            _("{session}  (this one)").format(session=info.id) if info.id == engine.session_id else info.id
            for info in list_sessions(session.session_dir.parent)
        ]
        yield Notice("info", "\n".join(rows) or _("No sessions."))
    elif name == "language":
        yield Notice(*_language(session, args))
    elif name == "fork":
        from formspec_consult.store.fork import fork_session

        # This process holds the session's claim and runs commands between turns: it is at rest.
        try:
            fork_id, _dir, point = fork_session(session.session_dir.parent, session.session_id, held_here=True)
        except (ValueError, OSError) as exc:  # SessionError, a full disk: nothing was kept
            yield Notice("error", _("Could not fork this session: {error}").format(error=exc))
            return
        yield Notice(
            "info",
            _("Forked this session (after turn {turn}) as {fork}: formspec-consult --resume {fork} opens the fork; "
              "this session, {session}, stays as it is.").format(turn=point.turn, fork=fork_id,
                                                                  session=session.session_id),
        )
        yield SessionChanged(fork_id, "forked", point.turn)  # the app switches to it; headless just says so
    elif name == "rewind":
        async for event in _rewind(engine, session, command):
            yield event
    elif name == "compare":
        from formspec_consult.store.compare import compare_sessions

        try:
            yield Notice("info", compare_sessions(session.session_dir.parent, session.session_id,
                                                  args[0] if args else None))
        except ValueError as exc:  # CompareError, SessionError: the message says what to do
            raise ToolError(str(exc)) from exc
    else:  # quit: the UI's job; headless just says so
        yield Notice("info", _("The session is saved; resume it with --continue."))


async def _rewind(engine: EngineLike, session: Session, command: SlashCommand) -> AsyncGenerator[AgentEvent, None]:
    """`/rewind N [--mode]`: back to the end of turn N (store/rewind.py); `/rewind` lists the turns."""
    from formspec_consult.agent.engine.offer import ConsultantOffer
    from formspec_consult.agent.engine.phase import recorded_iterate
    from formspec_consult.agent.loop.options import find_options
    from formspec_consult.store.events import load_records
    from formspec_consult.store.records import PhaseRecord
    from formspec_consult.store.rewind import (
        RewindFailed,
        RewindRefused,
        conversation_turns,
        describe,
        plan_rewind,
        run_rewind,
    )

    records = load_records(session.log.path)
    turn, mode = rewind_args(command)
    if turn is None:
        yield Notice("info", turn_list(conversation_turns(records)))
        return
    try:
        plan = plan_rewind(records, session.session_dir, session.project_root, turn, mode)  # type: ignore[arg-type]
        record = await run_rewind(plan, ReviewFlow(engine.call_tool), session.session_dir, session.project_root)
    except (RewindRefused, RewindFailed) as exc:
        raise ToolError(str(exc)) from exc
    if plan.conversation:
        record = session.history.rewind(record)
        # The offer (and with it the system prompt, which the loop writes again before the next
        # request when it differs: a fork's names the fork) follows the drafts as they are now: a
        # rewind to before the first draft is back in Discovery.
        if isinstance(session.loop.tools, ConsultantOffer):
            session.loop.tools.reset_phase()
        if session.phase is not None:  # Iterate when the log had reached it by that turn (or the project
            designed = any(isinstance(r, PhaseRecord) and r.reason == "designed" for r in records)  # held a design)
            session.phase.rewound(designed or recorded_iterate(r for r in records if r.seq <= plan.to_seq))
        last = next((m for m in reversed(session.history.messages) if m.get("role") == "assistant"), None)
        text = str(last.get("content") or "") if last is not None and not last.get("tool_calls") else ""
        session.loop.last_options = find_options(text) if text else ()
    else:
        session.log.write(record)
    yield Notice("info", describe(record))
    if record.undone or record.withdrawn or record.restored:
        yield DraftsChanged((*record.undone, *record.withdrawn, *record.restored))
    yield SessionChanged(session.session_id, "rewound", plan.to_turn)


def turn_list(turns: list[Turn]) -> str:
    """The turns of the conversation, one a line, for `/rewind` without a turn."""
    if not turns:
        return _("There are no turns to rewind to yet.")
    rows = [f"{t.number:>3}  {t.said[:70]}" for t in turns]
    return _("Turns of this conversation (rewind with /rewind N [--files|--conversation|--both]; 0 goes back "
             "to before the first):") + "\n" + "\n".join(rows)


def _language(session: Session, args: tuple[str, ...]) -> tuple[Literal["info", "error"], str]:
    """`/language`: the session's reply language; `/language <code>`: switch to it."""
    from formspec_consult.agent.engine.language import set_language
    from formspec_consult.agent.language.lock import LanguageError, parse_language
    from formspec_consult.i18n import language_name

    current = session.language.code
    if not args:
        if current is None:
            return "info", _("No reply language yet: your first clear message sets it (or /language <code>, "
                             "e.g. /language id).")
        return "info", _("Replies in {name} ({code}). To change it: /language <code>.").format(
            name=language_name(current), code=current)
    try:
        code = parse_language(args[0])
    except LanguageError as exc:
        return "error", str(exc)
    said = set_language(session, code, "command")
    return "info", said or _("Replies are already in {name}.").format(name=language_name(code))


async def _apply(review: ReviewFlow, args: tuple[str, ...]) -> AsyncGenerator[AgentEvent, None]:
    if args and args[0] == "--all":
        outcome = await review.apply_all()
        if outcome.skipped:
            yield Notice("warning", _("Not applied (validation problems): {paths}").format(paths=", ".join(outcome.skipped)))
        if not outcome.applied and not outcome.failed:
            yield Notice("info", _("No valid drafts to apply."))
            return
        for result in outcome.applied:
            yield Notice("info", format_apply(result))
        yield DraftsChanged(outcome.paths)
        if outcome.failed:
            raise ToolError("; ".join(_("{path} not applied: {why}").format(path=path, why=why) for path, why in outcome.failed))
        return
    try:
        path = args[0] if args else await review.sole_draft()
    except ReviewError as exc:
        raise ToolError(_("{error} Use /apply <path> or /apply --all.").format(error=exc)) from exc
    result = await review.apply(path)
    yield Notice("info", format_apply(result))
    yield DraftsChanged((result.path,))


async def _changes(review: ReviewFlow, args: tuple[str, ...]) -> AsyncGenerator[AgentEvent, None]:
    """`/changes [turn] [accept|reject [reason]]`: a turn's changeset, or accept/reject it whole."""
    turn, action, reason = changes_args(args) or (None, None, None)
    if action is None:
        yield Notice("info", format_changes(await review.changes(turn)))
        return
    if action == "accept":
        listing, done = await review.accept_turn(turn)
        if listing.open:
            yield Notice("warning" if done.skipped or done.failed else "info",
                         format_turn_accept(listing.turn, done.applied, done.skipped, done.failed))
        else:
            yield Notice("info", format_changes(listing))
        yield DraftsChanged(done.paths)
        return
    listing, gone = await review.reject_turn(turn, reason)
    yield Notice("info", format_turn_reject(listing.turn, gone.rejected, gone.failed, reason) if listing.open
                 else format_changes(listing))
    yield DraftsChanged(gone.paths)


async def _summary(engine: EngineLike, session: Session) -> AsyncGenerator[AgentEvent, None]:
    """Ask the model for the plain-language discovery summary and write discovery-summary.md.

    A side request with the `discovery-summary` prompt: the reply is shown and written, and the
    consultation history is left as it was.
    """
    from formspec_consult.agent.engine.context import render_conversation
    from formspec_consult.prompting.prompts import load_prompt
    from formspec_consult.providers.base import Completion, TextDelta
    from formspec_consult.store.agent_events import AssistantDelta
    from formspec_consult.store.atomic import write_atomic

    prompt = load_prompt("discovery-summary")
    conversation = render_conversation([m for m in session.history.messages if m.get("role") != "system"])
    request = [
        {"role": "system", "content": prompt.render_system()},
        {"role": "user", "content": prompt.render_user(conversation=conversation)},
    ]
    session.log.write(
        RequestRecord(
            purpose="summary",
            message_count=len(request),
            tokens=session.provider.count_tokens(request, None),
            estimated=True,
        )
    )
    text = ""
    async for item in session.provider.stream(request, None):
        if isinstance(item, TextDelta) and item.text:
            yield AssistantDelta(item.text)
        elif isinstance(item, Completion):
            text = item.text
    session.log.write(SideReplyRecord(purpose="summary", text=text))
    message = AssistantMessage(text)
    session.loop.record(message)
    yield message
    path = session.session_dir / SUMMARY
    write_atomic(path, (text.strip() + "\n").encode("utf-8"))
    rel = path.relative_to(session.project_root).as_posix()
    session.log.write(SummaryWrittenRecord(path=rel, text=text))
    yield Notice("info", _("Wrote {path}: read it, then confirm or correct it in the conversation.").format(path=rel))
