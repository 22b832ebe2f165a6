"""Which command runs the dev server and where its health endpoint is.

Precedence for the command: factory argument > ``FORMSPEC_DEV_COMMAND`` (shell-like words) >
``consult.dev_command`` in ``formspec-app.yaml`` > ``["formspec", "dev"]``. The health URL:
factory argument > ``FORMSPEC_HEALTH_URL`` > ``consult.health_url`` > ``http://127.0.0.1:<port>/health``
with ``port`` (or ``runtime.port``) from ``formspec-app.yaml``, default 8080.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

DEFAULT_COMMAND = ("formspec", "dev")
DEFAULT_PORT = 8080


@dataclass(frozen=True)
class DevConfig:
    """Resolved dev-server settings; ``source`` says where the command came from."""

    command: tuple[str, ...]
    health_url: str
    source: str
    start_timeout: float = 20.0  # until the health URL first answers (a slow machine starts slowly)
    settle_timeout: float = 5.0  # then, for a server that answers "not healthy", until it is healthy
    stop_timeout: float = 5.0


def _app_config(project_root: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load((project_root / "formspec-app.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, ValueError):  # ValueError: not UTF-8, or a too long integer
        return {}
    return data if isinstance(data, dict) else {}


def _words(value: object) -> tuple[str, ...] | None:
    if isinstance(value, str) and value.strip():
        return tuple(shlex.split(value))
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


UNTRUSTED_COMMAND = (
    "default; consult.dev_command in formspec-app.yaml waits for the folder's trust (`formspec-consult trust`)"
)


def resolve_config(
    project_root: Path,
    command: list[str] | None = None,
    health_url: str | None = None,
    *,
    project_command: bool = True,
) -> DevConfig:
    """Work out the dev-server command and health URL for ``project_root``.

    With `project_command` False (a folder the person has not trusted) a ``consult.dev_command``
    in ``formspec-app.yaml`` is not run: the default command is, and `source` says why.
    """
    app = _app_config(project_root)
    consult = _consult if isinstance(_consult := app.get("consult"), dict) else {}
    env_command = _words(os.environ.get("FORMSPEC_DEV_COMMAND"))
    if command:
        resolved, source = tuple(command), "factory argument"
    elif env_command:
        resolved, source = env_command, "FORMSPEC_DEV_COMMAND"
    elif (from_file := _words(consult.get("dev_command"))) is not None and project_command:
        resolved, source = from_file, "formspec-app.yaml consult.dev_command"
    elif from_file is not None:
        resolved, source = DEFAULT_COMMAND, UNTRUSTED_COMMAND
    else:
        resolved, source = DEFAULT_COMMAND, "default"
    url = health_url or os.environ.get("FORMSPEC_HEALTH_URL") or consult.get("health_url")
    if not isinstance(url, str) or not url:
        runtime = _runtime if isinstance(_runtime := app.get("runtime"), dict) else {}
        port = app.get("port") or runtime.get("port") or DEFAULT_PORT
        url = f"http://127.0.0.1:{port}/health"
    return DevConfig(command=resolved, health_url=url, source=source)
