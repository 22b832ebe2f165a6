"""Partial review through the local server: a draft's change in YAML blocks; the chosen blocks are
applied as a draft of their own (the gate decides), the rest goes back to the model as a rejection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from formspec_consult.store.review_flow import ReviewFlow
from tests.servers.conftest import SESSION
from tests.servers.test_review_flow import Refused, flow_over

pytestmark = pytest.mark.anyio

CUSTOMER = "modules/shop/master/customer/entity.yaml"


def proposal(project: Path) -> tuple[str, str]:
    before = (project / "spec" / CUSTOMER).read_text(encoding="utf-8")
    lines = before.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("- ") and "name:" in line)
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    extra = [f"{indent}- {{name: loyalty_points, type: integer}}\n", f"{indent}- {{name: birthday, type: date}}\n"]
    return before, "".join(lines[:at] + extra + lines[at:])


async def test_the_chosen_blocks_are_applied_and_the_rest_goes_back_to_the_model(project: Path, client: Client) -> None:
    flow: ReviewFlow = flow_over(client)
    before, after = proposal(project)
    await flow.propose(CUSTOMER, after)
    blocks = await flow.blocks(CUSTOMER)
    assert [(b.id, b.change) for b in blocks.blocks] == [("spec.fields[loyalty_points]", "added"),
                                                         ("spec.fields[birthday]", "added")]
    assert blocks.blocks[1].diff.strip().endswith("- {name: birthday, type: date}")
    done = await flow.apply_blocks(CUSTOMER, ["birthday"], "no loyalty scheme yet")
    assert (done.accepted, done.rejected, done.reason) == (("spec.fields[birthday]",),
                                                          ("spec.fields[loyalty_points]",), "no loyalty scheme yet")
    text = (project / "spec" / CUSTOMER).read_text(encoding="utf-8")
    assert "birthday" in text and "loyalty_points" not in text
    events = [json.loads(line) for line in
              (project / ".formspec" / "consult" / SESSION / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [e["type"] for e in events] == ["apply", "partial"]
    assert events[1]["rejected"] == ["spec.fields[loyalty_points]"] and events[1]["reason"] == "no loyalty scheme yet"
    await flow.undo()  # undoable as any apply: the exact bytes come back
    assert (project / "spec" / CUSTOMER).read_text(encoding="utf-8") == before


async def test_a_refused_part_leaves_the_draft_exactly_as_it_was(project: Path, client: Client) -> None:
    flow = flow_over(client)
    _, after = proposal(project)
    broken = after.replace("{name: birthday, type: date}", "{name: birthday, type: nonsense}")
    await flow.propose(CUSTOMER, broken)
    with pytest.raises(Refused, match="fails validation"):
        await flow.apply_blocks(CUSTOMER, ["birthday"])
    draft = project / ".formspec" / "consult" / SESSION / "draft" / CUSTOMER
    assert draft.read_text(encoding="utf-8") == broken
    with pytest.raises(Refused, match=r"'nothing' matches no block\. The blocks: 1 spec\.fields"):
        await flow.apply_blocks(CUSTOMER, ["nothing"])
