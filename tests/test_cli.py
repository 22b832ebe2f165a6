"""The command line starts fast: help and version never import the heavy libraries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("litellm", "textual", "mcp", "tiktoken")


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["mcp-serve", "--help"]])
def test_help_and_version_do_not_import_litellm_or_textual(args: list[str]) -> None:
    code = (
        "import sys\n"
        "from formspec_consult.cli import cli\n"
        "try:\n"
        f"    cli.main({args!r}, prog_name='formspec-consult')\n"
        "except SystemExit as exc:\n"
        "    assert exc.code in (0, None), exc.code\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    heavy_line = [line for line in out.stdout.splitlines() if line.startswith("HEAVY=")][-1]
    loaded = [m for m in heavy_line.removeprefix("HEAVY=").split(",") if m]
    if args[0] == "mcp-serve":
        # The server needs the MCP SDK, but never the model layer or the UI.
        loaded = [m for m in loaded if m != "mcp"]
    assert loaded == [], f"{args} imported {loaded}"


def test_root_help_lists_every_subcommand() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "formspec_consult", "--help"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0
    for name in ("mcp-serve", "registry-serve", "diff", "apply", "undo", "demo", "replay", "doctor"):
        assert name in out.stdout


def test_version_is_printed() -> None:
    from formspec_consult import __version__

    out = subprocess.run(
        [sys.executable, "-m", "formspec_consult", "--version"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0
    assert __version__ in out.stdout


@pytest.mark.parametrize("name", sorted(__import__("formspec_consult.cli", fromlist=["LAZY_COMMANDS"]).LAZY_COMMANDS))
def test_every_listed_subcommand_exists_and_has_help(name: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "formspec_consult", name, "--help"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "Usage:" in out.stdout


def test_a_ctrl_c_the_command_does_not_handle_exits_130_not_aborted_1(tmp_path: Path) -> None:
    # Ctrl-C before the command's own handling (during its imports or start) reaches click,
    # which says "Aborted!" and exits 1; the process was interrupted, so it exits 130.
    code = (
        "import sys\n"
        "import formspec_consult.commands.consult as consult\n"
        "from formspec_consult import cli\n"
        "def interrupted(ctx, **options):\n"
        "    raise KeyboardInterrupt\n"
        "consult.run_consult = interrupted\n"
        "sys.argv = ['formspec-consult', '--model', 'x', '-p', 'hi']\n"
        "cli.main()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 130, out.stderr
    assert "Aborted!" not in out.stderr
