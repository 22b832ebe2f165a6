"""The agent loop: one user turn as an async generator of AgentEvents. No UI code.

Per request: compact when the history is over the threshold, check pairing both ways, count the
tokens, log the request, stream the reply, then run every tool call through MCP and feed the
(capped) results back, until the model answers in text or the step limit is reached. Every event
goes to the event log and the transcript as it happens. Cancelling the consuming task leaves a
valid history: unanswered calls get a result (repair_pairing) and `turn_finished` is logged.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Literal, Protocol, TypeVar

from formspec_consult.agent.compaction.compress import Compressor
from formspec_consult.agent.history.history import History
from formspec_consult.agent.loop.options import find_options
from formspec_consult.agent.loop.permissions import Permissions
from formspec_consult.agent.loop.reask import ReplyCheck
from formspec_consult.agent.loop.reply_set import (
    Verdict,
    changes_drafts,
    is_propose,
    note_for,
    path_argument,
    same_draft,
    verdict_of,
    with_note,
)
from formspec_consult.agent.loop.tools import (
    ArgumentsError,
    cap_result,
    drafts_touched,
    parse_arguments,
    tools_digest,
)
from formspec_consult.agent.loop.usage import UsageTotals
from formspec_consult.i18n import _
from formspec_consult.mcp_client.manager import ToolOutcome
from formspec_consult.providers.base import (
    INCOMPLETE,
    Completion,
    Provider,
    ProviderError,
    Retrying,
    TextDelta,
    ToolCall,
)
from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantDelta,
    AssistantMessage,
    DraftsChanged,
    Notice,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from formspec_consult.store.events import EventLog, EventLogWriteError
from formspec_consult.store.records import (
    EventRecord,
    NoticeRecord,
    RequestRecord,
    ResponseRecord,
    ToolCallRecord,
    ToolResultRecord,
    TurnFinishedRecord,
    TurnStartedRecord,
)

_T = TypeVar("_T")
_E = TypeVar("_E", bound=AgentEvent)


class ToolRunner(Protocol):
    """What the loop needs from the MCP side (MCPManager implements it; the consultant's offer and
    the verify pass wrap one). `refresh` re-lists the tools a server said changed, awaited before
    each request so new tools are offered from the next request on; `server_of` names the server
    of an exposed tool name for the log ("?" when no server has it)."""

    def tool_declarations(self) -> list[dict[str, Any]]: ...
    def server_of(self, exposed: str) -> str: ...
    async def refresh(self) -> bool: ...
    async def call(self, exposed: str, arguments: dict[str, Any] | None) -> ToolOutcome: ...


class DelegatingTools:
    """A ToolRunner around another one (``inner``): its declarations, server names and refresh are
    ``inner``'s, and so is ``call`` until a subclass changes what it answers (the model's view of our
    answers, the installed modules' detail, the verify pass)."""

    def __init__(self, inner: ToolRunner) -> None:
        self.inner = inner

    def tool_declarations(self) -> list[dict[str, Any]]:
        return self.inner.tool_declarations()

    def server_of(self, exposed: str) -> str:
        return self.inner.server_of(exposed)

    async def refresh(self) -> bool:
        return await self.inner.refresh()

    async def call(self, exposed: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        return await self.inner.call(exposed, arguments)


class AgentLoop:
    """Runs user turns against a provider, a history and a set of tools."""

    def __init__(
        self,
        *,
        provider: Provider,
        history: History,
        tools: ToolRunner,
        compressor: Compressor,
        log: EventLog,
        record: Callable[[AgentEvent], None],
        max_steps: int = 15,
        tool_result_cap: int = 8000,
        turn: int = 0,
    ) -> None:
        self.provider, self.history, self.tools, self.compressor = provider, history, tools, compressor
        self.log, self.record = log, record
        self.max_steps, self.tool_result_cap = max_steps, tool_result_cap
        self.turn = turn
        self.usage = UsageTotals()
        self.last_options: tuple[str, ...] = ()
        # Write tools the model calls need the person's permission (see permissions.py).
        self.permissions = Permissions()
        self._logged_tools_digest: str | None = None
        # The system prompt for a request's tool declarations (None: keep the history's): the
        # prompt names only tools the request offers, so it is written again when the offer
        # changes (logged: the history rebuilds it).
        self.system_prompt: Callable[[list[dict[str, Any]]], str | None] | None = None
        # Said on screen before the next request's reply (a change of phase: agent/engine/phase.py).
        self.notices: list[Notice] = []
        self._partial = ""  # text streamed by a reply that has not completed yet
        # The step budget of the last turn, when that turn used it up: the next turn's message says so
        # (set from the log on resume).
        self.stopped_at_budget: int | None = None
        self._budget_told = False  # this turn's drafting round was told the budget up front
        # A check of each turn's final reply that may ask the model once more (reask.py): the
        # session's reply language.
        self.reply_check: ReplyCheck | None = None
        self._unclosed_turn: int | None = None  # a turn whose turn_finished the log refused

    def count(self, messages: list[dict[str, Any]] | None = None) -> int:
        """Prompt tokens of a request with these messages (default: the history) and the tools."""
        return self.provider.count_tokens(
            self.history.messages if messages is None else messages, self.tools.tool_declarations()
        )

    def emit(self, event: _E) -> _E:
        """Record an event (transcript, UI-independent) and hand it back for yielding."""
        self.record(event)
        return event

    async def run_turn(self, user_text: str, note: str = "") -> AsyncGenerator[AgentEvent, None]:
        """Run one user turn; `user_text` is what the model receives (a resolved choice included),
        after `note` (what the person did since the last reply) when there is one."""
        if self._unclosed_turn is not None:  # the log could not take turn_finished: close it now
            self._repair_quietly()
            if self._log_quietly(TurnFinishedRecord(turn=self._unclosed_turn, reason="error",
                                                    error="the event log could not be written")) is not None:
                self._unclosed_turn = None
        self.last_options = ()
        try:
            self.log.write(TurnStartedRecord(turn=self.turn + 1, user_text=user_text))
        except EventLogWriteError as exc:  # nothing was recorded: the turn never started
            yield self.emit(Notice("error", str(exc)))
            yield self.emit(TurnFinished("error", error=str(exc)))
            return
        self.turn += 1
        yield self.emit(TurnStarted(self.turn, user_text))
        if self.stopped_at_budget is not None:  # the model is told its last turn was cut short
            note = "\n".join(filter(None, [budget_reached_note(self.stopped_at_budget), note]))
            self.stopped_at_budget = None
        self._budget_told = False
        self.history.add_user(f"{note}\n\n{user_text}" if note else user_text)
        finished: TurnFinished | None = None
        try:
            async with _closing(self._steps()) as steps:
                async for event in steps:
                    if isinstance(event, TurnFinished):
                        finished = event
                        break
                    yield event
        except (asyncio.CancelledError, GeneratorExit):
            self._finish_cancelled()
            raise
        except (ProviderError, EventLogWriteError) as exc:
            message = str(exc)
            if isinstance(exc, EventLogWriteError):
                self._repair_quietly()
            self._log_quietly(NoticeRecord(level="error", message=message))
            yield self.emit(Notice("error", message))
            finished = TurnFinished("error", error=message)
        except Exception as exc:  # a bug must not leave the session unusable
            self._repair_quietly()
            message = f"{type(exc).__name__}: {exc}"
            self._log_quietly(NoticeRecord(level="error", message=message))
            yield self.emit(Notice("error", message))
            finished = TurnFinished("error", error=message)
        finished = finished or TurnFinished("done")
        if self._log_quietly(TurnFinishedRecord(turn=self.turn, reason=finished.reason, error=finished.error)) is None:
            self._unclosed_turn = self.turn  # closed by the next turn, or by --resume
        yield self.emit(finished)

    def _repair_quietly(self) -> None:
        """Give unanswered tool calls a result, unless the log cannot take the repair (disk full)."""
        try:
            self.history.repair_pairing()
        except EventLogWriteError:
            pass

    def _log_quietly(self, record: EventRecord) -> EventRecord | None:
        """Append an event after a failure; returns it as written, None when the log itself cannot
        be written (disk full)."""
        try:
            return self.log.write(record)
        except EventLogWriteError:
            return None

    async def _steps(self) -> AsyncIterator[AgentEvent]:
        asked_again = False  # the reply check asks once per turn
        for step in range(1, self.max_steps + 1):
            async for event in self._compact_if_needed():
                yield event
            completion: Completion | None = None
            async with _closing(self._request()) as items:
                async for item in items:
                    if isinstance(item, Completion):
                        completion = item
                    else:
                        yield item
            assert completion is not None
            calls = list(completion.tool_calls)
            self.history.add_assistant(completion.text, calls)
            options = () if calls else find_options(completion.text)
            self.last_options = options
            yield self.emit(AssistantMessage(completion.text, tuple(_call_dict(c) for c in calls), options))
            yield self._usage_event(completion)
            failed = completion.finish_reason == INCOMPLETE and bool(completion.raw.get("server_error"))
            if completion.finish_reason == INCOMPLETE:
                why = completion.raw.get("cut_short") or _("the provider's stream ended before the reply was finished")
                message = _("The reply was cut off: {why}. What you read is kept; ask the consultant to continue.").format(
                    why=why)
                level: Literal["warning", "error"] = "error" if failed else "warning"  # the server failed: so did the turn
                self.log.write(NoticeRecord(level=level, message=message))
                yield self.emit(Notice(level, message))
                if failed:
                    yield TurnFinished("error", error=message)
                    return
            if completion.finish_reason == "length":
                message = _(
                    "The reply stopped at the model's output limit. Ask it to continue, or raise "
                    "reserved_output in the config."
                )
                self.log.write(NoticeRecord(level="warning", message=message))
                yield self.emit(Notice("warning", message))
            if not calls:
                if self.reply_check is not None and completion.finish_reason not in (INCOMPLETE, "length"):
                    reask = await self.reply_check(completion.text)
                    if reask is not None and not asked_again and step < self.max_steps:
                        asked_again = True
                        self.log.write(reask.record)
                        self.log.write(NoticeRecord(level="info", message=reask.notice))
                        yield self.emit(Notice("info", reask.notice))
                        self.history.add_user(reask.message)
                        continue
                    if reask is not None and asked_again:
                        self.log.write(NoticeRecord(level="warning", message=reask.gave_up))
                        yield self.emit(Notice("warning", reask.gave_up))
                yield TurnFinished("done")
                return
            if step == self.max_steps:
                for call in calls:  # keep the pairing valid: every call gets a result
                    self.history.add_tool_result(
                        call.id,
                        f"ERROR: not run — this turn's {self.max_steps} steps are used up. The person was "
                        "told; they can let you continue with their next message.",
                    )
                message = _(
                    "Stopped after {steps} steps in one turn: the consultant used every step "
                    "of this turn. What it did is kept (its drafts: /diff); send a message (\"continue\") "
                    "to let it go on, or rephrase the request."
                ).format(steps=self.max_steps)
                self.log.write(NoticeRecord(level="warning", message=message))
                yield self.emit(Notice("warning", message))
                self.stopped_at_budget = self.max_steps
                yield TurnFinished("step_limit", error=message)
                return
            footer = step_budget_note(self.max_steps - step)
            if footer is None and not self._budget_told and any(is_propose(c.name) for c in calls):
                footer = drafting_budget_note(self.max_steps, self.max_steps - step)  # once, as drafting starts
            self._budget_told = self._budget_told or footer is not None
            async for event in self._run_reply(calls, footer):
                yield event

    async def _compact_if_needed(self) -> AsyncIterator[AgentEvent]:
        if self.compressor.needs_compaction(self.history):
            done = await self.compressor.compact(self.history)
            if done is not None:
                yield self.emit(done)

    async def _request(self) -> AsyncIterator[AgentEvent | Completion]:
        """Send the history; yield AssistantDelta events and finally the Completion."""
        self.history.check_pairing()
        await self.tools.refresh()
        tools = self.tools.tool_declarations()
        prompt = self.system_prompt(tools) if self.system_prompt is not None else None
        if prompt is not None:
            self.history.set_system_prompt(prompt, "offer")
        while self.notices:
            yield self.emit(self.notices.pop(0))
        messages = self.history.snapshot()
        tokens = self.provider.count_tokens(messages, tools)
        digest = tools_digest(tools)
        changed = digest != self._logged_tools_digest  # the tools are logged again when they change
        self._logged_tools_digest = digest
        self.log.write(
            RequestRecord(
                message_count=len(messages),
                tokens=tokens,
                estimated=True,
                tools_sha256=digest,
                tools=tools if changed else None,
            )
        )
        self.usage.context_tokens, self.usage.reported = tokens, False
        completion: Completion | None = None
        self._partial = ""
        async with _closing(
            self.provider.stream(messages, tools)
        ) as stream:  # a cancel closes the HTTP stream
            async for item in stream:
                if isinstance(item, TextDelta):
                    if item.text:
                        self._partial += item.text
                        yield self.emit(AssistantDelta(item.text))
                elif isinstance(item, Retrying):  # never silent: a notice on screen and in the log
                    message = item.message()
                    self.log.write(NoticeRecord(level="warning", message=message,
                                                retry={"attempt": item.attempt, "delay": round(item.delay, 2)}))
                    yield self.emit(Notice("warning", message))
                else:
                    completion = item
        self._partial = ""
        if completion is None:
            raise ProviderError(_("the provider ended its reply without a completion"), hint=_("try again"))
        completion = _unique_call_ids(completion, self.history.messages)
        self.log.write(
            ResponseRecord(
                text=completion.text,
                tool_calls=[_call_dict(c) for c in completion.tool_calls],
                finish_reason=completion.finish_reason,
            )
        )
        yield completion

    def _usage_event(self, completion: Completion) -> UsageUpdated:
        self.log.write(self.usage.add(completion))
        totals, compressor = self.usage, self.compressor
        return self.emit(
            UsageUpdated(
                totals.context_tokens,
                compressor.threshold_tokens,
                compressor.usable_window,
                totals.reported,
                totals.cost,
                compressor.compactions,
            )
        )

    async def _run_reply(self, calls: list[ToolCall], footer: str | None = None) -> AsyncIterator[AgentEvent]:
        """Run a reply's tool calls in order; their results join the history in call order once
        all have run (also when the turn is cancelled meanwhile), so a proposal followed by a later
        call of the same reply that changes the drafts is judged again at the end of the reply
        (reply_set.py) before the model reads it: every verdict it reads is the reply's last word."""
        results: dict[str, str | list[dict[str, Any]]] = {}
        waiting: list[tuple[ToolCall, dict[str, Any], ToolOutcome, Verdict]] = []
        changed: list[tuple[int, str | None, Verdict | None]] = []  # draft changes that ran: (position, path, verdict)
        try:
            for position, call in enumerate(calls):
                ran = _Ran()
                async for event in self._start_tool(call, ran):
                    yield event
                arguments, outcome = ran.arguments, ran.outcome
                verdict = verdict_of(outcome.text) if outcome.ok and is_propose(call.name) else None
                if outcome.ok and changes_drafts(call.name):
                    changed.append((position, verdict.path if verdict else path_argument(arguments), verdict))
                if verdict is not None and any(changes_drafts(c.name) for c in calls[position + 1 :]):
                    waiting.append((call, arguments, outcome, verdict))  # judged once the reply has run
                    continue
                async for event in self._finish_tool(call, arguments, outcome, results):
                    yield event
            for call, arguments, outcome, _first in await self._judge_again(calls, waiting, changed):
                waiting = [w for w in waiting if w[0] is not call]
                async for event in self._finish_tool(call, arguments, outcome, results):
                    yield event
        finally:
            for call, _arguments, outcome, _first in waiting:  # cancelled meanwhile: the first answer stands
                logged = self._log_quietly(self._result_record(call, outcome))
                results.setdefault(call.id, self._content(outcome, None if logged is None else logged.seq, call.id))
            answered = [call for call in calls if call.id in results]
            for call in answered:
                content = results[call.id]
                if footer and call is answered[-1]:  # the step budget, after the reply's last result
                    content = _with_footer(content, footer)
                self.history.add_tool_result(call.id, content)

    async def _judge_again(
        self,
        calls: list[ToolCall],
        waiting: list[tuple[ToolCall, dict[str, Any], ToolOutcome, Verdict]],
        changed: list[tuple[int, str | None, Verdict | None]],
    ) -> list[tuple[ToolCall, dict[str, Any], ToolOutcome, Verdict]]:
        """The waiting proposals with their final answer: each asked again once the reply's later
        draft changes have run (its verdict and its count of problems elsewhere are then current),
        unless a later call of the reply settled its path (replaced, withdrew, rejected, applied)."""
        settled = []
        for call, arguments, outcome, first in waiting:
            position = calls.index(call)
            after = [(path, verdict) for p, path, verdict in changed if p > position]
            if after and not any(path is not None and same_draft(path, first.path) for path, _ in after):
                again = await self.tools.call(call.name, arguments)
                verdict = verdict_of(again.text) if again.ok else None
                if verdict is not None:
                    text, for_model = again.text, again.for_model
                    # a refused draft says it was judged with the rest (its problems are not the
                    # order's); a passing one only when the rest changed its verdict
                    if not first.valid or (verdict.valid, verdict.problems) != (first.valid, first.problems):
                        later = [v.path for _, v in after if v is not None and v.path != first.path]
                        note = note_for(later, first)
                        text = with_note(text, note)
                        for_model = None if for_model is None else with_note(for_model, note)
                    outcome = dataclasses.replace(
                        again, text=text, for_model=for_model, duration_ms=outcome.duration_ms + again.duration_ms
                    )
            settled.append((call, arguments, outcome, first))
        return settled

    async def _start_tool(self, call: ToolCall, ran: _Ran) -> AsyncIterator[AgentEvent]:
        """Log and announce a call, then run it (unless its arguments or permissions refuse it);
        its arguments and answer go to `ran`."""
        outcome: ToolOutcome | None = None
        try:
            arguments = parse_arguments(call.arguments)
        except ArgumentsError as exc:
            arguments, outcome = {}, ToolOutcome("?", call.name, False, f"ERROR: {exc}", 0.0)
        server = self.tools.server_of(call.name)
        self.log.write(ToolCallRecord(call_id=call.id, server=server, name=call.name, arguments=arguments))
        yield self.emit(ToolCallStarted(call.id, server, call.name, arguments))
        if outcome is None:
            refusal = await self.permissions.check(call.id, call.name, arguments)
            if refusal is not None:
                outcome = ToolOutcome(server, call.name, False, refusal, 0.0)
        if outcome is None:
            started = time.perf_counter()
            outcome = await self.tools.call(call.name, arguments)
            if outcome.duration_ms == 0.0:
                outcome = dataclasses.replace(outcome, duration_ms=(time.perf_counter() - started) * 1000)
        ran.arguments, ran.outcome = arguments, outcome

    def _result_record(self, call: ToolCall, outcome: ToolOutcome) -> ToolResultRecord:
        sent = self._sent_text(outcome)
        return ToolResultRecord(
            call_id=call.id,
            server=outcome.server,
            name=call.name,
            ok=outcome.ok,
            result=outcome.text,
            duration_ms=round(outcome.duration_ms, 1),
            # a view the cap cuts is logged too: a cut's read_transcript pages the very text sent
            shown=sent if sent is not outcome.text and len(sent) > self.tool_result_cap > 0 else None,
        )

    def _sent_text(self, outcome: ToolOutcome) -> str:
        """The text the model is sent of an answer before the cap: its view when a layer wrote a
        shorter one (agent/engine/result_view.py), else the answer itself."""
        if outcome.for_model is not None and len(outcome.for_model) <= len(outcome.text):
            return outcome.for_model
        return outcome.text

    def _content(self, outcome: ToolOutcome, seq: int | None, call_id: str) -> str | list[dict[str, Any]]:
        """What the model reads of an answer: its view (or the answer), capped; the log and the UI
        keep the whole answer. A cut's note pages the text sent from where the cut fell (the log
        keeps a cut view as the result's `shown`), so the model reads on exactly what it was shown."""
        content: str | list[dict[str, Any]] = cap_result(self._sent_text(outcome), self.tool_result_cap, seq, call_id)
        if outcome.parts and self.provider.supports_images:
            # Images go next to the text that names them, for models that take them; others
            # read only the placeholder. The message (images included) is what the log keeps.
            content = [{"type": "text", "text": content}, *outcome.parts]
        return content

    async def _finish_tool(
        self, call: ToolCall, arguments: dict[str, Any], outcome: ToolOutcome,
        results: dict[str, str | list[dict[str, Any]]],
    ) -> AsyncIterator[AgentEvent]:
        """Log and announce a call's answer; what the model reads of it goes to `results`."""
        logged = self.log.write(self._result_record(call, outcome))
        results[call.id] = self._content(outcome, logged.seq, call.id)
        yield self.emit(
            ToolCallFinished(
                call.id, outcome.server, call.name, outcome.ok, outcome.text, outcome.duration_ms
            )
        )
        paths = drafts_touched(call.name, arguments, outcome.ok)
        if paths is not None:
            yield self.emit(DraftsChanged(paths))

    def _finish_cancelled(self) -> None:
        """Leave a valid history after a cancelled turn, and say so in the log and transcript."""
        if self._partial.strip():  # what the person already read stays in the model's view
            self.history.add_assistant(self._partial.rstrip() + "\n[reply interrupted by the user]")
            self._partial = ""
        actions = self.history.repair_pairing()
        self.log.write(TurnFinishedRecord(turn=self.turn, reason="cancelled", error=None, repaired=actions))
        self.record(TurnFinished("cancelled"))


#: from this many requests left in a turn, the model is told its step budget after each tool round
STEP_BUDGET_SHOWN = 3


def step_budget_note(left: int) -> str | None:
    """The footer the model reads after a tool round when `left` requests remain in the turn."""
    if left > STEP_BUDGET_SHOWN:
        return None
    if left <= 1:
        return ("[Step budget: the next request is the last of this turn. Reply to the person then, without "
                "tool calls: say what was done and what is left; they can let you continue.]")
    return f"[Step budget: {left} requests left in this turn. Finish what you are doing, then reply to the person.]"


def drafting_budget_note(budget: int, left: int) -> str:
    """The footer of a turn's first drafting round: the turn's budget, told up front."""
    return (f"[Step budget: this turn has {budget} requests, {left} left. Draft what fits; say what is left "
            "for the next turn.]")


def budget_reached_note(budget: int) -> str:
    """The line before the person's next message after a turn used its whole budget."""
    return (f"[Your last turn reached its step budget ({budget} requests) and was stopped: the tool calls of "
            "its last reply were not run.]")


def _with_footer(content: str | list[dict[str, Any]], footer: str) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return f"{content}\n\n{footer}"
    return [*content, {"type": "text", "text": footer}]


@dataclasses.dataclass
class _Ran:
    """A tool call's parsed arguments and its answer, filled in by `AgentLoop._start_tool`."""

    arguments: dict[str, Any] = dataclasses.field(default_factory=dict)
    outcome: ToolOutcome = dataclasses.field(default_factory=lambda: ToolOutcome("?", "?", False, "ERROR: not run", 0.0))


@asynccontextmanager
async def _closing(iterator: AsyncIterator[_T]) -> AsyncIterator[AsyncIterator[_T]]:
    """Close an async generator as soon as its consumer stops (break, error or cancel), not at GC."""
    try:
        yield iterator
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()


def _unique_call_ids(completion: Completion, messages: list[dict[str, Any]]) -> Completion:
    """The completion with every tool-call id unique in the reply and the history.

    Some OpenAI-compatible servers number calls per reply (two ``call_0`` in one answer, or the
    same id in every answer); chat APIs refuse such a history for ever, so ids are renamed on
    receipt, deterministically (``call_0`` → ``call_0~2``) so a replay renames them the same way.
    """
    taken = {call["id"] for m in messages for call in m.get("tool_calls") or []}
    renamed, changed = [], False
    for call in completion.tool_calls:
        call_id, n = call.id, 1
        while call_id in taken:
            n += 1
            call_id = f"{call.id}~{n}"
        taken.add(call_id)
        changed = changed or call_id != call.id
        renamed.append(ToolCall(id=call_id, name=call.name, arguments=call.arguments))
    return dataclasses.replace(completion, tool_calls=tuple(renamed)) if changed else completion


def _call_dict(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "name": call.name, "arguments": call.arguments}
