"""Tampering with `.formspec/` by hand: the gate and apply/undo must not be bypassed.

Each scenario drives the local server's MCP tools in-process (the highest public API), changes
the session's files the way a person or a script could, and reports what the tools did.
"""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from formspec_consult.servers.local import create_local_server
from tests.helpers import copy_example, first_text
from tests.integrity.scenarios import Observed, scenario

SESSION = "20261201-090000-tamp"
SERVICE = "modules/shop/master/service/entity.yaml"


def barbershop(tmp_path: Path) -> Path:
    return copy_example(tmp_path)


class Tools:
    """Calls tools of one in-process local server; results as (ok, structured or error text)."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def __call__(self, name: str, **arguments: Any) -> tuple[bool, Any]:
        result = await self.client.call_tool(name, arguments)
        text = first_text(result)
        return (not result.is_error, result.structured_content if not result.is_error else text)


def run_with_server(
    tmp_path: Path, body: Callable[[Tools, Path, Path], Awaitable[Observed]]
) -> Observed:
    """Run ``body(tools, project, session_folder)`` against a fresh copy of the barbershop."""
    project = barbershop(tmp_path)

    async def main() -> Observed:
        async with Client(create_local_server(project, SESSION)) as client:
            return await body(Tools(client), project, project / ".formspec" / "consult" / SESSION)

    return anyio.run(main)


def edited_service(project: Path) -> str:
    return (project / "spec" / SERVICE).read_text(encoding="utf-8").replace("service", "service", 1) + "# v2\n"


def _tmp(request: pytest.FixtureRequest) -> Path:
    return request.getfixturevalue("tmp_path")  # type: ignore[no-any-return]


@scenario
def draft_bytes_not_utf8(request: pytest.FixtureRequest) -> Observed:
    """A draft whose bytes are swapped for invalid UTF-8 after it passed the gate."""

    async def body(tools: Tools, project: Path, folder: Path) -> Observed:
        before = (project / "spec" / SERVICE).read_bytes()
        await tools("propose_spec_file", path=SERVICE, content=edited_service(project))
        draft = folder / "draft" / SERVICE
        draft.write_bytes(draft.read_bytes().replace(b"# v2", b"# v\xff\xfe2"))
        ok, result = await tools("apply_draft", file=SERVICE)
        return {"applied": ok, "message": str(result),
                "project_unchanged": (project / "spec" / SERVICE).read_bytes() == before}

    return run_with_server(_tmp(request), body)


@scenario
def draft_file_replaced_by_symlink(request: pytest.FixtureRequest) -> Observed:
    """The draft file is replaced by a link to a file outside the project."""
    tmp_path = _tmp(request)
    outside = tmp_path / "outside.yaml"

    async def body(tools: Tools, project: Path, folder: Path) -> Observed:
        before = (project / "spec" / SERVICE).read_bytes()
        outside.write_text(edited_service(project) + "# secret from outside\n", encoding="utf-8")
        await tools("propose_spec_file", path=SERVICE, content=edited_service(project))
        draft = folder / "draft" / SERVICE
        draft.unlink()
        draft.symlink_to(outside)
        ok, result = await tools("apply_draft", file=SERVICE)
        return {"applied": ok, "message": str(result),
                "project_unchanged": (project / "spec" / SERVICE).read_bytes() == before}

    return run_with_server(tmp_path, body)


@scenario
def draft_folder_replaced_by_symlink(request: pytest.FixtureRequest) -> Observed:
    """The session's draft/ folder is replaced by a link to a folder outside the project."""
    tmp_path = _tmp(request)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def body(tools: Tools, project: Path, folder: Path) -> Observed:
        await tools("propose_spec_file", path=SERVICE, content=edited_service(project))
        shutil.rmtree(folder / "draft")
        (folder / "draft").symlink_to(elsewhere, target_is_directory=True)
        proposed, message = await tools("propose_spec_file", path=SERVICE, content=edited_service(project))
        listed, _ = await tools("list_drafts")
        return {"proposed": proposed, "message": str(message), "listed": listed,
                "nothing_written_outside": not any(elsewhere.rglob("*"))}

    return run_with_server(tmp_path, body)


def _manifest_case(request: pytest.FixtureRequest, damage: Callable[[Path], None]) -> Observed:
    async def body(tools: Tools, project: Path, folder: Path) -> Observed:
        await tools("propose_spec_file", path=SERVICE, content=edited_service(project))
        damage(folder / "drafts.json")
        target = project / "spec" / SERVICE
        target.write_text(target.read_text(encoding="utf-8") + "# edited by hand meanwhile\n", encoding="utf-8")
        before = target.read_bytes()
        ok, result = await tools("apply_draft", file=SERVICE)
        return {"applied": ok, "message": str(result), "project_unchanged": target.read_bytes() == before}

    return run_with_server(_tmp(request), body)


@scenario
def drafts_manifest_missing(request: pytest.FixtureRequest) -> Observed:
    """drafts.json deleted, then the target edited: the target-changed check must still hold."""
    return _manifest_case(request, lambda path: path.unlink())


@scenario
def drafts_manifest_torn(request: pytest.FixtureRequest) -> Observed:
    """drafts.json cut in half, then the target edited."""
    def tear(path: Path) -> None:
        whole = path.read_bytes()
        path.write_bytes(whole[: len(whole) // 2])

    return _manifest_case(request, tear)


@scenario
def undo_backup_edited(request: pytest.FixtureRequest) -> Observed:
    """undo/NNNN/before changed after the apply: undo must not restore bytes it cannot vouch for."""

    async def body(tools: Tools, project: Path, folder: Path) -> Observed:
        await tools("propose_spec_file", path=SERVICE, content=edited_service(project))
        ok, applied = await tools("apply_draft", file=SERVICE)
        assert ok, applied
        backup = project / applied["backup"] / "before"
        backup.write_bytes(backup.read_bytes() + b"# planted\n")
        after_apply = (project / "spec" / SERVICE).read_bytes()
        undone, message = await tools("undo_apply")
        return {"undone": undone, "message": str(message),
                "file_kept": (project / "spec" / SERVICE).read_bytes() == after_apply}

    return run_with_server(_tmp(request), body)


@scenario
def force_given_as_a_string(request: pytest.FixtureRequest) -> Observed:
    """apply_draft with force: "yes" on a draft whose target changed: "yes" is not a boolean."""

    async def body(tools: Tools, project: Path, folder: Path) -> Observed:
        await tools("propose_spec_file", path=SERVICE, content=edited_service(project))
        target = project / "spec" / SERVICE
        target.write_text(target.read_text(encoding="utf-8") + "# edited by hand\n", encoding="utf-8")
        before = target.read_bytes()
        ok, result = await tools("apply_draft", file=SERVICE, force="yes")
        undo_ok, undo_result = await tools("undo_apply", force="true")
        schema = next(t for t in (await tools.client.list_tools()).tools if t.name == "apply_draft").input_schema
        return {"applied": ok, "message": str(result), "project_unchanged": target.read_bytes() == before,
                "undo_with_string_force": undo_ok, "undo_message": str(undo_result),
                "schema_type": schema["properties"]["force"].get("type")}

    return run_with_server(_tmp(request), body)


@scenario
def lock_folder_replaced_by_symlink(request: pytest.FixtureRequest) -> Observed:
    """`.formspec/locks` is a link to a folder outside the project; then a draft is applied."""
    tmp_path = _tmp(request)
    elsewhere = tmp_path / "elsewhere-locks"
    elsewhere.mkdir()

    async def body(tools: Tools, project: Path, folder: Path) -> Observed:
        before = (project / "spec" / SERVICE).read_bytes()
        await tools("propose_spec_file", path=SERVICE, content=edited_service(project))
        locks = project / ".formspec" / "locks"
        shutil.rmtree(locks, ignore_errors=True)
        locks.symlink_to(elsewhere, target_is_directory=True)
        ok, result = await tools("apply_draft", file=SERVICE)
        return {"applied": ok, "message": str(result), "nothing_made_outside": not any(elsewhere.iterdir()),
                "project_unchanged": (project / "spec" / SERVICE).read_bytes() == before}

    return run_with_server(tmp_path, body)
