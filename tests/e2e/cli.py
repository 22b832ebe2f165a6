"""Running the real `formspec-consult` command in a subprocess for the headless and e2e tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]


def cli_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A clean environment: no user config, a private registry database, offline litellm."""
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("FORMSPEC_")
    }
    env.update(
        {
            "PYTHONPATH": str(REPO),
            "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
            "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
            "FORMSPEC_REGISTRY_DB": f"sqlite:///{tmp_path / 'registry.db'}",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


def run_cli(
    args: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "formspec_consult", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def write_script(path: Path, turns: list[object]) -> Path:
    path.write_text(yaml.safe_dump(turns, sort_keys=False), encoding="utf-8")
    return path
