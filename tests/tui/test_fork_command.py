"""`/fork` in the app over the real Engine: it says the new session's id, and the app stays on its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from formspec_consult.store.fork import fork_point_of
from formspec_consult.store.manifest import DraftManifest
from formspec_consult.tui.widgets.conversation import ConversationView
from tests.e2e.project import CUSTOMER, DRAFT_PATH
from tests.tui.conftest import SIZE, wait_until
from tests.tui.test_conversation_flow import send
from tests.tui.test_real_engine import project, real_app  # noqa: F401 - the fixture is used by name

pytestmark = pytest.mark.anyio


def notice_texts(app: object) -> list[str]:
    blocks = app.query_one(ConversationView).blocks  # type: ignore[attr-defined]
    return [str(getattr(b, "text", "")) for b in blocks if str(getattr(b, "role", "")).startswith("notice-")]


async def test_slash_fork_says_the_new_session_id_and_the_fork_holds_this_session_so_far(project: Path) -> None:  # noqa: F811
    propose = {"tool_calls": [{"name": "propose_spec_file",
                               "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]}
    app = real_app(project, [propose, "Drafted the customers."])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "we keep customers")
        await wait_until(pilot, lambda: app.turn_worker is not None and not app.turn_worker.is_running, timeout=30)
        await send(pilot, "/fork")
        await wait_until(pilot, lambda: any("Forked this session" in t for t in notice_texts(app)), timeout=30)
        said = next(t for t in notice_texts(app) if "Forked this session" in t)
        engine = app.engine
        assert engine is not None
        fork_id = re.search(r"--resume (\S+)", said).group(1)  # type: ignore[union-attr]
        assert fork_id != engine.session_id and "after turn 1" in said
        assert engine.session_id == app.engine.session_id  # the app stays on its own session
    point = fork_point_of(project / ".formspec" / "consult" / fork_id)
    assert point is not None and (point.source, point.turn) == (engine.session_id, 1)
    assert DraftManifest(project / ".formspec" / "consult" / fork_id).load()[DRAFT_PATH].state == "pending"
