"""The whole bundled corpus offline, twice: identical scores, and the time per case against a floor.

The floor is what every case pays before its first turn: a fresh starter project and an engine
session opened and closed (the local MCP server and the registry started as subprocesses, the
start-up context read). The ratio says what the conversation, the drafts, the apply and the
scoring cost on top of it. Goal: identical scores on both runs; median case ≤ 3× the floor.

    .venv/bin/python bench/run.py eval
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from formspec_consult.commands.wiring import server_specs
from formspec_consult.eval.consultant import Consultation
from formspec_consult.eval.corpus import load_corpus
from formspec_consult.eval.report import console
from formspec_consult.eval.runner import EvalConfig, _fresh_project, run_eval
from formspec_consult.providers import ScriptedProvider

GOAL_RATIO = 3.0


async def floor(work: Path) -> list[float]:
    times = []
    for case in load_corpus():
        started = time.perf_counter()
        project = _fresh_project(case, work / f"floor-{case.id}")
        consultation = await Consultation.open(project, ScriptedProvider([]), verify="deterministic")
        await consultation.aclose()
        times.append(time.perf_counter() - started)
    return times


def main() -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.environ["FORMSPEC_REGISTRY_DB"] = f"sqlite:///{work / 'registry.db'}"
        floors = asyncio.run(floor(work))
        quiet = console(stderr=True)
        quiet.quiet = True
        reports = [asyncio.run(run_eval(EvalConfig(offline=True, out=work / "out", console=quiet))) for _ in range(2)]
    scores = [json.dumps({c["id"]: c.get("score") for c in r["cases"]}, sort_keys=True) for r in reports]
    per_case = [c["cost"]["seconds"] for r in reports for c in r["cases"] if c["status"] == "ok"]
    median_case, median_floor = statistics.median(per_case), statistics.median(floors)
    ratio = median_case / median_floor
    identical = scores[0] == scores[1]
    totals = reports[0]["totals"]
    print(f"cases: {totals['cases']} (failed: {totals['failed']}), total score {totals['score']:.3f}")
    print(f"scores identical on both runs: {identical}")
    print(f"median case {median_case:.2f} s · floor (open+close a session) {median_floor:.2f} s · "
          f"ratio {ratio:.2f} (goal ≤ {GOAL_RATIO})")
    return 0 if identical and totals["failed"] == 0 and ratio <= GOAL_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
