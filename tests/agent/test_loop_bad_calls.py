"""Tool calls no sane model sends, through the loop with a scripted provider: each goes back to
the model as a tool error that says what was wrong, and the turn goes on (issue 20)."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.store.agent_events import ToolCallFinished, TurnFinished
from tests.agent.test_loop import rig

pytestmark = pytest.mark.anyio

DEEP = '{"text": ' + "[" * 100_000 + "]" * 100_000 + "}"
HUGE = '{"text": ' + "9" * 5000 + "}"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (DEEP, "the arguments nest deeper than"),
        (HUGE, "the arguments hold a number of more than 4,300 digits"),
    ],
    ids=["nested-100000-deep", "5000-digit-integer"],
)
async def test_arguments_no_parser_can_take_are_a_tool_error_and_the_turn_goes_on(
    tmp_path: Path, raw: str, expected: str
) -> None:
    replies = [{"tool_calls": [{"name": "echo", "arguments": raw}]}, "recovered"]
    async with rig(tmp_path, replies) as r:
        events = await r.turn("try")
        (finished,) = [e for e in events if isinstance(e, ToolCallFinished)]
        assert not finished.ok
        sent = [m["content"] for m in r.provider.requests[1] if m["role"] == "tool"]
        assert sent[0].startswith("ERROR: ") and expected in sent[0]
        assert events[-1] == TurnFinished("done")
        r.loop.history.check_pairing()
