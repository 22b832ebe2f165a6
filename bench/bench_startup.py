"""Start-up, in one run: every figure of issue 14's proof, each against a floor of the same run.

Medians of N interleaved rounds of fresh subprocesses (so a change in the machine's load hits
every kind alike), timed from `Popen`:

* bare Textual app vs our first frame (headless, 120×36; see bench_tui);
* the import-litellm floor: a fresh interpreter that imports litellm (bundled cost map);
* our TUI ready: the real app, the real engine and its MCP servers over stdio, the real litellm
  provider against the fake OpenAI server on loopback, until the status bar says "ready" — the
  session shown, the person can type, review drafts and run commands, while the model layer
  (litellm's import in its thread, the capability and fit checks) may still load; and apart, until
  that model layer has joined (a message sent earlier is queued until then, and goes out now);
* quitting it: from ctrl+q's action to the end of the process (the `formspec-consult` path:
  terminal back, resume hint, servers closed, exit);
* our headless `-p` turn: `formspec-consult -p hi` against the same fake (it answers at once),
  until the process has exited; and the same with the bundled registry served in-process
  (an in-memory MCP transport) instead of its stdio subprocess, to compare;
* the CPU seconds of the TUI run and of the `-p` run (every thread of the consultation process,
  and apart, the MCP servers it reaped) against the floor's: one interpreter lock serialises
  litellm's import (a thread) with the MCP client and Textual (the event loop), so the process's
  CPU time bounds its wall time; comparing CPU ratios also holds up on a loaded machine;
* then the fixed prefix and the cached share of prompt tokens (bench_prefix).

Goals: TUI ready ≤ 1.3× and a `-p` turn ≤ 1.5× the import-litellm floor; quitting ≤ 1 s.

    .venv/bin/python bench/run.py startup        (BENCH_STARTUP_RUNS=5 by default)
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.fakes, tests.e2e: the fake model server, a small project
RUNS = int(os.environ.get("BENCH_STARTUP_RUNS", "5"))
READY_GOAL, TURN_GOAL, QUIT_GOAL = 1.3, 1.5, 1.0
SIZE = (120, 36)
MODEL_FLAGS = {"model": "fake", "context_window": 32000, "allow_unvalidated": True}


def _bench_module(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", Path(__file__).with_name(f"bench_{name}.py"))
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- children ------------------------------------------------------------------------------------


def _say(what: str) -> None:
    print(f"{what} {time.time() - float(os.environ['BENCH_T0']):.4f}", flush=True)


def _say_cpu() -> None:
    """At exit (atexit runs in `exit_now` too): CPU seconds of this process (every thread) and of
    the children it reaped (the MCP servers)."""
    times = os.times()
    print(f"cpu {times.user + times.system:.4f}", flush=True)
    print(f"servers_cpu {times.children_user + times.children_system:.4f}", flush=True)


def _child_floor() -> None:
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    import litellm  # noqa: F401

    _say("imported")
    _say_cpu()


def _child_tui(project: str, base_url: str) -> None:
    """The real app as `formspec-consult` runs it (run_app), headless; says `frame`, `ready`, `quit`."""
    from formspec_consult.cli import exit_now
    from formspec_consult.commands import launch
    from formspec_consult.tui import app as app_module
    from formspec_consult.tui.widgets.status_bar import StatusBar

    class Measured(app_module.ConsultApp):
        def on_mount(self) -> None:
            self.call_after_refresh(lambda: _say("frame"))
            super().on_mount()
            self.watch(self.query_one(StatusBar), "info", self._state, init=False)

        def _state(self, info: Any) -> None:
            if info.state == "ready" and not getattr(self, "_seen_ready", False):
                self._seen_ready = True
                _say("ready")
            if info.state == "ready" and not info.loading and not getattr(self, "_seen_model", False):
                self._seen_model = True  # the model layer has joined: a message would go out now
                _say("model")
                self.call_after_refresh(self._quit)

        async def _quit(self) -> None:
            _say("quit")
            await self.run_action("quit")  # what ctrl+q does

        async def run_async(self, **kwargs: Any) -> None:
            await super().run_async(headless=True, size=SIZE)

    app_module.ConsultApp = Measured  # type: ignore[misc]
    launch.run_app({"project": project, "base_url": base_url, **MODEL_FLAGS})
    exit_now(0)


def _child_headless(project: str, base_url: str, registry: str) -> None:
    """`formspec-consult -p hi`, with the bundled registry over stdio or (`inproc`) in-process."""
    if registry == "inproc":
        from formspec_consult.commands import wiring

        stdio = wiring.registry_server_spec

        def in_process(settings: Any, project_root: Path, timeout: float, *, in_memory: bool = False) -> Any:
            return stdio(settings, project_root, timeout, in_memory=True)

        wiring.registry_server_spec = in_process  # type: ignore[assignment]
    from formspec_consult.cli import main

    flags = ["--model", "fake", "--base-url", base_url, "--context-window", "32000", "--allow-unvalidated"]
    sys.argv = ["formspec-consult", "--project", project, *flags, "-p", "hi"]
    main()


# -- parent --------------------------------------------------------------------------------------


def _env(tmp: Path) -> dict[str, str]:
    from tests.e2e.cli import cli_env

    return cli_env(tmp)


def _run(args: list[str], env: dict[str, str], cwd: Path, child: bool = True) -> dict[str, float]:
    """Run one child; its marks (seconds since Popen) plus `exit`, when the process had ended."""
    began = time.time()
    env = dict(env, BENCH_T0=f"{began:.6f}")
    command = [sys.executable, __file__, "--child", *args] if child else args
    out = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    ended = time.time() - began
    if out.returncode != 0:
        logs = "".join(
            f"\n--- {log}:\n{log.read_text(encoding='utf-8', errors='replace')[-2000:]}"
            for log in sorted(Path(args[1] if len(args) > 1 else cwd).glob(".formspec/consult/*.log"))
        )
        raise RuntimeError(f"{args[0]} child failed ({out.returncode}):\n{out.stderr[-3000:]}{logs}")
    marks = {"exit": ended}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in {"imported", "frame", "ready", "model", "quit", "cpu", "servers_cpu"}:
            marks[parts[0]] = float(parts[1])
    return marks


def _median(samples: list[dict[str, float]], key: str) -> float:
    return statistics.median(s[key] for s in samples)


def main() -> int:
    from tests.e2e.project import make_project
    from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

    tui = _bench_module("tui")
    print(f"median of {RUNS} interleaved rounds of fresh processes; floors measured in the same run")
    with tempfile.TemporaryDirectory() as folder, FakeOpenAIServer() as fake:
        tmp = Path(folder)
        env = _env(tmp)
        projects = {kind: make_project(tmp / kind) for kind in ("tui", "p", "p-inproc")}
        kinds = ("floor", "bare", "frame", "tui", "p", "p-inproc")
        samples: dict[str, list[dict[str, float]]] = {kind: [] for kind in kinds}

        def once(kind: str) -> dict[str, float]:
            if kind == "floor":
                return _run(["floor"], env, tmp)
            if kind in {"bare", "frame"}:
                return tui._measure("bare" if kind == "bare" else "consult")
            if kind == "tui":  # no request: the app only opens, says ready and quits
                return _run(["tui", str(projects["tui"]), fake.url], env, tmp)
            fake.queue(FakeReply(text="Hello! What does your shop sell?"))
            registry = "inproc" if kind == "p-inproc" else "stdio"
            return _run(["headless", str(projects[kind]), fake.url, registry], env, projects[kind])

        for kind in ("p", "tui"):  # warm-up, not counted: byte-code caches, the registry database
            once(kind)
        for _ in range(RUNS):
            for kind in kinds:
                samples[kind].append(once(kind))

    floor = _median(samples["floor"], "imported")
    bare, frame = _median(samples["bare"], "frame"), _median(samples["frame"], "frame")
    ready = _median(samples["tui"], "ready")
    model_ready = _median(samples["tui"], "model")
    quits = [s["exit"] - s["quit"] for s in samples["tui"]]
    turn, turn_inproc = _median(samples["p"], "exit"), _median(samples["p-inproc"], "exit")
    status = 0

    def line(label: str, value: float, against: float, goal: float | None, floor_name: str) -> None:
        nonlocal status
        ratio = value / against
        verdict = ""
        if goal is not None:
            ok = ratio <= goal
            status |= 0 if ok else 1
            verdict = f"  goal ≤ {goal}× {'ok' if ok else 'MISSED'}"
        print(f"{label:40} {value:6.2f} s  ×{ratio:4.2f} of {floor_name}{verdict}")

    print(f"{'bare Textual app, first frame (floor)':40} {bare:6.2f} s")
    line("our first frame", frame, bare, None, "bare Textual")
    print(f"{'import litellm, fresh interpreter (floor)':40} {floor:6.2f} s")
    line("our TUI ready (status bar says ready)", ready, floor, READY_GOAL, "the litellm floor")
    line("  its model layer ready (a message goes out)", model_ready, floor, None, "the litellm floor")
    line("our headless -p turn, until exit", turn, floor, TURN_GOAL, "the litellm floor")
    line("  the same, registry in-process", turn_inproc, floor, None, "the litellm floor")
    quit_median = statistics.median(quits)
    ok = quit_median <= QUIT_GOAL
    status |= 0 if ok else 1
    print(f"{'quit the TUI (ctrl+q to process end)':40} {quit_median:6.2f} s  "
          f"(slowest {max(quits):.2f} s)  goal ≤ {QUIT_GOAL} s {'ok' if ok else 'MISSED'}")
    # CPU seconds beside the wall clock: the consultation process is bound by one interpreter
    # lock (litellm's import in its thread, the MCP client, Textual all take turns on one core),
    # so its CPU time is what start-up can be cut to; the servers run on the other core(s).
    floor_cpu = _median(samples["floor"], "cpu")
    for label, kind in (("TUI open → ready → quit", "tui"), ("headless -p turn", "p")):
        cpu, servers = _median(samples[kind], "cpu"), _median(samples[kind], "servers_cpu")
        print(f"{'  CPU, ' + label:40} {cpu:6.2f} s  ×{cpu / floor_cpu:4.2f} of the floor's {floor_cpu:.2f} s CPU"
              f"  (+ {servers:.2f} s in the MCP servers)")
    sys.stdout.flush()
    prefix = _bench_module("prefix")
    return status | int(prefix.main() or 0)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        kind, rest = sys.argv[2], sys.argv[3:]
        if kind != "floor":
            import atexit

            atexit.register(_say_cpu)
        {"floor": _child_floor, "tui": _child_tui, "headless": _child_headless}[kind](*rest)
    else:
        sys.exit(main())
