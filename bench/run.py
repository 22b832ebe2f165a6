"""Run the benchmarks: `make bench` (all) or `make bench BENCH=name` (one of bench/bench_<name>.py).

Every benchmark measures its own floor in the same run and prints the ratio against it, with
medians: machines are shared and noisy, so compare ratios, not absolute times.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    wanted = set(argv)
    found = sorted(HERE.glob("bench_*.py"))
    if wanted:
        found = [p for p in found if p.stem.removeprefix("bench_") in wanted]
        missing = wanted - {p.stem.removeprefix("bench_") for p in found}
        if missing:
            print(f"unknown benchmark(s): {', '.join(sorted(missing))}", file=sys.stderr)
            return 2
    status = 0
    for path in found:
        print(f"== {path.stem.removeprefix('bench_')} ==", flush=True)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        status |= int(module.main() or 0)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
