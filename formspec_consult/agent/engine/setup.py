"""Building an engine's parts: project, settings, provider, MCP servers, session folder.

Kept apart from :mod:`engine` so the Engine class reads as the contract it is.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from formspec_consult.mcp_client.config import ServerSpec, parse_servers

LOCAL = "formspec"  # the local server's name in status and tool routing
REGISTRY = "registry"


def resolve_project(project: Path | None) -> Path:
    """The project root (spec.open_project walks up from `project` or the cwd); ProjectError propagates."""
    from formspec_consult.spec import open_project

    opened = open_project(Path(project) if project is not None else Path.cwd())
    return Path(opened.root).resolve()


def consult_dir(project_root: Path) -> Path:
    return project_root / ".formspec" / "consult"


def local_server_spec(project_root: Path, session_id: str, *, in_memory: bool, timeout: float) -> ServerSpec:
    """The local FormSpec server: the same `mcp-serve` command external clients run (or in-process)."""
    if in_memory:
        from formspec_consult.servers.local import create_local_server

        return ServerSpec(
            name=LOCAL, in_process=create_local_server(project_root, session_id=session_id), timeout=timeout
        )
    # `python -m formspec_consult` is the `formspec-consult` script without relying on PATH.
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}
    return ServerSpec(
        name=LOCAL,
        command=sys.executable,
        args=("-m", "formspec_consult", "mcp-serve", "--project", str(project_root), "--session", session_id),
        env=env,
        cwd=str(project_root),
        errlog=consult_dir(project_root) / "mcp-server.log",
        timeout=timeout,
    )


def registry_server_spec(
    settings: Any, project_root: Path, timeout: float, *, in_memory: bool = False
) -> ServerSpec | None:
    """The registry: the configured URL (with the bearer token), else the bundled one over stdio
    (in-process when `in_memory`, for tests)."""
    if settings.registry_url:
        token = settings.registry_token
        if not token:  # not in config or env: the OS keyring (`formspec-consult registry token set URL`)
            from formspec_consult.registry.credentials import registry_token

            token, _where = registry_token(settings.registry_url)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        hint = (
            f"set the registry token: `formspec-consult registry token set {settings.registry_url}`, "
            "registry_token in the config or FORMSPEC_REGISTRY_TOKEN"
        )
        return ServerSpec(
            name=REGISTRY, url=settings.registry_url, headers=headers, timeout=timeout, auth_hint=hint
        )
    try:
        from formspec_consult.servers.registry import bundled_registry_command, create_registry_server
    except ImportError:
        return None  # this build has no bundled registry: the session runs without it
    if in_memory:
        return ServerSpec(name=REGISTRY, in_process=create_registry_server(), timeout=timeout)
    command = bundled_registry_command()
    if not command:
        return None
    program, *rest = [str(part) for part in command]
    args, env = tuple(rest), dict[str, str]()
    for var in ("PYTHONPATH", "FORMSPEC_REGISTRY_DB"):  # where to import from, which database to use
        if os.environ.get(var):
            env.setdefault(var, os.environ[var])
    return ServerSpec(
        name=REGISTRY,
        command=program,
        args=args,
        env=env,
        cwd=str(project_root),
        errlog=consult_dir(project_root) / "mcp-registry.log",
        timeout=timeout,
    )


def server_specs(settings: Any, project_root: Path, session_id: str, *, in_memory: bool) -> list[ServerSpec]:
    """Local server first, then the registry, then the user's extra `mcpServers`."""
    timeout = float(getattr(settings, "tool_timeout", 60.0))
    specs = [local_server_spec(project_root, session_id, in_memory=in_memory, timeout=timeout)]
    registry = registry_server_spec(settings, project_root, timeout, in_memory=in_memory)
    if registry is not None:
        specs.append(registry)
    extra = (
        parse_servers(
            {"mcpServers": settings.mcp_servers},
            errlog_dir=consult_dir(project_root),
            default_timeout=timeout,  # `tool_timeout`, unless a server sets its own `timeout`
        )
        if settings.mcp_servers
        else []
    )
    taken = {spec.name for spec in specs}
    for spec in extra:
        if spec.name in taken:
            from formspec_consult.mcp_client.config import MCPConfigError

            raise MCPConfigError(f"mcpServers.{spec.name}: this name is reserved; choose another name")
        specs.append(spec)
    return specs


def usable_window(settings: Any, provider: Any) -> tuple[int, int]:
    """(window, usable): the context window (config override first) and it minus reserved output."""
    window = int(settings.context_window or provider.context_window)
    reserved = min(int(settings.reserved_output), int(provider.max_output_tokens or settings.reserved_output))
    return window, max(1024, window - reserved)
