"""The composition root's wiring: which MCP servers a session gets, and EngineOptions from the CLI.

The agent asks for servers through ``EngineOptions.servers`` and never imports one: here the
local server (the same `mcp-serve` command external clients run, or in-process for tests), the
registry (the configured URL with its token, else the bundled one) and the user's `mcpServers`
are put together.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from formspec_consult.i18n import _, current_language
from formspec_consult.store.layout import MCP_REGISTRY_LOG, MCP_SERVER_LOG, consult_dir

if TYPE_CHECKING:
    from formspec_consult.agent.engine.engine import EngineOptions
    from formspec_consult.config import Settings
    from formspec_consult.mcp_client.config import ServerSpec


def cli_flags(options: Mapping[str, Any]) -> dict[str, Any]:
    """The settings the command line gives (config.load_settings' `flags`); raises click.BadParameter
    for an --allow-tool name that is no write tool."""
    from formspec_consult.commands.model_options import model_flags

    flags = model_flags(options)
    if options.get("language"):  # --lang: the interface language, a setting's highest layer
        flags["language"] = options["language"]
    if options.get("trust_project"):  # --trust-project: honour the project's gated settings this run
        flags["trust_project"] = True
    if options.get("allow_tool"):  # --allow-tool NAME: the model may call it without asking
        # Added to the person's rules (config merges them rule by rule), never replacing them.
        flags["permissions"] = {check_allowed_tool(str(name)): "allow" for name in options["allow_tool"]}
    return flags


def check_allowed_tool(name: str) -> str:
    """`name` when it is a write tool of the local server that --allow-tool may allow; else
    click.BadParameter naming the valid ones (`default`, which would allow every one, is refused)."""
    from formspec_consult.agent.loop.permissions import MODEL_WRITE_TOOLS, PERSON_ONLY

    allowable = sorted(MODEL_WRITE_TOOLS)  # the person's own review tools are never the model's
    if name in allowable:
        return name
    valid = ", ".join(allowable)
    why = ("'default' would allow every write tool at once; name each one" if name.strip().lower() == "default"
           else f"{name!r} is the person's own review tool, never the model's" if name in PERSON_ONLY
           else f"{name!r} is not a write tool")
    import difflib

    close = difflib.get_close_matches(name, allowable, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise click.BadParameter(_("{why}{hint}; the tools it can allow are: {valid}").format(why=why, hint=hint, valid=valid), param_hint="--allow-tool")


def engine_options(options: Mapping[str, Any]) -> EngineOptions:
    """EngineOptions from the CLI options (headless and the TUI launcher), with the servers wired."""
    from formspec_consult.agent.engine.engine import EngineOptions

    return EngineOptions(
        servers=server_specs,
        project=options.get("project"),
        flags=cli_flags(options),
        resume=options.get("resume"),
        continue_latest=bool(options.get("continue_")),
        fork=bool(options.get("fork")),
        # --lang names the reply language too (else the owner's first message sets it, see agent/language)
        reply_language=options.get("language") or None,
    )


def local_server_spec(
    project_root: Path, session_id: str, *, in_memory: bool, timeout: float, trusted: bool = False
) -> ServerSpec:
    """The local FormSpec server: the same `mcp-serve` command external clients run (or in-process).

    `trusted`: this session honours the project's settings that need trust (the folder is trusted,
    or --trust-project), so the server may run the project's own dev-server command too."""
    from formspec_consult.agent.engine.setup import LOCAL
    from formspec_consult.mcp_client.config import ServerSpec  # the servers' names load when a session opens

    if in_memory:
        from formspec_consult.servers.local import create_local_server

        server = create_local_server(project_root, session_id=session_id, trusted=trusted)
        return ServerSpec(name=LOCAL, in_process=server, timeout=timeout)
    # `python -m formspec_consult` is the `formspec-consult` script without relying on PATH; the
    # server writes the review lines of transcript.md, in the person's language (--lang).
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}
    return ServerSpec(
        name=LOCAL,
        command=sys.executable,
        args=(
            "-m", "formspec_consult", "--lang", current_language(),
            "mcp-serve", "--project", str(project_root), "--session", session_id,
            *(("--trust-project",) if trusted else ()),
        ),
        env=env,
        cwd=str(project_root),
        errlog=consult_dir(project_root) / MCP_SERVER_LOG,
        timeout=timeout,
    )


def registry_server_spec(
    settings: Settings, project_root: Path, timeout: float, *, in_memory: bool = False
) -> ServerSpec | None:
    """The registry: the configured URL (with the bearer token), else the bundled one over stdio
    (in-process when `in_memory`, for tests)."""
    from formspec_consult.agent.engine.setup import REGISTRY
    from formspec_consult.mcp_client.config import ServerSpec

    if settings.registry_url:
        token = settings.registry_token
        if not token:  # not in config or env: the OS keyring (`formspec-consult registry token set URL`)
            from formspec_consult.providers.registry_credentials import registry_token

            token, _where = registry_token(settings.registry_url)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        hint = (
            f"set the registry token: `formspec-consult registry token set {settings.registry_url}`, "
            "registry_token in the config or FORMSPEC_REGISTRY_TOKEN"
        )
        return ServerSpec(
            name=REGISTRY, url=settings.registry_url, headers=headers, timeout=timeout, auth_hint=hint
        )
    try:  # only the command line: the server's own modules load in its process, not this one
        from formspec_consult.servers.registry_command import bundled_registry_command
    except ImportError:
        return None  # this build has no bundled registry: the session runs without it
    if in_memory:
        from formspec_consult.servers.registry import create_registry_server

        server = create_registry_server()
        return ServerSpec(name=REGISTRY, in_process=server, on_close=server.close, timeout=timeout)
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
        errlog=consult_dir(project_root) / MCP_REGISTRY_LOG,
        timeout=timeout,
    )


def server_specs(settings: Settings, project_root: Path, session_id: str, *, in_memory: bool) -> list[ServerSpec]:
    """Local server first, then the registry, then the user's extra `mcpServers`."""
    from formspec_consult.mcp_client.config import parse_servers

    timeout = float(getattr(settings, "tool_timeout", 60.0))
    trusted = getattr(settings, "withheld", None) is None  # nothing of the project's left out
    specs = [local_server_spec(project_root, session_id, in_memory=in_memory, timeout=timeout, trusted=trusted)]
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

            raise MCPConfigError(_("mcpServers.{name}: this name is reserved; choose another name").format(name=spec.name))
        specs.append(spec)
    return specs
