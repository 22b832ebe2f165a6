"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, a third-party client)
against both of our servers over Streamable HTTP: the registry and `mcp-serve --http`.

Installed by tests/setup/15-conformance.sh. The suite's whole active run is what it sends a server
normally (about thirty scenarios at once); its generic scenarios must pass, and none may be
throttled. Skipped only when npm itself is absent; when npm is there but the suite is not, the
tests fail and say which script to run.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from formspec_consult.servers.registry_http import HttpLimits
from tests.registry.conftest import RunningRegistry
from tests.servers.test_local_process import HttpServer

pytestmark = [pytest.mark.conformance, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / ".tools" / "node_modules" / ".bin" / "conformance"
GENERIC = ["server-initialize", "ping", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection"]


@pytest.fixture
def suite() -> Path:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed, so the MCP conformance suite cannot be installed")
    if not SUITE.exists():
        pytest.fail("MCP conformance suite missing: run `bash tests/setup/15-conformance.sh` (make test does)")
    return SUITE


def run_suite(suite: Path, url: str, out: Path) -> dict[str, list[dict[str, object]]]:
    """Run the suite's active server scenarios against `url`; the checks of each scenario."""
    done = subprocess.run(
        [str(suite), "server", "--url", url, "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    checks: dict[str, list[dict[str, object]]] = {}
    for path in out.glob("server-*/checks.json"):
        named = re.fullmatch(r"server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z", path.parent.name)
        assert named, path.parent.name
        checks[named.group(1)] = json.loads(path.read_text())
    assert checks, f"the suite wrote no results: {done.stdout[-1500:]} {done.stderr[-1500:]}"
    return checks


def assert_generic_scenarios_pass(checks: dict[str, list[dict[str, object]]]) -> None:
    for scenario in GENERIC:
        assert scenario in checks, f"{scenario} did not run; ran: {sorted(checks)}"
        failed = [c for c in checks[scenario] if c["status"] != "SUCCESS"]
        assert not failed, f"{scenario}: {failed}"
    throttled = [
        (scenario, c.get("errorMessage"))
        for scenario, results in checks.items()
        for c in results
        if "Too many requests" in str(c.get("errorMessage", ""))
    ]
    assert not throttled, f"the suite's normal traffic was rate-limited: {throttled[:3]}"


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[RunningRegistry]:
    running = RunningRegistry(f"sqlite:///{tmp_path / 'registry.db'}", None, HttpLimits())  # default limits
    yield running
    running.stop()


def test_the_registry_passes_the_generic_server_scenarios_at_its_default_rate_limit(
    suite: Path, registry: RunningRegistry, tmp_path: Path
) -> None:
    assert_generic_scenarios_pass(run_suite(suite, registry.url, tmp_path / "results"))


def test_the_local_server_over_http_passes_the_generic_server_scenarios(
    suite: Path, project: Path, tmp_path: Path
) -> None:
    server = HttpServer(project)
    try:
        checks = run_suite(suite, server.url, tmp_path / "results")
    finally:
        server.stop()
    assert_generic_scenarios_pass(checks)
