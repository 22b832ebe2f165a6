"""`formspec-consult mcp-serve` as a real process: Ctrl-C ends it, and `--http` serves Streamable HTTP."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.servers.conftest import call

pytestmark = pytest.mark.slow
CLI = Path(sys.executable).parent / "formspec-consult"
SESSION = "20261201-110000-proc"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "signal-test", "version": "1"},
    },
}


def _stdio_exit_on_sigint(project: Path, timeout: float, preexec_fn: Callable[[], None] | None = None) -> int:
    """Start `mcp-serve` over stdio, see it answer `initialize` (its stdin kept open, as a client
    does), send SIGINT: its exit code within `timeout`; the process is reaped whatever happens."""
    proc = subprocess.Popen(
        [str(CLI), "mcp-serve", "--project", str(project), "--session", SESSION],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=preexec_fn,
    )
    try:
        assert proc.stdin and proc.stdout
        proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1, "the server answers before the signal"
        proc.send_signal(signal.SIGINT)
        return proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream:
                stream.close()


def test_sigint_ends_the_stdio_server_promptly_while_its_client_keeps_stdin_open(project: Path) -> None:
    assert _stdio_exit_on_sigint(project, timeout=10) == 130, "SIGINT ends mcp-serve with the shell's 130"


class HttpServer:
    """`mcp-serve --http 127.0.0.1:0` in the background; its URL read from the line it prints."""

    def __init__(self, project: Path, address: str = "127.0.0.1:0", *, sigint_ignored: bool = False) -> None:
        self.proc = subprocess.Popen(
            [str(CLI), "mcp-serve", "--project", str(project), "--session", SESSION, "--http", address],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_ignore_sigint if sigint_ignored else None,
        )
        assert self.proc.stderr
        line = self.proc.stderr.readline()  # blocks until the server printed its URL (or died)
        found = re.search(r"http://\S+/mcp", line)
        assert found, f"no URL on stderr: {line!r}; rest: {self.proc.stderr.read()[-2000:]}"
        self.url = found.group(0)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()
        return self.proc.returncode


@pytest.fixture
def http_server(project: Path) -> Iterator[HttpServer]:
    server = HttpServer(project)
    yield server
    server.stop()


@pytest.mark.anyio
async def test_mcp_serve_over_http_proposes_a_draft_into_its_session(
    http_server: HttpServer, project: Path
) -> None:
    path = "modules/shop/master/service/entity.yaml"
    text = (project / "spec" / path).read_text() + "# via http\n"
    with anyio.fail_after(60):
        async with Client(streamable_http_client(http_server.url)) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"propose_spec_file", "apply_draft"} <= names
            result = await call(client, "propose_spec_file", {"path": path, "content": text})
    assert result["validation"]["ok"] is True
    assert (project / f".formspec/consult/{SESSION}/draft/{path}").read_text() == text


def test_the_http_server_refuses_a_foreign_host_header_and_stops_on_sigint(http_server: HttpServer) -> None:
    headers = {"accept": "application/json, text/event-stream", "host": "evil.example.com"}
    response = httpx.post(http_server.url, json=INITIALIZE, headers=headers, timeout=10)
    assert 400 <= response.status_code < 500
    assert http_server.stop() == 130


def _ignore_sigint() -> None:
    """What a shell without job control (a script's `cmd &`, a CI runner) does to a background job."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("stdio", [True, False], ids=["stdio", "http"])
def test_sigint_ends_mcp_serve_with_130_also_when_it_was_started_with_sigint_ignored(
    project: Path, stdio: bool
) -> None:
    if stdio:
        assert _stdio_exit_on_sigint(project, timeout=15, preexec_fn=_ignore_sigint) == 130
        return
    server = HttpServer(project, sigint_ignored=True)
    response = httpx.post(server.url, json=INITIALIZE, headers={"accept": "application/json, text/event-stream"},
                          timeout=10)
    assert response.status_code == 200, "the server was serving before the signal"
    assert server.stop() == 130, "uvicorn stops on SIGINT; the exit code must say so (it said 0)"


@pytest.mark.parametrize(
    ("address", "says"),
    [("0.0.0.0:8766", "loopback"), ("192.168.1.5:80", "loopback"), ("127.0.0.1:http", "[HOST:]PORT")],
)
def test_a_non_loopback_or_malformed_http_address_is_refused_before_anything_is_written(
    project: Path, address: str, says: str
) -> None:
    done = subprocess.run(
        [str(CLI), "mcp-serve", "--project", str(project), "--http", address],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and says in done.stderr
    assert not (project / ".formspec" / "consult").exists(), "no session or log was created"
