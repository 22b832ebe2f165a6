"""propose_spec_file returns the verifiers' findings; they advise, they never block apply."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.helpers import lifecycle_entity
from tests.servers.conftest import call

pytestmark = pytest.mark.anyio

VISIT = "modules/shop/transaction/visit/entity.yaml"
STATES = ["waiting", "served", "paid"]
TRANSITIONS = [("waiting", "served", "serve"), ("served", "paid", "pay")]
MONEY = "    - {name: total, type: money, rules: [{min: 0}]}\n"
LINEAR_VISIT = lifecycle_entity(STATES, TRANSITIONS, MONEY, name="visit")


async def test_a_valid_draft_missing_a_branch_state_passes_with_a_finding_and_still_applies(client: Client) -> None:
    result = await call(client, "propose_spec_file", {"path": VISIT, "content": LINEAR_VISIT})
    assert result["blocking_problems"] == 0
    assert [f["code"] for f in result["findings"]] == ["FSV-LIFECYCLE-NO-BRANCH"]
    assert {"source", "line", "entity", "message", "hint"} <= set(result["findings"][0])
    assert "finding" in result["next"]
    applied = await call(client, "apply_draft", {"file": VISIT})
    assert applied["applied"] == VISIT


async def test_a_draft_that_addresses_the_finding_comes_back_without_findings(client: Client) -> None:
    fixed = lifecycle_entity([*STATES, "cancelled"], [*TRANSITIONS, ("waiting", "cancelled", "cancel")], MONEY,
                             name="visit")
    result = await call(client, "propose_spec_file", {"path": VISIT, "content": fixed})
    assert result["blocking_problems"] == 0 and result["findings"] == []
    assert "finding" not in result["next"]
