"""The app in playback mode: plays a recording's steps by itself, with play/pause/step/speed.

Used by `replay` (over a read-only RecordedEngine) and by `demo` (over the real Engine with the
replay provider, so tool calls, apply and undo run for real). The input is disabled: the steps
come from the recording, and typing would put the conversation out of step with it.

Pacing is by reading time (see `pacing`), and playback holds at the review step — just before a
recorded apply — with the draft selected in the diff pane: in the demo the viewer can press `a`
to accept it themselves (the recorded apply is then skipped), or space to go on at once.
"""

from __future__ import annotations

import time

from textual.binding import Binding

from formspec_consult.agent.engine.port import EngineFactory
from formspec_consult.i18n import N_, _, format_number
from formspec_consult.replay.pacing import INTRO_S, REVIEW_HOLD_S, reading_seconds, scaled
from formspec_consult.replay.recorded_engine import RecordedEngine
from formspec_consult.replay.recording import Step
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.slash import SlashError, parse_slash
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.prompt_input import PromptInput

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


class PlayerApp(ConsultApp):
    """`PlayerApp(factory, steps)`: space plays/pauses, `n` steps once, `+`/`-` change speed."""

    BINDINGS = [
        Binding("space", "toggle_play", N_("Play/pause"), priority=True),
        Binding("n", "step", N_("Step"), priority=True),
        Binding("plus,equals_sign", "speed(1)", N_("Faster"), priority=True),
        Binding("minus", "speed(-1)", N_("Slower"), priority=True),
    ]

    def __init__(self, engine_factory: EngineFactory, steps: list[Step], *, autoplay: bool = True,
                 speed: float = 1.0, review_hold: float | None = REVIEW_HOLD_S, **kwargs: object) -> None:
        super().__init__(engine_factory, **kwargs)  # type: ignore[arg-type]
        # Seconds (at speed 1) to wait at the review step; None waits for the viewer (the demo).
        self.review_hold = review_hold
        self.steps = steps
        self.next_step = 0
        self.playing = autoplay
        self.speed = speed
        self._idle_since = time.monotonic()
        self._wait_s = INTRO_S  # reading time (speed 1) owed to the step just played
        self._hold_until: float | None = None  # set while holding at the review step
        self._held_at: int | None = None  # the step index the review hold was for
        self._finished_shown = False

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(PromptInput).disabled = True
        # The playback clock belongs to the main screen whose widgets it drives: owned by the app,
        # it kept firing while the app shut down and queried a PromptInput that was already gone.
        self.screen.set_interval(0.1, self._tick)
        self._show_state()

    @property
    def done(self) -> bool:
        """Every step has been played and the last turn has ended."""
        return self.next_step >= len(self.steps) and not self._turn_running()

    @property
    def holding(self) -> bool:
        """True while playback waits at the review step."""
        return self._hold_until is not None

    @property
    def read_only(self) -> bool:
        return self.engine is not None and self.engine.read_only

    def _turn_running(self) -> bool:
        return self.turn_worker is not None and self.turn_worker.is_running

    def _show_state(self) -> None:
        state = "▶ " + _("playing") if self.playing else "⏸ " + _("paused")
        if self.done:
            state = "■ " + _("finished")
        step = _("step {n}/{total}").format(n=min(self.next_step, len(self.steps)), total=len(self.steps))
        self.sub_title = f"{state} · {step} · ×{format_number(self.speed)}"
        # The input is disabled during playback: its placeholder is where the state shows.
        if self._hold_until is not None:
            action = _("space continues") if self.read_only else _("press a to accept this draft, or space to continue")
            text = _("Review the draft in the diff pane — {action}").format(action=action)
            if self._hold_until != float("inf"):
                left = max(0, round(self._hold_until - time.monotonic()))
                text += " " + _("(goes on in {seconds} s)").format(seconds=left)
        else:
            coming = (" · " + _("next: {step}").format(step=self.steps[self.next_step].text[:40])
                      if self.next_step < len(self.steps) else "")
            text = f"{self.sub_title}{coming} — " + _("space play/pause · n step · +/- speed · ctrl+q quit")
        self.query_one(PromptInput).placeholder = text

    def _tick(self) -> None:
        if self._turn_running() or self.engine is None or not self.session_shown:
            self._idle_since = time.monotonic()
            return
        if self.next_step >= len(self.steps):
            if not self._finished_shown:
                self._finished_shown = True
                self._show_state()  # the last turn has ended: say so once
            return
        if not self.playing:
            return
        now = time.monotonic()
        if self._hold_until is not None:
            if now >= self._hold_until or self._already_applied(self.steps[self.next_step]):
                self.play_next()
            else:
                self._show_state()  # the countdown
            return
        if now - self._idle_since < scaled(self._wait_s, self.speed):
            return
        if self._is_review_step() and self._held_at != self.next_step and self.speed > 0:
            self._hold()
            return
        self.play_next()

    def _is_review_step(self) -> bool:
        step = self.steps[self.next_step]
        return step.kind == "apply" and bool(step.path)

    def _hold(self) -> None:
        """Wait at the review step with the draft selected and focused, and say what to do."""
        step = self.steps[self.next_step]
        self._held_at = self.next_step
        hold = float("inf") if self.review_hold is None else scaled(self.review_hold, self.speed)
        self._hold_until = time.monotonic() + hold
        pane = self.query_one(DiffPane)
        self.show_pane("diff-pane", focus=True)  # the viewer is asked to press a: visibly focused
        if step.path:
            pane.select(step.path)
        action = _("Space continues.") if self.read_only else _("Press a to accept this draft yourself, or space to continue.")
        self.notify(_("Review the draft in the diff pane. {action}").format(action=action), title=_("Diff review"),
                    timeout=min(hold, 20.0))
        self._show_state()

    def play_next(self) -> bool:
        """Play the next step now; False when there is none or a turn is still running."""
        self._hold_until = None
        if self.engine is None or not self.session_shown or self._turn_running() or self.next_step >= len(self.steps):
            self._show_state()
            return False
        step = self.steps[self.next_step]
        if self._already_applied(step):
            self.notify(_("You applied {path} yourself: the recorded apply is skipped.").format(path=step.path))
            started = True
        elif step.kind == "command":
            started = self._command(step)
        else:
            if step.path and step.kind in {"apply", "reject"}:
                self.query_one(DiffPane).select(step.path)  # show what is about to be applied
            started = self.send(step.text)
        if started:
            self.next_step += 1
            self._wait_s = reading_seconds(step)
            self._idle_since = time.monotonic()
        self._show_state()
        return started

    def _already_applied(self, step: Step) -> bool:
        """The viewer accepted the draft during the review hold (so the recorded apply would fail)."""
        if step.kind != "apply" or not step.path:
            return False
        return any(d.path == step.path and d.status == "applied" for d in self.query_one(DiffPane).drafts)

    def _command(self, step: Step) -> bool:
        """A recorded slash command other than a review action: run it as a person typing it would."""
        try:
            call = parse_slash(step.text)
        except SlashError:  # a command this version no longer knows: shown as recorded, not run
            call = None
        if call is not None and (call.spec.handler == "engine" or call.name == "diff"):
            return self.router.handle(step.text)
        if self.engine is not None and self.read_only:  # nothing to show: move past it
            self.engine.record_command(step.text)
        self.notify(_("Recorded {text} (not replayed).").format(text=step.text))
        return True

    def action_toggle_play(self) -> None:
        if self._hold_until is not None and self.playing:
            self.play_next()  # space at the review step: go on now
            return
        self.playing = not self.playing
        self._show_state()

    def action_step(self) -> None:
        self.playing = False
        self.play_next()

    def action_speed(self, direction: int) -> None:
        index = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - self.speed))
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, index + direction))]
        if isinstance(self.engine, RecordedEngine):  # its pauses follow the player's speed
            self.engine.speed = self.speed
        self._show_state()
