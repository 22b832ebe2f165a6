"""The app in playback mode: plays a recording's steps by itself, with play/pause/step/speed.

Used by `replay` (over a read-only RecordedEngine) and by `demo` (over the real Engine with the
replay provider, so tool calls, apply and undo run for real). The input is disabled: the steps
come from the recording, and typing would put the conversation out of step with it.
"""

from __future__ import annotations

import time

from textual.binding import Binding

from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.engine_port import EngineFactory
from formspec_consult.tui.replay.recording import Step
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.prompt_input import PromptInput

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
GAP_S = 1.5  # pause between steps at speed 1, so a viewer can read the reply


class PlayerApp(ConsultApp):
    """`PlayerApp(factory, steps)`: space plays/pauses, `n` steps once, `+`/`-` change speed."""

    BINDINGS = [
        Binding("space", "toggle_play", "Play/pause", priority=True),
        Binding("n", "step", "Step", priority=True),
        Binding("plus,equals_sign", "speed(1)", "Faster", priority=True),
        Binding("minus", "speed(-1)", "Slower", priority=True),
    ]

    def __init__(self, engine_factory: EngineFactory, steps: list[Step], *, autoplay: bool = True,
                 speed: float = 1.0, **kwargs: object) -> None:
        super().__init__(engine_factory, **kwargs)  # type: ignore[arg-type]
        self.steps = steps
        self.next_step = 0
        self.playing = autoplay
        self.speed = speed
        self._idle_since = time.monotonic()
        self._finished_shown = False

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(PromptInput).disabled = True
        self.set_interval(0.1, self._tick)
        self._show_state()

    @property
    def done(self) -> bool:
        """Every step has been played and the last turn has ended."""
        return self.next_step >= len(self.steps) and not self._turn_running()

    def _turn_running(self) -> bool:
        return self.turn_worker is not None and self.turn_worker.is_running

    def _show_state(self) -> None:
        state = "▶ playing" if self.playing else "⏸ paused"
        if self.done:
            state = "■ finished"
        self.sub_title = f"{state} · step {min(self.next_step, len(self.steps))}/{len(self.steps)} · ×{self.speed:g}"
        # The input is disabled during playback: its placeholder is where the state shows.
        self.query_one(PromptInput).placeholder = f"{self.sub_title} — space play/pause · n step · +/- speed · ctrl+q quit"

    def _tick(self) -> None:
        if self._turn_running() or self.engine is None:
            self._idle_since = time.monotonic()
            return
        if self.next_step >= len(self.steps):
            if not self._finished_shown:
                self._finished_shown = True
                self._show_state()  # the last turn has ended: say so once
            return
        gap = GAP_S / self.speed if self.speed > 0 else 0
        if self.playing and time.monotonic() - self._idle_since >= gap:
            self.play_next()

    def play_next(self) -> bool:
        """Play the next step now; False when there is none or a turn is still running."""
        if self.engine is None or self._turn_running() or self.next_step >= len(self.steps):
            self._show_state()
            return False
        step = self.steps[self.next_step]
        if step.path and step.kind in {"apply", "reject"}:
            self.query_one(DiffPane).select(step.path)  # show what is about to be applied
        if self.send(step.text):
            self.next_step += 1
        self._show_state()
        return True

    def action_toggle_play(self) -> None:
        self.playing = not self.playing
        self._show_state()

    def action_step(self) -> None:
        self.playing = False
        self.play_next()

    def action_speed(self, direction: int) -> None:
        index = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - self.speed))
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, index + direction))]
        if hasattr(self.engine, "speed"):
            self.engine.speed = self.speed  # type: ignore[union-attr]
        self._show_state()
