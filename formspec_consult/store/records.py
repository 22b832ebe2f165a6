"""The events of `events.jsonl` as typed records: one frozen dataclass per event type.

The on-disk format is the one :class:`~formspec_consult.store.events.EventLog` has always written
— one JSON object per line, ``{"v", "seq", "ts", "type"}`` beside the event's data — and a record
keeps everything it was read from: fields this version does not name stay in ``extra``, and the
order of the keys as read is kept too, so an old log read and written back is byte for byte the
same. A record made in code (``NoticeRecord(level="warning", message=…)``) is appended with
:meth:`EventLog.write`, which returns it as written (with its ``seq`` and ``ts``).

Readers ignore types they do not know: those come back as :class:`UnknownRecord`. A line whose
field has the wrong JSON type (``"turn": "two"``, a hand edit) is never read as if it were right:
when it changes what the model sees (``message``, ``compaction``, ``repair``) reading it raises
:class:`EventLogError` naming the line and what to do; any other comes back as a
:class:`MalformedRecord` — kept whole (written back as it was), skipped by the readers, with a
logged warning.
"""

from __future__ import annotations

import json
import logging
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal, Union, get_args, get_origin, get_type_hints

from formspec_consult.errors import UserError
from formspec_consult.store.layout import EVENTS

__all__ = [
    "RECORD_TYPES",
    "SCHEMA_VERSION",
    "ApplyRecord",
    "CommandRecord",
    "CompactionRecord",
    "DecisionRecord",
    "EventLogError",
    "EventRecord",
    "LanguageRecheckRecord",
    "LanguageRecord",
    "MalformedRecord",
    "MessageRecord",
    "NoticeRecord",
    "PhaseRecord",
    "RejectRecord",
    "RepairRecord",
    "RequestRecord",
    "ResponseRecord",
    "RewindRecord",
    "SessionResumedRecord",
    "SessionStartedRecord",
    "SideReplyRecord",
    "SummaryWrittenRecord",
    "SystemPromptRecord",
    "ToolCallRecord",
    "ToolResultRecord",
    "TurnFinishedRecord",
    "TurnStartedRecord",
    "UndoRecord",
    "UnknownRecord",
    "UsageRecord",
    "dump_event",
    "record_from_json",
]

SCHEMA_VERSION = 1
ENVELOPE = ("v", "seq", "ts", "type")
_BASE = frozenset({"v", "seq", "ts", "extra", "order"})
Message = dict[str, Any]
NoticeLevel = Literal["info", "warning", "error"]
TurnEnd = Literal["done", "cancelled", "step_limit", "error"]
CompactionMethod = Literal["pruned", "summarised", "extractive"]

RECORD_TYPES: dict[str, type[EventRecord]] = {}
_log = logging.getLogger(__name__)


class EventLogError(UserError, ValueError):
    """Bad input to the event log (reserved field names, a type that is not a plain name, a damaged
    line the conversation cannot be rebuilt without, …)."""


@dataclass(frozen=True, kw_only=True)
class EventRecord:
    """One logged event. Subclasses name their ``TYPE`` and their data fields, in written order."""

    TYPE: ClassVar[str] = ""
    # fields left out of a record made in code while they are None (the writers omit them)
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    seq: int = 0
    ts: str = ""
    v: int = SCHEMA_VERSION
    extra: Mapping[str, Any] = field(default_factory=dict)  # data this version does not name
    order: tuple[str, ...] = field(default=(), compare=False, repr=False)  # keys as read from disk

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.TYPE:
            RECORD_TYPES[cls.TYPE] = cls

    @property
    def type(self) -> str:
        """The event type, as spelled in the log."""
        return self.TYPE

    def data(self) -> dict[str, Any]:
        """The event's data (no envelope), in the order it is written."""
        values: dict[str, Any] = {}
        for name in _data_fields(type(self)):
            value = getattr(self, name)
            if self.order:
                if name in self.order:
                    values[name] = value
            elif not self._left_out(name, value):
                values[name] = value
        values.update(self.extra)
        if self.order:
            rank = {key: index for index, key in enumerate(self.order)}
            values = dict(sorted(values.items(), key=lambda item: rank.get(item[0], len(rank))))
        return values

    def _left_out(self, name: str, value: object) -> bool:
        """True when a record made in code leaves field `name` out (an OPTIONAL field left None)."""
        return value is None and name in self.OPTIONAL

    def to_line(self) -> bytes:
        """The whole log line, newline included, exactly as the event log writes it."""
        return (dump_event(self.to_json()) + "\n").encode("utf-8")

    def to_json(self) -> dict[str, Any]:
        """The JSON object of the log line."""
        envelope = {"v": self.v, "seq": self.seq, "ts": self.ts, "type": self.type}
        if self.order:  # as read: the envelope keys it had, where it had them
            every = {**envelope, **self.data()}
            rank = {key: index for index, key in enumerate(self.order)}
            kept = {key: value for key, value in every.items() if key in rank or key not in ENVELOPE}
            return dict(sorted(kept.items(), key=lambda item: rank.get(item[0], len(rank))))
        return {**envelope, **self.data()}


def dump_event(event: Mapping[str, Any], default: Callable[[Any], Any] | None = None) -> str:
    """One event as its log line (without the newline): compact, UTF-8 kept as is."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"), default=default)


_FIELDS: dict[str, tuple[str, ...]] = {}


def _data_fields(cls: type[EventRecord]) -> tuple[str, ...]:
    """A record class's data fields, in written order (cached per class)."""
    key = cls.__qualname__
    if key not in _FIELDS:
        _FIELDS[key] = tuple(f.name for f in fields(cls) if f.name not in _BASE | {"event_type", "problem"})
    return _FIELDS[key]


def record_from_json(data: Mapping[str, Any], *, check: bool = True, source: str = EVENTS) -> EventRecord:
    """The record of one log line's JSON object (an unknown type gives an :class:`UnknownRecord`).

    With `check` (readers), a field of the wrong JSON type gives a :class:`MalformedRecord`, or
    raises :class:`EventLogError` for the types that change what the model sees (see the module);
    `source` names the log in what is said.
    """
    kind = str(data.get("type", ""))
    cls = RECORD_TYPES.get(kind, UnknownRecord)
    names = set(_data_fields(cls))
    known = {key: value for key, value in data.items() if key in names}
    extra = {key: value for key, value in data.items() if key not in names and key not in ENVELOPE}
    seq, v = data.get("seq", 0), data.get("v", SCHEMA_VERSION)
    envelope: dict[str, Any] = {
        "seq": seq if isinstance(seq, int) else 0,
        "ts": str(data.get("ts", "")),
        "v": v if isinstance(v, int) else SCHEMA_VERSION,
        "extra": extra,
        "order": tuple(data),
    }
    if cls is UnknownRecord:
        envelope["event_type"] = kind
    elif check and (problem := _misfit(cls, known)) is not None:
        where = f"the {kind!r} event with seq {data.get('seq')!r}"
        if cls in _CHANGES_HISTORY:
            raise EventLogError(
                f"{source} is damaged: in {where}, {problem}. The conversation cannot be rebuilt "
                "without it: restore the file from a backup (or fix that line by hand), or start a new "
                "session."
            )
        _log.warning("%s: in %s, %s; the line is kept as it is and not read", source, where, problem)
        envelope.update(event_type=kind, problem=problem, extra={k: v for k, v in data.items() if k not in ENVELOPE})
        return MalformedRecord(**envelope)
    return cls(**known, **envelope)


_HINTS: dict[type[EventRecord], dict[str, Any]] = {}


def _misfit(cls: type[EventRecord], known: Mapping[str, Any]) -> str | None:
    """What is wrong with the first field of `known` whose JSON type the record does not take."""
    if cls not in _HINTS:
        _HINTS[cls] = get_type_hints(cls)
    hints = _HINTS[cls]
    for name, value in known.items():
        if not _fits(value, hints[name]):
            shown = json.dumps(value, ensure_ascii=False, default=str)
            shown = shown if len(shown) <= 40 else shown[:39] + "…"
            return f"{name!r} is {shown}, not {_describe(hints[name])}"
    return None


def _fits(value: Any, hint: Any) -> bool:
    """True when a JSON value has the shape of a field's type (containers one level deep)."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return True
    if hint is type(None):
        return value is None
    if origin is Union or origin is types.UnionType:
        return any(_fits(value, arg) for arg in args)
    if origin is Literal:  # the type only: a newer writer may add a value, read as a plain string
        return any(isinstance(value, type(arg)) for arg in args)
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin in (dict, Mapping):
        return isinstance(value, dict)
    if origin in (list, tuple, Sequence):
        item = args[0] if args else Any
        return isinstance(value, list) and all(_fits(each, item) for each in value)
    return True  # a type this check does not know: not refused


def _describe(hint: Any) -> str:
    origin, args = get_origin(hint), get_args(hint)
    if origin is Union or origin is types.UnionType:
        return " or ".join(_describe(arg) for arg in args)
    if origin is Literal:
        return "a string"
    if origin in (dict, Mapping):
        return "an object"
    if origin in (list, tuple, Sequence):
        return "a list"
    names = {bool: "true or false", int: "a whole number", float: "a number", str: "a string", type(None): "null"}
    return names.get(hint, str(hint))


@dataclass(frozen=True, kw_only=True)
class UnknownRecord(EventRecord):
    """An event type this version does not know: kept whole (all its data is in ``extra``)."""

    event_type: str = ""

    @property
    def type(self) -> str:
        return self.event_type


@dataclass(frozen=True, kw_only=True)
class MalformedRecord(UnknownRecord):
    """A line of a known type with a field of the wrong JSON type: kept whole, not read."""

    problem: str = ""


@dataclass(frozen=True, kw_only=True)
class _SessionMeta(EventRecord):
    """What a session runs with: recorded when it starts and each time it is resumed."""

    session_id: str = ""
    model: str = ""
    provider: str = ""
    base_url: str | None = None
    project: str = ""
    allow_unvalidated: bool = False
    verify: str | None = None
    window: int | None = None  # the model's context window
    usable_window: int | None = None
    threshold_tokens: int | None = None


@dataclass(frozen=True, kw_only=True)
class SessionStartedRecord(EventRecord):
    TYPE: ClassVar[str] = "session_started"

    created: str = ""
    context_tools: Sequence[str] = ()  # the tools whose output the system prompt holds
    session_id: str = ""
    model: str = ""
    provider: str = ""
    base_url: str | None = None
    project: str = ""
    allow_unvalidated: bool = False
    verify: str | None = None
    window: int | None = None
    usable_window: int | None = None
    threshold_tokens: int | None = None
    # A fork (``--resume ID --fork``, ``/fork``) names the session it copied and the last seq and
    # turn it holds of it; left out of every other session's header.
    forked_from: str | None = None
    forked_at_seq: int | None = None
    forked_at_turn: int | None = None

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"forked_from", "forked_at_seq", "forked_at_turn"})


@dataclass(frozen=True, kw_only=True)
class SessionResumedRecord(_SessionMeta):
    TYPE: ClassVar[str] = "session_resumed"


@dataclass(frozen=True, kw_only=True)
class MessageRecord(EventRecord):
    """A message the model sees from now on (appended to the history)."""

    TYPE: ClassVar[str] = "message"

    message: Message = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class CompactionRecord(EventRecord):
    """Old tool outputs pruned to stubs, and ``messages[start:end]`` replaced by a summary."""

    TYPE: ClassVar[str] = "compaction"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"pruned_tools"})

    start: int = 0
    end: int = 0
    summary_message: Message | None = None
    method: CompactionMethod = "summarised"
    pruned: Sequence[int] = ()
    stubs: Sequence[str] = ()
    pruned_tools: Sequence[str | None] | None = None  # the tool of each pruned output
    focus: str | None = None
    tokens_after: int = 0
    tokens_before: int = 0


@dataclass(frozen=True, kw_only=True)
class RepairRecord(EventRecord):
    """Tool-call pairing repaired: messages at ``remove`` dropped, ``[index, message]`` inserted."""

    TYPE: ClassVar[str] = "repair"

    actions: Sequence[str] = ()
    remove: Sequence[int] = ()
    insert: Sequence[Sequence[Any]] = ()


@dataclass(frozen=True, kw_only=True)
class SystemPromptRecord(EventRecord):
    """The system prompt (the history's first message) written again: for the tools a request
    offers (the Draft phase's differ from Discovery's), or with the project's context read afresh
    when a session is resumed. ``reason`` says which."""

    TYPE: ClassVar[str] = "system_prompt"

    message: Message = field(default_factory=dict)
    reason: str = ""


RewindMode = Literal["both", "files", "conversation"]


@dataclass(frozen=True, kw_only=True)
class RewindRecord(EventRecord):
    """The session went back to the end of turn ``to_turn`` (``to_seq``: the last event of it).

    With ``mode`` ``both`` or ``conversation`` the model-visible list becomes what it was at
    ``to_seq`` (rebuilt from the log, a compaction since included: see store/rebuild.py); with
    ``files`` the conversation stays. ``undone`` names the drafts whose applies were undone,
    ``withdrawn`` the drafts taken out of review, ``restored`` those put back as they were at
    that turn; ``note`` is what the model is told with the next message (store/rewind.py)."""

    TYPE: ClassVar[str] = "rewind"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"note"})

    to_turn: int = 0
    to_seq: int = 0
    mode: RewindMode = "both"
    undone: Sequence[str] = ()
    withdrawn: Sequence[str] = ()
    restored: Sequence[str] = ()
    note: str | None = None

    @property
    def cuts_conversation(self) -> bool:
        return self.mode != "files"


# what rebuild_history applies
_CHANGES_HISTORY = (MessageRecord, CompactionRecord, RepairRecord, SystemPromptRecord, RewindRecord)


@dataclass(frozen=True, kw_only=True)
class RequestRecord(EventRecord):
    """A request to the model (the tools are logged again only when they change)."""

    TYPE: ClassVar[str] = "request"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"purpose", "tools_sha256", "tools"})

    purpose: str | None = None  # a side request (a summary), not the conversation
    message_count: int = 0
    tokens: int = 0
    estimated: bool = True
    tools_sha256: str | None = None
    tools: Sequence[Mapping[str, Any]] | None = None


@dataclass(frozen=True, kw_only=True)
class ResponseRecord(EventRecord):
    TYPE: ClassVar[str] = "response"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"usage"})

    text: str = ""
    tool_calls: Sequence[Mapping[str, Any]] = ()
    usage: Mapping[str, Any] | None = None
    finish_reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class SideReplyRecord(EventRecord):
    """The reply to a request outside the conversation (a compaction summary, /summary)."""

    TYPE: ClassVar[str] = "side_reply"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset(
        {"prompt", "prompt_tokens", "completion_tokens", "cached_tokens", "cost"}
    )

    purpose: str = ""
    prompt: str | None = None  # "name@version" of the prompt sent (the verify pass names it)
    text: str = ""
    # the usage of a prompted side request: written with its prompt, null when none was reported
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    cost: float | None = None

    def _left_out(self, name: str, value: object) -> bool:
        if name in _SIDE_USAGE:
            return self.prompt is None
        return super()._left_out(name, value)


_SIDE_USAGE = frozenset({"prompt_tokens", "completion_tokens", "cached_tokens", "cost"})


@dataclass(frozen=True, kw_only=True)
class ToolCallRecord(EventRecord):
    TYPE: ClassVar[str] = "tool_call"

    call_id: str = ""
    server: str = "?"
    name: str = ""
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class ToolResultRecord(EventRecord):
    """A tool's whole answer; `shown` is the model's view of it when that view was longer than the
    result cap, so the model read it cut (read_transcript pages the text the model was shown)."""

    TYPE: ClassVar[str] = "tool_result"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"shown"})

    call_id: str = ""
    server: str = "?"
    name: str = ""
    ok: bool = False
    result: str = ""
    duration_ms: float = 0.0
    shown: str | None = None


@dataclass(frozen=True, kw_only=True)
class TurnStartedRecord(EventRecord):
    TYPE: ClassVar[str] = "turn_started"

    turn: int = 0
    user_text: str = ""


@dataclass(frozen=True, kw_only=True)
class TurnFinishedRecord(EventRecord):
    TYPE: ClassVar[str] = "turn_finished"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"repaired"})

    turn: int = 0
    reason: TurnEnd = "done"
    error: str | None = None
    repaired: Sequence[str] | None = None  # pairing repairs made when a turn was closed


@dataclass(frozen=True, kw_only=True)
class DecisionRecord(EventRecord):
    """The person picked an offered option (``B``) for the next turn."""

    TYPE: ClassVar[str] = "decision"

    turn: int = 0
    answer: str = ""
    option: str = ""


@dataclass(frozen=True, kw_only=True)
class UsageRecord(EventRecord):
    TYPE: ClassVar[str] = "usage"

    context_tokens: int = 0
    reported: bool = False
    prompt_tokens: int = 0
    completion_tokens: int | None = None
    cached_tokens: int = 0
    cost: float | None = None
    session_cost: float | None = None


@dataclass(frozen=True, kw_only=True)
class NoticeRecord(EventRecord):
    TYPE: ClassVar[str] = "notice"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"retry"})

    level: NoticeLevel = "info"
    message: str = ""
    retry: Mapping[str, Any] | None = None  # {attempt, delay} of a retried model request


@dataclass(frozen=True, kw_only=True)
class PhaseRecord(EventRecord):
    """The consultation entered a phase (agent/engine/phase.py): ``draft`` at the first draft,
    ``iterate`` on a project that held a design (``designed``) or after applies (``applied``)."""

    TYPE: ClassVar[str] = "phase"

    phase: str = ""
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class ApplyRecord(EventRecord):
    """A draft applied to the project (recorded by the local server, whoever asked)."""

    TYPE: ClassVar[str] = "apply"

    path: str = ""
    file: str | None = None
    backup: str | None = None
    undo_step: int | None = None
    forced: bool | None = None


@dataclass(frozen=True, kw_only=True)
class UndoRecord(EventRecord):
    TYPE: ClassVar[str] = "undo"

    path: str = ""
    file: str | None = None
    outcome: str | None = None
    undo_step: int | None = None


@dataclass(frozen=True, kw_only=True)
class RejectRecord(EventRecord):
    TYPE: ClassVar[str] = "reject"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"reason"})

    path: str = ""
    reason: str | None = None  # the person's reason, told to the model with the rejection


@dataclass(frozen=True, kw_only=True)
class EditRecord(EventRecord):
    """The person edited a draft (their version is now the draft); `diff` is what they changed."""

    TYPE: ClassVar[str] = "edit"

    path: str = ""
    diff: str = ""
    valid: bool = True


@dataclass(frozen=True, kw_only=True)
class PartRecord(EventRecord):
    """The person accepted part of a draft: `accepted` blocks were applied as their own draft (see
    the apply event that follows), `rejected` blocks went back to the model as a rejection."""

    TYPE: ClassVar[str] = "partial"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"reason"})

    path: str = ""
    accepted: Sequence[str] = ()
    rejected: Sequence[str] = ()
    reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class CommandRecord(EventRecord):
    """A slash command run at this point of the session."""

    TYPE: ClassVar[str] = "command"

    turn: int = 0
    name: str = ""
    args: Sequence[str] = ()


@dataclass(frozen=True, kw_only=True)
class LanguageRecord(EventRecord):
    """The session's reply language set or switched (an ISO 639 code): from the owner's first
    message (`detected`), `--lang` (`flag`) or `/language` (`command`). The latest one holds."""

    TYPE: ClassVar[str] = "language"

    language: str = ""
    source: str = ""


@dataclass(frozen=True, kw_only=True)
class LanguageRecheckRecord(EventRecord):
    """A reply in another language than the session's (`found`, not `expected`): asked once more."""

    TYPE: ClassVar[str] = "language_recheck"

    turn: int = 0
    expected: str = ""
    found: str = ""


@dataclass(frozen=True, kw_only=True)
class SummaryWrittenRecord(EventRecord):
    """`/summary` wrote the discovery summary (its text is also the reply shown)."""

    TYPE: ClassVar[str] = "summary_written"

    path: str = ""
    text: str = ""
