"""Validation with official-layout schemas costs about what it costs with our built-in ones.

For each fixture project (the bundled barbershop and a generated 1,000-file project), a cold
validation in a fresh interpreter is timed twice: with our built-in schemas, and with our own
schema files written into FormSpec's official layout (`schemas/formspec.schema.json` +
`schemas/kinds/<Kind>.schema.json`) in a copy of the project, so the official path (read, check
and compile the files) is what is measured. Goal: official / built-in <= 1.5 (medians).
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _genproject import generate  # noqa: E402

from formspec_consult.resources import package_path  # noqa: E402
from formspec_consult.spec.schemas import official_layout  # noqa: E402

RUNS = 5
GOAL = 1.5
CODE = ("import sys, time; from formspec_consult.spec import open_project\n"
        "t = time.perf_counter(); r = open_project(sys.argv[1]).validate()\n"
        "assert r.ok, r.problems[:3]\n"
        "assert all(s.startswith(sys.argv[2]) for s in r.schema_sources.values()), r.schema_sources\n"
        "print(time.perf_counter() - t)\n")


def _cold(root: Path, expect: str, cache: Path) -> float:
    """Seconds of one first validate() in a brand-new interpreter (imports excluded)."""
    env = {"XDG_CACHE_HOME": str(cache), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", CODE, str(root), expect], capture_output=True, text=True,
                         check=True, env=env)
    return float(out.stdout.strip())


def _with_official_layout(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    for rel, data in official_layout().items():
        path = target / "schemas" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return target


def main() -> int:
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        generated = base / "generated"
        generated.mkdir()
        generate(generated)
        projects = {"barbershop": package_path("examples", "barbershop"), "generated-1000": generated}
        for name, root in projects.items():
            official = _with_official_layout(root, base / f"{name}-official")
            builtin_times, official_times = [], []
            for _ in range(RUNS):  # interleaved, so load on the shared machine hits both alike
                builtin_times.append(_cold(root, "formspec-consult built-in", base / "cache"))
                official_times.append(_cold(official, "official schema from", base / "cache"))
            b, o = statistics.median(builtin_times), statistics.median(official_times)
            ratio = o / b
            ok &= ratio <= GOAL
            print(f"{name:15s} cold validation  built-in {b * 1000:8.1f} ms   official layout {o * 1000:8.1f} ms"
                  f"   ratio {ratio:4.2f}x  (goal <= {GOAL}x)")
    print("goals met" if ok else "GOALS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
