"""The MCP manager: routing, namespacing on clash, errors as text, dead servers restarted, no hang."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from formspec_consult.mcp_client import MCPManager, ServerSpec, ToolError
from tests.mcp_client.fake_server import LONG_NAME, build

pytestmark = pytest.mark.anyio
FAKE = str(Path(__file__).with_name("fake_server.py"))
VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # what every provider accepts as a function name


def stdio_spec(tmp_path: Path, name: str = "fake", timeout: float = 20.0) -> ServerSpec:
    return ServerSpec(
        name=name,
        command=sys.executable,
        args=(FAKE, name),
        errlog=tmp_path / f"{name}.log",
        timeout=timeout,
        env={"PYTHONPATH": str(Path(__file__).parents[2])},
    )


async def test_on_a_clash_the_first_server_keeps_the_plain_name_and_later_ones_are_prefixed() -> None:
    manager = MCPManager(
        [ServerSpec(name="a", in_process=build("a")), ServerSpec(name="b", in_process=build("b"))]
    )
    await manager.start()
    try:
        names = [d["function"]["name"] for d in manager.tool_declarations()]
        assert "echo" in names and "b__echo" in names and "a__echo" not in names
        assert len(names) == len(set(names))
        assert (await manager.call("echo", {"text": "from a"})).server == "a"
        outcome = await manager.call("b__echo", {"text": "hi"})
        assert (outcome.ok, outcome.text, outcome.server) == (True, "hi", "b")
    finally:
        await manager.aclose()


async def test_tool_failures_and_unknown_tools_come_back_as_error_text() -> None:
    manager = MCPManager([ServerSpec(name="a", in_process=build("a"))])
    await manager.start()
    try:
        failed = await manager.call("fail", {"reason": "bad input"})
        assert not failed.ok and failed.text.startswith("ERROR: ") and "bad input" in failed.text
        unknown = await manager.call("nope", {})
        assert not unknown.ok and "unknown tool 'nope'" in unknown.text and "echo" in unknown.text
        with pytest.raises(ToolError, match="bad input"):
            await manager.call_on("a", "fail", {"reason": "bad input"})
    finally:
        await manager.aclose()


@pytest.mark.slow
async def test_a_tool_that_crashes_without_a_reason_still_comes_back_as_an_error_that_says_what_happened() -> None:
    manager = MCPManager([ServerSpec(name="a", in_process=build("a"))])
    await manager.start()
    try:
        outcome = await manager.call("crash", {})
        assert not outcome.ok
        assert "failed inside its server, which gave no reason" in outcome.text and "/mcp log" in outcome.text
    finally:
        await manager.aclose()


async def test_a_server_killed_mid_call_becomes_a_tool_error_and_is_restarted(tmp_path: Path) -> None:
    manager = MCPManager([stdio_spec(tmp_path)], backoff=(0.0,))
    await manager.start(required=["fake"])
    try:
        first_pid = (await manager.call("pid", {})).text
        with anyio.fail_after(30):
            died = await manager.call("die", {})
        assert not died.ok and died.text.startswith("ERROR: ") and "was restarted" in died.text
        again = await manager.call("pid", {})
        assert again.ok and again.text != first_pid
        assert manager.status()[0].restarts == 1
    finally:
        await manager.aclose()


@pytest.mark.slow
async def test_a_hung_call_times_out_instead_of_hanging_the_turn(tmp_path: Path) -> None:
    manager = MCPManager([stdio_spec(tmp_path, timeout=1.0)], backoff=(0.0,))
    await manager.start(required=["fake"])
    try:
        with anyio.fail_after(30):
            hung = await manager.call("hang", {})
        assert not hung.ok and "did not answer 'hang' within 1s" in hung.text
        assert (await manager.call("echo", {"text": "back"})).text == "back"
    finally:
        await manager.aclose()


@pytest.mark.slow
async def test_a_third_party_server_never_sees_the_parents_api_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOME_API_KEY", "sk-secret")
    manager = MCPManager([stdio_spec(tmp_path)])
    await manager.start(required=["fake"])
    try:
        assert (await manager.call("env", {"name": "SOME_API_KEY"})).text == "<unset>"
        assert (await manager.call("env", {"name": "PATH"})).text == os.environ["PATH"]
    finally:
        await manager.aclose()


async def test_a_server_that_cannot_start_is_reported_not_fatal_unless_required(tmp_path: Path) -> None:
    manager = MCPManager(
        [ServerSpec(name="ghost", command=str(tmp_path / "missing-binary"), errlog=tmp_path / "g.log")]
    )
    problems = await manager.start()
    try:
        assert len(problems) == 1 and "ghost" in problems[0]
        assert manager.status()[0].state == "dead"
    finally:
        await manager.aclose()


@pytest.mark.slow
async def test_closing_the_manager_reaps_the_server_process(tmp_path: Path) -> None:
    manager = MCPManager([stdio_spec(tmp_path)])
    await manager.start(required=["fake"])
    pid = int((await manager.call("pid", {})).text)
    await manager.aclose()
    with anyio.fail_after(10):
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            # A zombie still answers kill(0): it must have been waited for, so only a live child fails.
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                pytest.fail("the server process was not reaped")
            await anyio.sleep(0.05)


@pytest.mark.slow
async def test_two_calls_failing_at_once_share_one_restart(tmp_path: Path) -> None:
    manager = MCPManager([stdio_spec(tmp_path, timeout=2.0)], backoff=(0.0,))
    await manager.start(required=["fake"])
    try:
        outcomes: list[Any] = []

        async def hang() -> None:
            outcomes.append(await manager.call("hang", {}))

        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                group.start_soon(hang)
                group.start_soon(hang)
        assert [o.ok for o in outcomes] == [False, False]
        assert all("restarted" in o.text for o in outcomes)
        assert manager.status()[0].restarts == 1
        assert (await manager.call("echo", {"text": "ok"})).ok
    finally:
        await manager.aclose()


async def test_names_no_provider_accepts_are_mapped_to_valid_unique_ones_and_called_by_their_real_name() -> None:
    long_server = "warehouse_inventory_and_purchasing_of_the_northern_region_s"  # 59 chars: prefix > 64
    manager = MCPManager(
        [ServerSpec(name="a", in_process=build("a")), ServerSpec(name=long_server, in_process=build("b"))]
    )
    await manager.start()
    try:
        names = [d["function"]["name"] for d in manager.tool_declarations()]
        assert all(VALID.match(name) for name in names) and len(names) == len(set(names))
        assert "files_read" in names and "files.read" not in names
        assert (await manager.call("files_read", {"path": "p"})).text == "a read p"
        prefixed = [n for n in names if n.startswith(long_server[:40]) and manager.real_name(n) == "echo"]
        assert len(prefixed) == 1 and len(prefixed[0]) == 64
        outcome = await manager.call(prefixed[0], {"text": "to b"})
        assert (outcome.ok, outcome.server, outcome.text) == (True, long_server, "to b")
        long_names = [n for n in names if manager.real_name(n) == LONG_NAME]
        assert len(long_names) == 2 and all(len(n) <= 64 for n in long_names)
        assert {manager.server_of(n) for n in long_names} == {"a", long_server}
        assert (await manager.call(long_names[1], {})).text == "b long"
        # Stable: a restart (new tool lists) maps every tool to the same name again.
        await manager.restart()
        assert [d["function"]["name"] for d in manager.tool_declarations()] == names
    finally:
        await manager.aclose()


async def test_a_tool_added_by_the_server_is_offered_after_its_list_changed_notification() -> None:
    manager = MCPManager([ServerSpec(name="a", in_process=build("a"))])
    await manager.start()
    try:
        assert "fresh" not in [d["function"]["name"] for d in manager.tool_declarations()]
        assert (await manager.call("grow", {"tool": "fresh"})).text == "added fresh"
        assert await manager.refresh() is True
        assert "fresh" in [d["function"]["name"] for d in manager.tool_declarations()]
        assert (await manager.call("fresh", {})).text == "grown fresh"
        assert await manager.refresh() is False  # nothing changed since
    finally:
        await manager.aclose()


@pytest.mark.slow
async def test_over_stdio_a_tool_added_later_can_be_called_without_an_explicit_refresh(tmp_path: Path) -> None:
    manager = MCPManager([stdio_spec(tmp_path)])
    with anyio.fail_after(60):
        await manager.start(required=["fake"])
        try:
            await manager.call("grow", {"tool": "later"})
            outcome = await manager.call("later", {})  # an unknown name re-lists a changed server first
            assert (outcome.ok, outcome.text) == (True, "grown later")
        finally:
            await manager.aclose()


async def test_an_image_becomes_a_placeholder_naming_it_and_an_image_part() -> None:
    manager = MCPManager([ServerSpec(name="a", in_process=build("a"))])
    await manager.start()
    try:
        outcome = await manager.call("picture", {})
        assert outcome.text == "a picture:\n[image 1: image/png, 71 bytes]"
        (part,) = outcome.parts
        assert part["type"] == "image_url" and part["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    finally:
        await manager.aclose()


async def test_a_server_that_starts_later_still_keeps_its_names_over_the_servers_after_it(tmp_path: Path) -> None:
    # `first` is slow to start, `second` is up at once; both declare `echo`. Named in server
    # order, not in the order they came up: `second` never takes a name `first` is entitled to.
    gate = tmp_path / "gate"
    first = stdio_spec(tmp_path, "first")
    first = ServerSpec(
        name="first", command=first.command, args=first.args, errlog=first.errlog, timeout=first.timeout,
        env={**first.env, "FAKE_SERVER_GATE": str(gate)},
    )
    manager = MCPManager([first, ServerSpec(name="second", in_process=build("second"))])
    try:
        manager.launch()
        with anyio.fail_after(60):
            assert await manager.wait_started(["second"]) == []
        assert manager.connections["first"].state == "starting"
        assert manager.tool_declarations() == []  # nothing named while an earlier server starts
        gate.touch()
        with anyio.fail_after(60):
            assert await manager.wait_started() == []
        routes = {d["function"]["name"]: manager.server_of(d["function"]["name"]) for d in manager.tool_declarations()}
        assert routes["echo"] == "first" and routes["second__echo"] == "second"
        assert (await manager.call("echo", {"text": "hi"})).server == "first"
    finally:
        await manager.aclose()


def test_a_server_status_only_takes_a_state_a_connection_goes_through() -> None:
    from formspec_consult.mcp_client.status import SERVER_STATES, ServerStatus

    assert SERVER_STATES == ("stopped", "starting", "running", "dead")
    with pytest.raises(ValueError, match="must be one of stopped, starting, running, dead"):
        ServerStatus("formspec", "ready")  # type: ignore[arg-type]


async def test_a_line_a_server_prints_that_is_not_json_goes_to_its_log_not_to_the_terminal(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    spec = stdio_spec(tmp_path)
    manager = MCPManager([replace(spec, args=(*spec.args, "--banner"))], backoff=(0.0,))
    with caplog.at_level("DEBUG"):
        await manager.start(required=["fake"])
    try:
        with caplog.at_level("DEBUG"):
            log = tmp_path / "fake.log"
            for _ in range(200):  # the reader logs the banner while the start goes on: at most 10 s
                if "Failed to parse JSONRPC message" in log.read_text(encoding="utf-8"):
                    break
                await anyio.sleep(0.05)
            assert "Failed to parse JSONRPC message" in log.read_text(encoding="utf-8")
        assert (await manager.call("echo", {"text": "still here"})).text == "still here"
    finally:
        await manager.aclose()
    # nothing reached the root logger (what prints a traceback on a terminal with no logging set up)
    assert not [r for r in caplog.records if r.name.startswith("mcp.client")]
    assert "Traceback" not in log.read_text(encoding="utf-8")
