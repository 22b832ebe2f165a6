"""The one review workflow every client runs (store.review_flow), through the local server's tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from formspec_consult.store.review_flow import ReviewError, ReviewFlow
from formspec_consult.store.review_results import ToolResult
from tests.helpers import first_text
from tests.servers.conftest import SESSION

pytestmark = pytest.mark.anyio

SERVICE = "modules/shop/master/service/entity.yaml"
STAFF = "modules/shop/master/staff/entity.yaml"
CUSTOMER = "modules/shop/master/customer/entity.yaml"


class Refused(RuntimeError):
    """A tool error, as a client's call function raises it."""


def flow_over(client: Client) -> ReviewFlow:
    async def call(name: str, arguments: dict[str, Any]) -> ToolResult:
        result = await client.call_tool(name, arguments)
        text = first_text(result)
        if result.is_error:
            raise Refused(text)
        return ToolResult.of(name, dict(result.structured_content or {}))

    return ReviewFlow(call)


def review_events(project: Path) -> list[tuple[str, str]]:
    log = project / ".formspec" / "consult" / SESSION / "events.jsonl"
    if not log.exists():
        return []
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return [(e["type"], e["path"]) for e in events if e["type"] in {"apply", "undo", "reject"}]


async def test_apply_all_applies_the_valid_drafts_and_reports_a_refusal_without_stopping(
    project: Path, client: Client
) -> None:
    flow = flow_over(client)
    spec = project / "spec"
    for rel in (STAFF, SERVICE):  # staff sorts after service: the refusal comes first, then an apply
        await flow.propose(rel, (spec / rel).read_text(encoding="utf-8") + "# reviewed\n")
    (spec / STAFF).write_text((spec / STAFF).read_text(encoding="utf-8") + "# edited meanwhile\n", encoding="utf-8")

    outcome = await flow.apply_all()

    assert outcome.paths == (SERVICE,)
    assert outcome.skipped == ()
    assert [path for path, _ in outcome.failed] == [STAFF]
    assert "after this draft was proposed" in outcome.failed[0][1]
    assert (spec / SERVICE).read_text(encoding="utf-8").endswith("# reviewed\n")
    assert review_events(project) == [("apply", SERVICE)]  # written by the server, once


async def test_apply_all_leaves_a_draft_that_fails_validation_for_review(project: Path, client: Client) -> None:
    flow = flow_over(client)
    await flow.propose(CUSTOMER, "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: customer}\nspec: 3\n")
    outcome = await flow.apply_all()
    assert (outcome.applied, outcome.skipped, outcome.failed) == ((), (CUSTOMER,), ())
    assert review_events(project) == []


async def test_the_sole_draft_is_named_and_several_drafts_need_a_choice(project: Path, client: Client) -> None:
    flow = flow_over(client)
    spec = project / "spec"
    await flow.propose(SERVICE, (spec / SERVICE).read_text(encoding="utf-8") + "# one\n")
    assert await flow.sole_draft() == SERVICE
    await flow.propose(STAFF, (spec / STAFF).read_text(encoding="utf-8") + "# two\n")
    with pytest.raises(ReviewError, match="Say which draft to apply"):
        await flow.sole_draft()


async def test_reject_and_undo_through_the_flow_are_recorded_in_the_session(project: Path, client: Client) -> None:
    flow = flow_over(client)
    spec = project / "spec"
    before = (spec / SERVICE).read_bytes()
    await flow.propose(SERVICE, before.decode("utf-8") + "# applied then undone\n")
    await flow.propose(STAFF, (spec / STAFF).read_text(encoding="utf-8") + "# rejected\n")
    await flow.reject(STAFF)
    await flow.apply(SERVICE)
    await flow.undo()
    assert (spec / SERVICE).read_bytes() == before
    assert review_events(project) == [("reject", STAFF), ("apply", SERVICE), ("undo", SERVICE)]
    transcript = (project / ".formspec" / "consult" / SESSION / "transcript.md").read_text(encoding="utf-8")
    assert f"Rejected the draft {STAFF}." in transcript and f"Undid the apply of {SERVICE}" in transcript
