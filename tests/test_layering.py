"""What a layer really loads: each is imported alone in a fresh interpreter, and the heavy
libraries and upper layers it must not pull in are looked for in sys.modules.

The static rules (every import, lazy ones and those under TYPE_CHECKING included, against the
arrows of docs/architecture.md) are in tests/test_import_graph.py; this checks the run-time
effect the start-up depends on, e.g. that importing the engine does not import litellm yet.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

CASES = {
    # module imported alone: libraries it must not load
    "formspec_consult.spec": {"mcp", "textual", "litellm", "formspec_consult.agent", "formspec_consult.tui"},
    "formspec_consult.servers.local": {"textual", "litellm", "formspec_consult.tui", "formspec_consult.providers"},
    "formspec_consult.servers.registry": {"textual", "litellm", "formspec_consult.tui"},
    "formspec_consult.agent.engine.engine": {"textual", "litellm", "formspec_consult.tui"},
    "formspec_consult.spec.verify": {"mcp", "textual", "litellm", "formspec_consult.agent", "formspec_consult.tui",
                                     "formspec_consult.store", "formspec_consult.servers"},
    "formspec_consult.eval.runner": {"textual", "litellm", "formspec_consult.tui"},
    "formspec_consult.providers": {"textual", "litellm", "mcp", "formspec_consult.tui"},
    "formspec_consult.mcp_client": {"textual", "litellm", "formspec_consult.tui"},
}


@pytest.mark.parametrize("module", sorted(CASES))
def test_a_layer_does_not_import_the_layers_above_it_or_heavy_libraries(module: str) -> None:
    forbidden = sorted(CASES[module])
    code = (
        "import sys, importlib\n"
        f"importlib.import_module({module!r})\n"
        f"forbidden = {forbidden!r}\n"
        "print(sorted(f for f in forbidden if any(m == f or m.startswith(f + '.') for m in sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", f"{module} imported {done.stdout.strip()}"
