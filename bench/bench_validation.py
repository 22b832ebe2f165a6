"""Validation speed on a generated 1,000-file project.

Goals: cold full validation ≤ 1.0 s; warm validation with one draft overlaid ≤ 50 ms (p50).
Floor: just reading and YAML-loading every file with the C loader, measured in the same run.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _genproject import generate  # noqa: E402

from formspec_consult.spec import ValidationResult, open_project  # noqa: E402

COLD_RUNS = 5
WARM_RUNS = 31


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _floor(files: list[Path]) -> None:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for path in files:
        list(yaml.load_all(path.read_bytes(), Loader=loader))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root)
        files = sorted(root.rglob("*.yaml"))
        files = [f for f in files if f.name != "formspec-app.yaml"]
        floor = statistics.median(_timed(lambda: _floor(files)) for _ in range(COLD_RUNS))

        cold_times = []
        for _ in range(COLD_RUNS):
            project = open_project(root)
            cold_times.append(_timed(lambda: _check(project.validate())))
        cold = statistics.median(cold_times)

        project = open_project(root)
        project.validate()
        rel = "spec/modules/mod010/master/thing_3/entity.yaml"
        original = (root / rel).read_text()
        warm_times = []
        for i in range(WARM_RUNS):
            draft = original.replace("generated entity", f"draft {i} of generated entity")
            warm_times.append(_timed(lambda: _check(project.validate(overlay={rel: draft}))))
        warm = statistics.median(warm_times)

        fresh = statistics.median(_fresh_process(root) for _ in range(3))

    print(f"files: {len(files)}")
    print(f"floor (read + C-load every file): {floor * 1000:8.1f} ms")
    print(f"cold full validation   median: {cold * 1000:8.1f} ms  ({cold / floor:4.1f}x floor)  goal <= 1000 ms")
    print(f"warm overlay validation   p50: {warm * 1000:8.1f} ms  ({warm / floor:4.2f}x floor)  goal <= 50 ms")
    print(f"first validation in a fresh process: {fresh * 1000:8.1f} ms  ({fresh / floor:4.1f}x floor; "
          "includes compiling the schemas once)")
    ok = cold <= 1.0 and warm <= 0.050
    print("goals met" if ok else "GOALS MISSED")
    return 0 if ok else 1


def _fresh_process(root: Path) -> float:
    """Seconds a brand-new interpreter needs for its first validate() (imports excluded)."""
    code = ("import sys, time; from formspec_consult.spec import open_project\n"
            "t = time.perf_counter(); r = open_project(sys.argv[1]).validate()\n"
            "assert r.ok; print(time.perf_counter() - t)\n")
    out = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def _check(result: ValidationResult) -> None:
    if not result.ok:
        raise SystemExit(f"generated project does not validate: {result.problems[:3]}")


if __name__ == "__main__":
    sys.exit(main())
