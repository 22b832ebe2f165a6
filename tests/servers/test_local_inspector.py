"""Interoperability: the MCP Inspector CLI (a third-party client) lists and calls our tools.

Installed by tests/setup/10-inspector.sh. Skipped only when npm itself is absent; when npm is
there but the tool is not, the test fails and says which script to run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.inspector, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
INSPECTOR = ROOT / "tests" / ".tools" / "node_modules" / ".bin" / "mcp-inspector"
CLI = Path(sys.executable).parent / "formspec-consult"
SESSION = "20261130-140000-insp"


@pytest.fixture
def inspector() -> Path:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed, so the MCP Inspector CLI cannot be installed")
    if not INSPECTOR.exists():
        pytest.fail("MCP Inspector CLI missing: run `bash tests/setup/10-inspector.sh` (make test does)")
    return INSPECTOR


def run_inspector(inspector: Path, project: Path, *method: str) -> dict[str, Any]:
    command = [
        str(inspector),
        "--cli",
        str(CLI),
        "mcp-serve",
        "--project",
        str(project),
        "--session",
        SESSION,
        *method,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_the_inspector_lists_our_tools(inspector: Path, project: Path) -> None:
    tools = {t["name"]: t for t in run_inspector(inspector, project, "--method", "tools/list")["tools"]}
    assert {"propose_spec_file", "apply_draft", "list_installed_modules", "undo_apply"} <= set(tools)
    assert tools["read_workspace_manifest"]["annotations"]["readOnlyHint"] is True


def test_the_inspector_calls_propose_spec_file(inspector: Path, project: Path) -> None:
    path = "modules/shop/master/service/entity.yaml"
    content = (project / "spec" / path).read_text() + "# from the inspector\n"
    result = run_inspector(
        inspector,
        project,
        "--method",
        "tools/call",
        "--tool-name",
        "propose_spec_file",
        "--tool-arg",
        f"path={path}",
        "--tool-arg",
        f"content={content}",
    )
    assert result.get("isError") in (None, False)
    assert result["structuredContent"]["validation"]["ok"] is True
    assert (project / f".formspec/consult/{SESSION}/draft/{path}").read_text() == content
