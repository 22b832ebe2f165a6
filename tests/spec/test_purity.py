"""The spec core stays pure: importing it pulls in no UI, model or MCP library."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_spec_core_loads_no_textual_litellm_or_mcp() -> None:
    code = ("import sys, formspec_consult.spec as s\n"
            "p = s.open_project(s.__path__[0] + '/../examples/barbershop')\n"
            "assert p.validate().ok\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'textual', 'litellm', 'mcp'})\n"
            "print(','.join(bad))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == ""
