"""The owner's preview draws the lifecycle's main path to its successful end, unhappy ways aside."""

from __future__ import annotations

from formspec_consult.tui.widgets.entity_preview import Lifecycle, lifecycle_diagram, parse_entity
from tests.tui.scenes import APPOINTMENT, RENTAL


def _lifecycle(text: str) -> Lifecycle:
    entity = parse_entity(text)
    assert entity is not None and entity.lifecycle is not None
    return entity.lifecycle


def test_the_main_path_skips_dead_ends_and_rejections_listed_first() -> None:
    lifecycle = _lifecycle(RENTAL)
    assert lifecycle.happy_path() == ["requested", "approved", "picked_up", "completed"]
    drawn = lifecycle_diagram(lifecycle, width=200).plain
    main = drawn.splitlines()[2]  # the middle row of the boxes
    assert "Requested" in main and "Completed" in main and "On hold" not in main and "Overdue" not in main
    assert "✗ Requested ── hold ──▶ On hold" in drawn and "✗ Requested ── reject ──▶ Rejected" in drawn
    assert "✗ Overdue ── write_off ──▶ Lost" in drawn
    assert "  Overdue ── return_late ──▶ Completed" in drawn  # back onto the main path: not unhappy


def test_the_main_path_of_a_plain_lifecycle_is_unchanged() -> None:
    assert _lifecycle(APPOINTMENT).happy_path() == ["booked", "checked_in", "done"]


def test_a_lifecycle_that_only_loops_still_draws_its_longest_path() -> None:
    text = RENTAL.split("  state_machine:")[0] + """  state_machine:
    field: status
    initial: open
    states: [open, working, review]
    transitions:
      - {from: open, to: working, via: start}
      - {from: working, to: review, via: submit}
      - {from: review, to: working, via: rework}
      - {from: review, to: open, via: reopen}
"""
    assert _lifecycle(text).happy_path() == ["open", "working", "review"]
