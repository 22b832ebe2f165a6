"""propose_spec_file returns the verifiers' findings; they advise, they never block apply."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.servers.conftest import call

pytestmark = pytest.mark.anyio

VISIT = "modules/shop/transaction/visit/entity.yaml"
LINEAR_VISIT = """apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: visit, module: shop}
spec:
  version: v1
  characteristic: transaction
  fields:
    - {name: transaction_date, type: datetime, required: true}
    - {name: total, type: money, min: 0}
    - {name: status, type: enum, enum_values: [waiting, served, paid]}
  state_machine:
    field: status
    initial: waiting
    states: [{name: waiting}, {name: served}, {name: paid}]
    transitions:
      - {from: waiting, to: served, via: serve}
      - {from: served, to: paid, via: pay}
  actions: [{name: serve}, {name: pay}]
"""


async def test_a_valid_draft_missing_a_branch_state_passes_with_a_finding_and_still_applies(client: Client) -> None:
    result = await call(client, "propose_spec_file", {"path": VISIT, "content": LINEAR_VISIT})
    assert result["blocking_problems"] == 0
    assert [f["code"] for f in result["findings"]] == ["FSV-LIFECYCLE-NO-BRANCH"]
    assert {"source", "line", "entity", "message", "hint"} <= set(result["findings"][0])
    assert "finding" in result["next"]
    applied = await call(client, "apply_draft", {"file": VISIT})
    assert applied["applied"] == VISIT


async def test_a_draft_that_addresses_the_finding_comes_back_without_findings(client: Client) -> None:
    fixed = LINEAR_VISIT.replace("[waiting, served, paid]", "[waiting, served, paid, cancelled]").replace(
        "{name: paid}]", "{name: paid}, {name: cancelled}]"
    ).replace("      - {from: served, to: paid, via: pay}\n",
              "      - {from: served, to: paid, via: pay}\n      - {from: waiting, to: cancelled, via: cancel}\n")
    result = await call(client, "propose_spec_file", {"path": VISIT, "content": fixed})
    assert result["blocking_problems"] == 0 and result["findings"] == []
    assert "finding" not in result["next"]
