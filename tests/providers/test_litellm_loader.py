"""Loading litellm: its first import runs without the cyclic garbage collector and freezes what it built."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

from formspec_consult.providers import litellm_loader


def test_the_first_import_runs_no_collection_and_leaves_the_collector_on_with_the_import_frozen() -> None:
    code = (
        "import gc\n"
        "runs = []\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and runs.append(info['generation']))\n"
        "from formspec_consult.providers.litellm_loader import load_litellm\n"
        "before = len(runs)\n"
        "load_litellm()\n"
        "during = runs[before:]\n"
        "assert not during, f'{len(during)} collections ({during.count(2)} full) during the import'\n"
        "assert gc.isenabled(), 'the collector was left off'\n"
        "assert gc.get_freeze_count() > 100_000, gc.get_freeze_count()\n"
        "load_litellm()  # later calls leave the collector alone\n"
        "assert gc.isenabled()\n"
    )
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr


def test_a_collector_the_caller_had_turned_off_stays_off() -> None:
    gc.disable()
    try:
        with litellm_loader._import_without_gc_then_freeze():
            pass
        assert not gc.isenabled()
    finally:
        gc.unfreeze()
        gc.enable()
