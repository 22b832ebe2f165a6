"""Turns agent events into widget updates (attributes down); the only place that knows both.

The app owns one presenter; the engine never sees a widget. `history()` converts a resumed
session's past events into finished conversation entries and tool calls in one pass, so a long
session opens with a single mount.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rich.markup import escape

from formspec_consult.i18n import N_, _, format_number
from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantDelta,
    AssistantMessage,
    CompactionDone,
    DraftsChanged,
    Notice,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from formspec_consult.tui.widgets.assistant_block import AssistantBlock
from formspec_consult.tui.widgets.choice_bar import ChoiceBar
from formspec_consult.tui.widgets.conversation import ConversationView, Entry
from formspec_consult.tui.widgets.status_bar import StatusBar
from formspec_consult.tui.widgets.tool_calls import ToolCallsPane

# How the history was compacted (CompactionDone.method), in words for the person.
COMPACTION_METHODS = {"pruned": N_("pruned"), "summarised": N_("summarised by the model"),
                      "extractive": N_("extracted without the model")}


def compaction_method(method: str) -> str:
    """A compaction's method in the person's language (an unknown one as logged)."""
    return _(COMPACTION_METHODS[method]) if method in COMPACTION_METHODS else method


def compaction_entry(event: CompactionDone) -> Entry:
    """The conversation entry that shows a compaction and keeps its summary readable."""
    # A Collapsible title is read as markup: the method comes from the log, so escape it.
    title = _(
        "History compacted ({method}): {n} messages, {before} → {after} tokens — expand to read the summary"
    ).format(method=escape(compaction_method(str(event.method))), n=format_number(event.replaced_messages),
             before=format_number(event.tokens_before), after=format_number(event.tokens_after))
    return Entry("compaction", event.summary, title=title)


@dataclass
class History:
    """Past events folded into what the panes show."""

    entries: list[Entry] = field(default_factory=list)
    calls: list[tuple[ToolCallStarted | None, ToolCallFinished | None]] = field(default_factory=list)
    options: tuple[str, ...] = ()
    usage: UsageUpdated | None = None
    compactions: int = 0


def history(events: Iterable[AgentEvent]) -> History:
    """Fold past events: deltas are dropped (the full message follows), calls are paired by id."""
    out = History()
    open_calls: dict[str, int] = {}
    for event in events:
        if isinstance(event, TurnStarted):
            out.entries.append(Entry("user", event.user_text))
            out.options = ()
        elif isinstance(event, AssistantMessage):
            if event.text.strip():
                out.entries.append(Entry("assistant", event.text))
            out.options = event.options
        elif isinstance(event, ToolCallStarted):
            open_calls[event.call_id] = len(out.calls)
            out.calls.append((event, None))
        elif isinstance(event, ToolCallFinished):
            index = open_calls.pop(event.call_id, None)
            if index is None:
                out.calls.append((None, event))
            else:
                out.calls[index] = (out.calls[index][0], event)
        elif isinstance(event, CompactionDone):
            out.entries.append(compaction_entry(event))
            out.compactions += 1
        elif isinstance(event, Notice):
            out.entries.append(Entry(f"notice-{event.level}", event.message))
        elif isinstance(event, UsageUpdated):
            out.usage = event
    return out


class Presenter:
    """Applies live events to the panes of one app."""

    def __init__(
        self,
        conversation: ConversationView,
        tools: ToolCallsPane,
        choices: ChoiceBar,
        status: StatusBar,
        *,
        notify: Callable[[str, str], None],
        drafts_changed: Callable[[tuple[str, ...]], None],
    ) -> None:
        self.conversation = conversation
        self.tools = tools
        self.choices = choices
        self.status = status
        self._notify = notify
        self._drafts_changed = drafts_changed
        self.reply: AssistantBlock | None = None

    async def load(self, events: Iterable[AgentEvent]) -> None:
        """Show a resumed session's earlier conversation, tool calls, options and usage at once."""
        past = history(events)
        await self.conversation.load(past.entries)
        await self.tools.load(past.calls)
        self.choices.options = past.options
        if past.usage is not None:
            self.usage(past.usage)
        info = self.status.info
        # The log is the authority on how often this session was compacted, whatever the engine counted.
        self.status.info = info.with_(compactions=max(info.compactions, past.compactions))

    def usage(self, event: UsageUpdated) -> None:
        """Show the latest context and cost figures."""
        self.status.info = self.status.info.with_(
            context_tokens=event.context_tokens,
            threshold_tokens=event.threshold_tokens,
            window_tokens=event.window_tokens,
            reported=event.reported,
            cost=event.session_cost if event.session_cost is not None else self.status.info.cost,
            compactions=event.compactions,
        )

    async def show(self, event: AgentEvent) -> None:
        """Apply one live event."""
        if isinstance(event, TurnStarted):
            self.choices.options = ()
            self.status.info = self.status.info.with_(state="thinking…")
            await self.conversation.add(Entry("user", event.user_text))
        elif isinstance(event, AssistantDelta):
            if self.reply is None:
                self.reply = await self.conversation.start_reply()
            await self.reply.write(event.text)
        elif isinstance(event, AssistantMessage):
            if self.reply is not None:
                await self.reply.finish(event.text if event.text.strip() else None)
                self.reply = None
            elif event.text.strip():
                await self.conversation.add(Entry("assistant", event.text))
            self.choices.options = event.options
        elif isinstance(event, ToolCallStarted):
            self.status.info = self.status.info.with_(state=f"running {event.name}…")
            await self.tools.start_call(event.call_id, event.server, event.name, event.arguments)
        elif isinstance(event, ToolCallFinished):
            self.status.info = self.status.info.with_(state="thinking…")
            await self.tools.finish_call(
                event.call_id, event.server, event.name, event.ok, event.result, event.duration_ms
            )
        elif isinstance(event, UsageUpdated):
            self.usage(event)
        elif isinstance(event, CompactionDone):
            info = self.status.info
            self.status.info = info.with_(compactions=info.compactions + 1)
            await self.conversation.add(compaction_entry(event))
            self._notify(_("History compacted ({method}); the summary is in the conversation.").format(
                method=compaction_method(event.method)), "information")
        elif isinstance(event, DraftsChanged):
            self._drafts_changed(tuple(event.paths))
        elif isinstance(event, Notice):
            await self.conversation.add(Entry(f"notice-{event.level}", event.message))
            if event.level != "info":
                self._notify(event.message, "error" if event.level == "error" else "warning")
        elif isinstance(event, TurnFinished):
            await self.end_turn(event.reason, event.error)

    async def end_turn(self, reason: str, error: str | None = None) -> None:
        """Settle a reply left open (cancel, error) and report how the turn ended."""
        if self.reply is not None:
            note = {"cancelled": _("(cancelled)"), "error": _("(stopped by an error)")}.get(reason)
            await self.reply.finish(note=note)
            self.reply = None
        self.status.info = self.status.info.with_(state="ready")
        if reason == "cancelled":
            self._notify(_("Turn cancelled."), "warning")
            await self.conversation.add(Entry("notice-warning", _("You cancelled the turn (Esc).")))
        elif reason == "step_limit":
            self._notify(_("The turn stopped at the tool-step limit; send a message to continue."), "warning")
        elif reason == "error":
            self._notify(error or _("The turn failed."), "error")
            shown = [getattr(b, "text", "") for b in self.conversation.blocks[-3:]]
            if error and error not in shown:  # the cause stays in the conversation, not only in a toast
                await self.conversation.add(Entry("notice-error", error))
