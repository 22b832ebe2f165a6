"""How long playback waits so a newcomer can read what a step showed.

The wait after a step grows with the words it put on screen (replies, notices) and the tool
calls it made, within bounds; the demo also holds at the review step, before the recorded apply,
so the viewer can read the diff and accept the draft themselves.
"""

from __future__ import annotations

from formspec_consult.replay.recording import Step
from formspec_consult.store.agent_events import AssistantMessage, Notice, ToolCallStarted

WORDS_PER_S = 3.3  # ≈200 words a minute: unhurried reading of unfamiliar text
PER_TOOL_CALL_S = 1.5  # a glance at the tool pane
MIN_READ_S = 4.0
MAX_READ_S = 35.0
INTRO_S = 2.0  # before the first step: the empty panes, the status bar
REVIEW_HOLD_S = 20.0  # at the review step: read the diff, accept it or continue


def reading_seconds(step: Step) -> float:
    """Seconds (at speed 1) to read what `step` showed, between MIN_READ_S and MAX_READ_S."""
    shown = [e.text for e in step.events if isinstance(e, AssistantMessage)]
    shown += [e.message for e in step.events if isinstance(e, Notice)]
    words = sum(len(text.split()) for text in shown)
    calls = sum(1 for e in step.events if isinstance(e, ToolCallStarted))
    return max(MIN_READ_S, min(MAX_READ_S, words / WORDS_PER_S + calls * PER_TOOL_CALL_S))


def scaled(seconds: float, speed: float) -> float:
    """`seconds` at playback `speed` (0 = no waiting)."""
    return seconds / speed if speed > 0 else 0.0


def total_seconds(steps: list[Step], *, review_holds: int = 1) -> float:
    """The unattended length of a playback at speed 1, without the replies' streaming time."""
    reading = sum(reading_seconds(step) for step in steps[:-1])  # nothing to wait for after the last
    return INTRO_S + reading + review_holds * REVIEW_HOLD_S
