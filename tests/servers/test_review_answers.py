"""The review workflow over a real `mcp-serve` process: every answer the server sends reads into
its record, and the records' wire shape is the server's output schema, key for key."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from pydantic import BaseModel

from formspec_consult.servers.local import create_local_server
from formspec_consult.spec.model import ValidationResult
from formspec_consult.store.review_flow import ReviewFlow
from formspec_consult.store.review_results import (
    Applied,
    DiffList,
    DraftList,
    ProjectValidation,
    Proposed,
    Rejected,
    ToolResult,
    Undone,
    Withdrawn,
)
from tests.helpers import first_text

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
CLI = Path(sys.executable).parent / "formspec-consult"
SESSION = "20261201-090000-wire"
SERVICE = "modules/shop/master/service/entity.yaml"
STAFF = "modules/shop/master/staff/entity.yaml"
BROKEN = "modules/shop/master/gadget/entity.yaml"  # a new file that fails the gate on its own


class Refused(RuntimeError):
    """A tool error, as a client's call function raises it."""


def flow_over(client: Client) -> ReviewFlow:
    async def call(name: str, arguments: dict[str, Any]) -> ToolResult:
        result = await client.call_tool(name, arguments)
        if result.is_error:
            raise Refused(first_text(result) if result.content else name)
        return ToolResult.of(name, result.structured_content)

    return ReviewFlow(call)


async def test_every_review_answer_of_mcp_serve_reads_into_its_record_across_apply_undo_and_reapply(
    project: Path, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "SYSTEMROOT"}}
    params = StdioServerParameters(command=str(CLI), args=["mcp-serve", "--project", str(project), "--session", SESSION],
                                   env=env)
    spec = project / "spec"
    before = (spec / SERVICE).read_bytes()
    with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as errlog, anyio.fail_after(90):
        async with Client(stdio_client(params, errlog=errlog)) as client:
            flow = flow_over(client)
            proposed = await flow.propose(SERVICE, before.decode("utf-8") + "# reviewed\n")
            assert proposed.passes and proposed.status == "modified" and proposed.validation.ok
            await flow.propose(STAFF, (spec / STAFF).read_text(encoding="utf-8") + "# discarded\n")
            broken = await flow.propose(BROKEN, "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: gadget, module: shop}\nspec: 3\n")
            assert not broken.passes

            listing = await flow.overview()
            assert {d.path: (d.state, d.valid) for d in listing.drafts} == {
                SERVICE: ("pending", True), STAFF: ("pending", True), BROKEN: ("pending", False)}
            assert next(d for d in listing.drafts if d.path == BROKEN).problems >= 1  # a count here…
            (diff,) = await flow.diffs(BROKEN)
            assert diff.problems and all(p.message for p in diff.problems)  # …and the problems there
            assert diff.status == "new" and diff.diff.startswith("--- /dev/null")

            rejected = await flow.reject(STAFF)
            assert rejected.path == STAFF and STAFF not in rejected.remaining
            applied = await flow.apply(SERVICE)
            assert (applied.path, applied.file, applied.previous) == (SERVICE, f"spec/{SERVICE}", "backed up")
            assert applied.undo_step >= 1 and not applied.forced and applied.backup
            undone = await flow.undo()
            assert (undone.path, undone.outcome, undone.back_for_review) == (SERVICE, "restored", True)
            assert (spec / SERVICE).read_bytes() == before

            listing = await flow.overview()
            assert {d.path: d.state for d in listing.drafts} == {SERVICE: "undone", BROKEN: "pending"}
            assert [(s.path, s.state) for s in listing.settled] == [(STAFF, "rejected")]
            again = await flow.apply(SERVICE)  # the undone draft is accepted again, its exact bytes
            assert again.path == SERVICE and (spec / SERVICE).read_bytes() == before + b"# reviewed\n"
            assert (await flow.overview()).by_state() == {"pending": 1, "applied": 1, "rejected": 1}


async def test_each_review_tool_advertises_the_shape_its_record_answers_with(project: Path) -> None:
    # One shape per answer: the tool's MCP output schema is its record's, key for key.
    records: dict[str, type[BaseModel]] = {
        "list_drafts": DraftList, "diff_drafts": DiffList, "apply_draft": Applied, "undo_apply": Undone,
        "reject_draft": Rejected, "withdraw_draft": Withdrawn, "propose_spec_file": Proposed,
        "validate_project": ProjectValidation}
    async with Client(create_local_server(project, SESSION)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    for name, record in records.items():
        schema = tools[name].output_schema or {}
        assert set(schema.get("properties", {})) == set(record.model_json_schema(by_alias=True)["properties"]), name
    validation = ValidationResult(ok=True)
    applied = Applied(path="a.yaml", file="spec/a.yaml", backup="undo/1", previous="did not exist", undo_step=1,
                      forced=False, validation=validation)
    assert set(applied.to_json()) == set(tools["apply_draft"].output_schema["properties"])  # type: ignore[index]
    assert Applied.from_json(applied.to_json()) == applied
    rejected = Rejected(path="a.yaml", remaining=(), reason="too many fields")
    assert set(rejected.to_json()) == set(tools["reject_draft"].output_schema["properties"])  # type: ignore[index]
    assert set(Rejected(path="a.yaml", remaining=()).to_json()) == {"rejected", "remaining"}  # no reason, none sent
