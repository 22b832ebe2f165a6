"""The session core and dev-server control are plain Python: no MCP, UI or model libraries."""

from __future__ import annotations

import subprocess
import sys


def test_sessions_and_devserver_import_no_mcp_textual_or_litellm() -> None:
    code = (
        "import sys\n"
        "import formspec_consult.store.review, formspec_consult.store.folder\n"
        "import formspec_consult.devserver\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'textual', 'litellm'}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_mcp_serve_help_does_not_build_a_server() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "formspec_consult", "mcp-serve", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "--session" in done.stdout and "--project" in done.stdout
