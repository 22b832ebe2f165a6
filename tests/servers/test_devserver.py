"""Dev-server control against the fake dev server (real subprocesses on loopback)."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from formspec_consult.devserver import DevServer, DevServerError, resolve_config
from formspec_consult.devserver.config import DevConfig

FAKE = Path(__file__).resolve().parents[1] / "fakes" / "devserver.py"
pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fake_config(port: int, *extra: str, stop_timeout: float = 5.0, settle_timeout: float = 5.0) -> DevConfig:
    return DevConfig(
        command=(sys.executable, str(FAKE), "--port", str(port), *extra),
        health_url=f"http://127.0.0.1:{port}/health",
        source="test",
        start_timeout=15.0,
        settle_timeout=settle_timeout,
        stop_timeout=stop_timeout,
    )


MakeServer = Callable[[DevConfig], DevServer]


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[MakeServer]:
    made: list[DevServer] = []

    def make(config: DevConfig) -> DevServer:
        server = DevServer(tmp_path, tmp_path / ".formspec" / "consult", config)
        made.append(server)
        return server

    yield make
    for server in made:
        server.stop()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_start_waits_for_health_and_stop_ends_the_process_group(make_server: MakeServer, tmp_path: Path) -> None:
    child_file = tmp_path / "child.pid"
    server = make_server(fake_config(free_port(), "--child-pid-file", str(child_file)))
    started = server.start()
    assert started["health"] == "ok"
    status = server.status()
    assert status["running"] and status["pid"] == started["pid"] and status["health"] == "ok"
    assert server.pid_path.is_file()
    child = int(child_file.read_text())
    stopped = server.stop()
    assert stopped == {"stopped": True, "pid": started["pid"], "forced": False}
    assert not _alive(child) or Path(f"/proc/{child}/stat").read_text().split()[2] == "Z"
    assert server.status()["running"] is False and not server.pid_path.exists()
    assert "fake dev server on port" in server.log_path.read_text()


def test_stop_escalates_to_kill_when_term_is_ignored(make_server: MakeServer) -> None:
    server = make_server(fake_config(free_port(), "--ignore-term", stop_timeout=0.5))
    server.start()
    assert server.stop()["forced"] is True
    assert server.status()["running"] is False


def test_a_server_that_exits_while_starting_reports_its_log(make_server: MakeServer) -> None:
    server = make_server(fake_config(free_port(), "--exit-code", "3"))
    with pytest.raises(DevServerError, match=r"(?s)exited with code 3.*failing on purpose"):
        server.start()
    assert server.status()["running"] is False


def test_an_unhealthy_server_is_reported_as_such(make_server: MakeServer) -> None:
    # However long the (loaded) machine takes to start it: the start bound is 15 s, and the first
    # answer ends the wait when no settle time is given.
    server = make_server(fake_config(free_port(), "--health-status", "503", settle_timeout=0.0))
    assert server.start()["health"] == "unhealthy (HTTP 503)"
    assert server.status()["health"] == "unhealthy (HTTP 503)"


def test_a_server_that_answers_unhealthy_while_warming_up_is_waited_for(make_server: MakeServer) -> None:
    server = make_server(fake_config(free_port(), "--health-status", "503", "--healthy-after", "3"))
    assert server.start()["health"] == "ok"


def test_a_second_instance_sees_and_stops_the_server_through_the_pid_file(make_server: MakeServer) -> None:
    config = fake_config(free_port())
    first = make_server(config)
    pid = first.start()["pid"]
    second = make_server(config)
    assert second.status()["pid"] == pid
    assert second.stop()["stopped"] is True
    first.stop()  # reaps the zombie of its own child


def test_a_missing_binary_is_a_clear_error(make_server: MakeServer) -> None:
    server = make_server(
        DevConfig(("formspec-not-installed-xyz", "dev"), "http://127.0.0.1:9/health", "default")
    )
    with pytest.raises(DevServerError, match=r"not found on PATH.*FORMSPEC_DEV_COMMAND"):
        server.start()


def test_stop_when_nothing_runs_says_so(make_server: MakeServer) -> None:
    server = make_server(fake_config(free_port()))
    assert server.stop() == {"stopped": False, "reason": "The dev server is not running."}


def test_command_precedence_is_argument_env_file_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FORMSPEC_DEV_COMMAND", raising=False)
    monkeypatch.delenv("FORMSPEC_HEALTH_URL", raising=False)
    assert resolve_config(tmp_path).command == ("formspec", "dev")
    assert resolve_config(tmp_path).health_url == "http://127.0.0.1:8080/health"
    (tmp_path / "formspec-app.yaml").write_text("spec: spec\nport: 9123\nconsult:\n  dev_command: make dev\n")
    assert resolve_config(tmp_path).command == ("make", "dev")
    assert resolve_config(tmp_path).health_url == "http://127.0.0.1:9123/health"
    monkeypatch.setenv("FORMSPEC_DEV_COMMAND", "fs dev --watch")
    assert resolve_config(tmp_path).source == "FORMSPEC_DEV_COMMAND"
    assert resolve_config(tmp_path, ["x"], "http://127.0.0.1:1/h").command == ("x",)


def test_a_server_started_by_hand_is_reported_but_not_managed(make_server: MakeServer, tmp_path: Path) -> None:
    port = free_port()
    by_hand = make_server(fake_config(port))
    by_hand.start()
    by_hand.pid_path.unlink()  # as if started outside formspec-consult
    other = DevServer(tmp_path, tmp_path / "elsewhere", fake_config(port))
    status = other.status()
    assert status["running"] is True and status["managed"] is False and status["pid"] is None
    assert status["health"] == "ok"
    refused = other.stop()
    assert refused["stopped"] is False and "not started by formspec-consult" in refused["reason"]
