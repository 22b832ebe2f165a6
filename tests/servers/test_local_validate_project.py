"""validate_project: the whole project — the applied files with the session's pending drafts over
them — checked in one read-only call, each problem with its file (as the tools take it), whether it
is a pending draft, its line and how to fix it; a short answer (the first problems listed, the rest
counted)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.servers.conftest import SESSION, call, tree_hash

pytestmark = pytest.mark.anyio

DRAFT = "modules/shop/master/voucher/entity.yaml"
VOUCHER = """apiVersion: formspec.dev/v1
kind: Entity
metadata: {{name: voucher, module: shop}}
spec:
  version: v1
  fields:
    - {{name: code, type: {type}}}
"""
APPLIED = "spec/modules/shop/master/staff/entity.yaml"


async def test_a_valid_project_is_ok_and_nothing_is_written(client: Client, project: Path) -> None:
    before = tree_hash(project)
    result = await call(client, "validate_project")
    assert result["ok"] is True and result["problems"] == [] and result["drafts"] == 0
    assert result["files"] >= 10 and "valid" in result["next"]
    assert tree_hash(project) == before
    assert not (project / ".formspec" / "consult" / SESSION).exists()


async def test_problems_of_drafts_and_of_applied_files_each_with_its_file_and_how_to_fix_it(
        client: Client, project: Path) -> None:
    staff = project / APPLIED
    staff.write_text(staff.read_text().replace("characteristic: master", "characteristic: mastr"))
    await call(client, "propose_spec_file", {"path": DRAFT, "content": VOUCHER.format(type="strin")})
    result = await call(client, "validate_project")
    assert result["ok"] is False and result["drafts"] == 1
    by_file = {p["file"]: p for p in result["problems"]}
    assert set(by_file) == {DRAFT, "modules/shop/master/staff/entity.yaml"}
    draft, applied = by_file[DRAFT], by_file["modules/shop/master/staff/entity.yaml"]
    assert draft["draft"] is True and draft["line"] == 7 and draft["hint"] == "Did you mean `string`?"
    assert applied["draft"] is False and applied["hint"] == "Did you mean `master`?"
    assert result["problems"][0] is not None and result["problems"][0]["file"] == DRAFT  # drafts first

    # the draft fixed as its hint says: only the applied file's problem is left
    await call(client, "propose_spec_file", {"path": DRAFT, "content": VOUCHER.format(type="string")})
    result = await call(client, "validate_project")
    assert [(p["file"], p["code"]) for p in result["problems"]] == [("modules/shop/master/staff/entity.yaml", "FS-SCHEMA")]


async def test_a_long_list_is_cut_to_the_first_problems_and_the_rest_counted(client: Client) -> None:
    fields = "".join(f"    - {{name: f{i}, type: strin}}\n" for i in range(30))
    content = VOUCHER.format(type="string") + fields
    await call(client, "propose_spec_file", {"path": DRAFT, "content": content})
    result = await call(client, "validate_project")
    shown = len(result["problems"])
    assert shown == 20 and result["more_problems"] >= 1 and result["ok"] is False
