"""The consultation's phase — Discovery, Draft or Iterate — and where a change of it is said.

- **Discovery** until the first draft; **Draft** from then on (the offer's Draft phase,
  agent/engine/offer.py: its tools come with the first draft).
- **Iterate** when the project already held a design of its own as the session started (entities
  in its own modules: an applied project), or when the person writes again after drafts of this
  session were applied and none is left under review (a change request after applies). Once
  there, for the rest of the session. FormSpec's own workflow skill (formspec-app-workflow) names
  this fourth phase: a change is classified (business, design or field level), the documents and
  specs are updated top-down, and a dated changelog entry records it.

The tracker is asked once per request (by the system prompt's hook, after the offer is known): the
system prompt carries the phase's rules (the consultant prompt's ``iterating`` variable), and each
change is a ``phase`` event in the log (a resume reads it back), a note in the transcript, a
notice on screen, and ``Engine.status().phase``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from formspec_consult.i18n import N_, _
from formspec_consult.store.layout import SessionLayout

if TYPE_CHECKING:  # the status bar's phase_title is in the app's first frame: the log's records are not
    from formspec_consult.store.agent_events import Notice
    from formspec_consult.store.records import EventRecord, PhaseRecord

Phase = Literal["discovery", "draft", "iterate"]
PhaseReason = Literal["drafted", "designed", "applied"]
PHASE_TITLES: dict[str, str] = {"discovery": N_("Discovery"), "draft": N_("Draft"), "iterate": N_("Iterate")}
# What the person is told when the phase changes (marked: said in their language where it is shown).
ANNOUNCEMENTS: dict[str, str] = {
    "drafted": N_("Phase: Draft — the first draft is written; review drafts with /diff."),
    "designed": N_("Phase: Iterate — this project already has a design: a request is a change to it, "
                   "drafted top-down (documents, then specs) with a dated entry in docs/changelog.md."),
    "applied": N_("Phase: Iterate — this session's drafts are applied: what you ask now is a change to them, "
                  "drafted top-down with a dated entry in docs/changelog.md."),
}


def phase_title(phase: str) -> str:
    """The phase's name in the person's language ("iterate" → "Iterate", "Iterasi")."""
    return _(PHASE_TITLES[phase]) if phase in PHASE_TITLES else phase.capitalize()


def announcement(reason: str, phase: str) -> str:
    """What the person is told of a phase change for `reason`, in their language."""
    if reason in ANNOUNCEMENTS:
        return _(ANNOUNCEMENTS[reason])
    return _("Phase: {phase}").format(phase=phase_title(phase))


def _files(folder: Path) -> Iterable[Path]:
    try:
        yield from (path for path in folder.rglob("*") if path.is_file())
    except OSError:  # not there (yet)
        return


def session_applied(session_dir: Path) -> Callable[[], bool]:
    """True while an apply of this session stands (its backup is on the undo stack)."""
    undo = SessionLayout(session_dir).undo

    def applied() -> bool:
        return any(True for _ in _files(undo))

    return applied


def session_pending(session_dir: Path) -> Callable[[], bool]:
    """True while a draft of this session is under review."""
    draft = SessionLayout(session_dir).draft

    def pending() -> bool:
        return any(True for _ in _files(draft))

    return pending


def recorded_iterate(events: Iterable[EventRecord]) -> bool:
    """Whether a resumed session's log says it reached Iterate."""
    from formspec_consult.store.records import PhaseRecord

    return any(isinstance(e, PhaseRecord) and e.phase == "iterate" for e in events)


class PhaseTracker:
    """Which phase the session is in; :meth:`observe` is called before each request.

    `drafted` says whether the offer is in its Draft phase, `turn` the loop's turn number,
    `applied`/`pending` read the session folder, `designed` whether the project held entities of
    its own at the start; `said(record, notice)` logs and shows a change.
    """

    def __init__(
        self,
        *,
        drafted: Callable[[], bool],
        turn: Callable[[], int],
        applied: Callable[[], bool],
        pending: Callable[[], bool],
        said: Callable[[PhaseRecord, Notice | None], None],
        iterating: bool = False,
    ) -> None:
        self._drafted, self._turn, self._applied, self._pending, self._said = drafted, turn, applied, pending, said
        self.iterating = iterating
        self._seen_turn = turn()
        self._last: Phase | None = "iterate" if iterating else None  # None: taken as found at the first request

    @property
    def current(self) -> Phase:
        if self.iterating:
            return "iterate"
        return "draft" if self._drafted() else "discovery"

    def start_designed(self) -> None:
        """A new session on a project that already holds a design: Iterate from the first request."""
        if not self.iterating:
            self.iterating = True
            self._change("designed")

    def observe(self) -> Phase:
        """The phase for this request: a new turn after applies (none pending) enters Iterate;
        the first draft enters Draft. A change is said once."""
        turn = self._turn()
        if turn != self._seen_turn:
            self._seen_turn = turn
            if not self.iterating and self._applied() and not self._pending():
                self.iterating = True
                self._change("applied")
        if self._last is None:  # a new or resumed session's first request: the phase it is in, unsaid
            self._last = self.current
        elif self.current != self._last:
            self._change("drafted")
        return self.current

    def rewound(self, iterating: bool) -> None:
        """After a rewind (agent/commands/run.py): the phase as the log had it at the rewind's point
        (`iterating`: it had reached Iterate by then), taken as found at the next request, unsaid."""
        self.iterating = iterating
        self._seen_turn = self._turn()
        self._last = None

    def _change(self, reason: PhaseReason) -> None:
        from formspec_consult.store.agent_events import Notice
        from formspec_consult.store.records import PhaseRecord

        self._last = self.current
        # Draft begins mid-turn with the first draft, which the reply already says: logged, not announced.
        notice = None if reason == "drafted" else Notice("info", announcement(reason, self._last))
        self._said(PhaseRecord(phase=self._last, reason=reason), notice)
