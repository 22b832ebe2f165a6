"""The prompt on screen, as a person sees it: a real terminal (tmux, 160×48), timed from launching
the command until the message input's placeholder is on the screen (`tmux capture-pane`), against
a bare Textual app with one Input timed the same way in the same run (runs interleaved, medians).

This is what `bench_tui` cannot see: it runs the app headless and takes the time the app reports,
not the time a terminal shows the prompt. Goal: ratio ≤ 1.3 (the first frame needs only Textual
and our widgets: no MCP SDK, no litellm, no pydantic before it).

    .venv/bin/python bench/run.py prompt        (BENCH_PROMPT_RUNS=5)
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = int(os.environ.get("BENCH_PROMPT_RUNS", "5"))
GOAL = 1.3
SIZE = ("160", "48")
OURS_MARK = "Message the consultant"
BARE_MARK = "bare app ready"
BARE = f"""
from textual.app import App, ComposeResult
from textual.widgets import Input

class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield Input(placeholder={BARE_MARK!r})

    def on_mount(self) -> None:
        self.query_one(Input).focus()

Bare().run()
"""


def _on_screen(command: list[str], mark: str, env: dict[str, str], cwd: Path) -> float:
    """Seconds from launching `command` in a fresh tmux server until `mark` is on its screen."""
    socket = f"bench-prompt-{uuid.uuid4().hex[:8]}"
    tmux = ["tmux", "-L", socket, "-f", os.devnull]
    started = time.perf_counter()
    subprocess.run([*tmux, "new-session", "-d", "-x", SIZE[0], "-y", SIZE[1], "-s", "b", "-c", str(cwd),
                    *command], env=env, check=True)
    try:
        deadline = started + 60
        while time.perf_counter() < deadline:
            screen = subprocess.run([*tmux, "capture-pane", "-p", "-t", "b"], capture_output=True, text=True).stdout
            if mark in screen:
                return time.perf_counter() - started
            time.sleep(0.005)
        raise RuntimeError(f"{mark!r} never appeared on the screen of {command[0]}")
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def main() -> int:
    if shutil.which("tmux") is None:
        print("tmux is not installed (tests/setup/30-tmux.sh); skipped")
        return 0
    sys.path.insert(0, str(ROOT))
    from tests.e2e.project import make_project

    binary = shutil.which("formspec-consult", path=str(Path(sys.executable).parent)) or "formspec-consult"
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        project = make_project(base / "shop")
        script = base / "script.yaml"
        script.write_text("- Hello.\n", encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update(HOME=str(base / "home"), XDG_CONFIG_HOME=str(base / "config"), XDG_CACHE_HOME=str(base / "cache"),
                   FORMSPEC_REGISTRY_DB=f"sqlite:///{base / 'registry.db'}", TERM="xterm-256color")
        ours_cmd = [binary, "--project", str(project), "-m", f"scripted:{script}"]
        bare_cmd = [sys.executable, "-c", BARE]
        _on_screen(bare_cmd, BARE_MARK, env, base)  # warm the file cache for both
        _on_screen(ours_cmd, OURS_MARK, env, base)
        bare: list[float] = []
        ours: list[float] = []
        for _ in range(RUNS):
            bare.append(_on_screen(bare_cmd, BARE_MARK, env, base))
            ours.append(_on_screen(ours_cmd, OURS_MARK, env, base))
    b, o = statistics.median(bare), statistics.median(ours)
    ratio = o / b
    print(f"bare Textual app, input on screen   median {b:.3f} s  ({', '.join(f'{t:.2f}' for t in bare)})")
    print(f"formspec-consult, prompt on screen  median {o:.3f} s  ({', '.join(f'{t:.2f}' for t in ours)})")
    print(f"ratio {ratio:.2f}× (goal ≤ {GOAL}×) — tmux {SIZE[0]}×{SIZE[1]}, {RUNS} runs each, interleaved")
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
