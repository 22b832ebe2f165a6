"""propose / list / diff / reject / apply / undo through an in-memory MCP client on the real spec core."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from mcp import Client

from formspec_consult.servers.local import create_local_server
from formspec_consult.servers.local.server import LocalServer
from formspec_consult.store.folder import ensure_session
from tests.servers.conftest import SESSION, call, call_error

pytestmark = pytest.mark.anyio

SERVICE = "modules/shop/master/service/entity.yaml"
VOUCHER = "modules/shop/master/voucher/entity.yaml"
VOUCHER_YAML = """apiVersion: formspec.dev/v1
kind: Entity
metadata:
  name: voucher
spec:
  version: v1
  plural: vouchers
  characteristic: master
  display_field: code
  fields:
    - {name: code, type: string, required: true}
    - {name: amount, type: money, required: true}
"""


def service_text(project: Path) -> str:
    return (project / "spec" / SERVICE).read_text()


async def test_propose_writes_a_draft_validates_it_and_says_what_next(client: Client, project: Path) -> None:
    result = await call(client, "propose_spec_file", {"path": VOUCHER, "content": VOUCHER_YAML})
    assert result["written"] is True and result["validation"]["ok"] is True
    assert result["draft_path"] == f".formspec/consult/{SESSION}/draft/{VOUCHER}"
    assert (project / result["draft_path"]).read_text() == VOUCHER_YAML
    assert not (project / "spec" / VOUCHER).exists()
    assert any(s["name"] == "barbershop-pricing" for s in result["relevant_skills"])
    assert "review" in result["next"] and "the person" in result["next"] and result["valid"] is True
    assert "apply_draft" not in result["next"]  # the person applies; the proposer is never told to




async def test_an_invalid_draft_is_kept_with_its_problems_and_advice_to_fix(client: Client) -> None:
    broken = VOUCHER_YAML.replace("type: money", "type: moneyy")
    result = await call(client, "propose_spec_file", {"path": VOUCHER, "content": broken})
    assert result["validation"]["ok"] is False and result["blocking_problems"] >= 1
    assert "Fix" in result["next"]
    listed = (await call(client, "list_drafts"))["drafts"]
    assert listed == [
        {
            "path": VOUCHER,
            "status": "new",
            "state": "pending",
            "valid": False,
            "problems": result["blocking_problems"],
            "target_changed": False,
        }
    ]
    message = await call_error(client, "apply_draft", {"file": VOUCHER})
    assert "fails validation" in message and "force" in message


async def test_drafts_overlay_each_other_so_related_files_validate_together(client: Client) -> None:
    gift = (
        VOUCHER_YAML.replace("voucher", "gift")
        .replace("vouchers", "gifts")
        .replace(
            "    - {name: amount, type: money, required: true}\n",
            "    - {name: amount, type: money, required: true}\n"
            "    - {name: voucher, type: relation, relation: {type: belongs_to, resource: shop.voucher}}\n",
        )
    )
    first = await call(
        client, "propose_spec_file", {"path": "modules/shop/master/gift/entity.yaml", "content": gift}
    )
    await call(client, "propose_spec_file", {"path": VOUCHER, "content": VOUCHER_YAML})
    rows = {r["path"]: r for r in (await call(client, "list_drafts"))["drafts"]}
    assert first["validation"]["ok"] is False  # voucher did not exist yet
    assert rows["modules/shop/master/gift/entity.yaml"]["valid"] is True


async def test_a_broken_sibling_draft_does_not_block_a_good_one(client: Client) -> None:
    await call(
        client,
        "propose_spec_file",
        {"path": "modules/shop/master/bad/entity.yaml", "content": "kind: Entity\n"},
    )
    good = await call(client, "propose_spec_file", {"path": VOUCHER, "content": VOUCHER_YAML})
    assert good["blocking_problems"] == 0
    # its verdict is its own: the sibling's problems are counted apart, never its "ok: false"
    assert good["valid"] is True and good["validation"]["ok"] is True and good["validation"]["problems"] == []
    assert good["other_problems"] >= 1
    await call(client, "apply_draft", {"file": VOUCHER})


async def test_diff_then_apply_then_undo_round_trip(client: Client, project: Path) -> None:
    original = (project / "spec" / SERVICE).read_bytes()
    changed = service_text(project).replace("default: true", "default: false")
    await call(client, "propose_spec_file", {"path": SERVICE, "content": changed})
    diff = (await call(client, "diff_drafts", {"path": SERVICE}))["drafts"][0]
    assert diff["status"] == "modified" and diff["valid"] is True
    assert "-    - {name: active, type: boolean, default: true}" in diff["diff"]
    applied = await call(client, "apply_draft", {"file": SERVICE})
    assert applied["applied"] == SERVICE and applied["validation"]["ok"] is True
    assert applied["backup"].startswith(f".formspec/consult/{SESSION}/undo/")
    assert service_text(project) == changed
    assert (await call(client, "list_drafts"))["drafts"] == []
    undone = await call(client, "undo_apply")
    assert undone["undone"] == SERVICE and undone["outcome"] == "restored"
    assert (project / "spec" / SERVICE).read_bytes() == original


async def test_apply_refuses_a_target_edited_after_the_proposal(client: Client, project: Path) -> None:
    await call(client, "propose_spec_file", {"path": SERVICE, "content": service_text(project) + "# draft\n"})
    (project / "spec" / SERVICE).write_text(service_text(project) + "# edited by hand\n")
    message = await call_error(client, "apply_draft", {"file": SERVICE})
    assert "was edited after this draft was proposed" in message
    assert service_text(project).endswith("# edited by hand\n")
    forced = await call(client, "apply_draft", {"file": SERVICE, "force": True})
    assert forced["forced"] is True and service_text(project).endswith("# draft\n")


async def test_a_proposal_of_an_existing_file_is_answered_with_its_diff_against_it(client: Client, project: Path) -> None:
    changed = service_text(project).replace("default: true", "default: false")
    result = await call(client, "propose_spec_file", {"path": SERVICE, "content": changed})
    assert result["status"] == "modified"
    assert "-    - {name: active, type: boolean, default: true}" in result["diff"]
    assert "+    - {name: active, type: boolean, default: false}" in result["diff"]
    fresh = await call(client, "propose_spec_file", {"path": VOUCHER, "content": VOUCHER_YAML})
    assert "diff" not in fresh  # a new file: the whole draft is the change


async def test_the_proposer_withdraws_its_own_pending_draft_and_the_project_is_untouched(
    client: Client, project: Path
) -> None:
    before = service_text(project)
    await call(client, "propose_spec_file", {"path": VOUCHER, "content": VOUCHER_YAML})
    await call(client, "propose_spec_file", {"path": SERVICE, "content": before + "# draft\n"})
    assert await call(client, "withdraw_draft", {"path": VOUCHER}) == {"withdrawn": VOUCHER, "remaining": [SERVICE]}
    listed = await call(client, "list_drafts")
    assert [d["path"] for d in listed["drafts"]] == [SERVICE] and listed["settled"] == []  # as if never proposed
    assert not (project / "spec" / VOUCHER).exists() and service_text(project) == before


async def test_a_draft_back_for_review_after_the_persons_undo_cannot_be_withdrawn(client: Client) -> None:
    await call(client, "propose_spec_file", {"path": VOUCHER, "content": VOUCHER_YAML})
    await call(client, "apply_draft", {"file": VOUCHER})
    await call(client, "undo_apply")
    message = await call_error(client, "withdraw_draft", {"path": VOUCHER})
    assert "came back for review when the person undid its apply" in message and "/diff" in message
    assert [d["path"] for d in (await call(client, "list_drafts"))["drafts"]] == [VOUCHER]


async def test_reject_discards_a_draft(client: Client) -> None:
    await call(client, "propose_spec_file", {"path": VOUCHER, "content": VOUCHER_YAML})
    assert await call(client, "reject_draft", {"path": VOUCHER}) == {"rejected": VOUCHER, "remaining": []}
    assert (await call(client, "diff_drafts"))["drafts"] == []


async def test_an_overrides_path_writes_a_shadow_copy_draft(client: Client, project: Path) -> None:
    text = (project / "overrides/loyalty/loyalty_card-edit.yaml").read_text()
    result = await call(
        client,
        "propose_spec_file",
        {
            "path": "overrides/loyalty/loyalty_card-edit.yaml",
            "content": text.replace("\n", "\n", 1) + "# tweak\n",
        },
    )
    assert result["status"] == "modified" and result["validation"]["ok"] is True
    await call(client, "apply_draft", {"file": "overrides/loyalty/loyalty_card-edit.yaml"})
    assert (project / "overrides/loyalty/loyalty_card-edit.yaml").read_text().endswith("# tweak\n")


async def test_the_session_argument_is_optional_and_a_given_one_must_exist(project: Path) -> None:
    server = create_local_server(project, None)
    state = server.state
    assert not state.session_folder.exists()  # created by the first write, not by starting
    other, _ = ensure_session(project / ".formspec/consult", "20261130-000000-othr")
    async with Client(server) as client:
        await call(client, "propose_spec_file", {"path": VOUCHER, "content": VOUCHER_YAML, "session": other})
        assert (await call(client, "list_drafts"))["drafts"] == []
        assert len((await call(client, "list_drafts", {"session": other}))["drafts"]) == 1
        message = await call_error(client, "list_drafts", {"session": "20990101-000000-none"})
        assert "There is no session" in message and "Omit 'session'" in message


async def test_a_file_system_error_is_reported_plainly(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from formspec_consult.store import drafts

    def full_disk(path: Path, data: bytes, *, durable: bool = True) -> None:
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(drafts, "write_atomic", full_disk)
    message = await call_error(client, "propose_spec_file", {"path": VOUCHER, "content": VOUCHER_YAML})
    assert "No space left on device" in message and "free space" in message


async def test_concurrent_proposals_all_land_in_the_manifest(client: Client, server: LocalServer) -> None:
    names = [f"thing{i}" for i in range(12)]

    async def propose_one(name: str) -> None:
        content = VOUCHER_YAML.replace("voucher", name)
        await call(
            client,
            "propose_spec_file",
            {"path": f"modules/shop/master/{name}/entity.yaml", "content": content},
        )

    async with anyio.create_task_group() as group:
        for name in names:
            group.start_soon(propose_one, name)
    rows = (await call(client, "list_drafts"))["drafts"]
    assert len(rows) == len(names) and all(r["target_changed"] is False for r in rows)
    assert all(server.state.review().store.record(r["path"]) for r in rows)


@pytest.mark.parametrize(
    "transform",
    [
        lambda text: text.replace("\n", "\r\n").encode(),
        lambda text: text.rstrip("\n").encode(),
        lambda text: text.replace(
            "plural: services", "plural: services  # layanan potong rambut \u2702 caf\u00e9"
        ).encode(),
    ],
    ids=["crlf", "no-trailing-newline", "non-ascii"],
)
async def test_undo_through_mcp_restores_the_exact_original_bytes(
    client: Client, project: Path, transform: Callable[[str], bytes]
) -> None:
    target = project / "spec" / SERVICE
    original = transform(target.read_text())
    target.write_bytes(original)
    await call(
        client, "propose_spec_file", {"path": SERVICE, "content": service_text(project) + "# changed\n"}
    )
    await call(client, "apply_draft", {"file": SERVICE})
    assert target.read_bytes() != original
    await call(client, "undo_apply")
    assert target.read_bytes() == original


async def test_diff_of_an_unknown_draft_names_the_drafts_there_are(client: Client) -> None:
    await call(client, "propose_spec_file", {"path": VOUCHER, "content": VOUCHER_YAML})
    message = await call_error(client, "diff_drafts", {"path": "modules/shop/none.yaml"})
    assert "no draft" in message and VOUCHER in message
