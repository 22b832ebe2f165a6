"""Setup faults: the test-tool scripts of tests/setup/ on machines laid out unlike ours."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.integrity.scenarios import Observed, scenario

SCRIPT = Path(__file__).resolve().parents[1] / "setup" / "20-postgres.sh"


def _pg_ctl() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return found[-1] if found else shutil.which("pg_ctl")


@scenario
def postgres_setup_in_a_private_clone(request: pytest.FixtureRequest) -> Observed:
    """20-postgres.sh run from a clone inside a mode-700 `mktemp -d` folder (as root, so the
    cluster belongs to `postgres`, who cannot traverse that folder); the cluster is stopped after."""
    pg_ctl = _pg_ctl()
    if os.geteuid() != 0 or pg_ctl is None or shutil.which("runuser") is None:
        pytest.skip("needs root, runuser and an installed PostgreSQL (the case is about the postgres user)")
    private = Path(tempfile.mkdtemp(prefix="formspec-private-"))  # mode 700, like a private home
    clone = private / "clone"
    (clone / "tests" / "setup").mkdir(parents=True)
    shutil.copy2(SCRIPT, clone / "tests" / "setup" / SCRIPT.name)
    pg = clone / "tests" / ".tools" / "pg"
    try:
        done = subprocess.run(["bash", str(clone / "tests" / "setup" / SCRIPT.name)], capture_output=True,
                              text=True, timeout=180)
        url = (clone / "tests" / ".tools" / "pg.url")
        return {
            "private_mode": oct(private.stat().st_mode & 0o777),
            "exit": done.returncode,
            "message": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "",
            "url_written": url.is_file() and url.read_text().startswith("postgresql://"),
        }
    finally:
        real = pg.resolve() if pg.exists() else None
        if real is not None and (real / "data" / "PG_VERSION").exists():
            subprocess.run(["runuser", "-u", "postgres", "--", pg_ctl, "-D", str(real / "data"), "stop",
                            "-m", "fast"], capture_output=True, timeout=60)
        if real is not None and real != pg:
            shutil.rmtree(real, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)
