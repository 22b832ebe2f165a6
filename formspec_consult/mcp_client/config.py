"""The `mcpServers` JSON configuration: stdio or URL servers, `${VAR}` expansion, a safe env.

The shape is the one every MCP client shares (Claude Desktop, Cursor, VS Code)::

    {"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}, "cwd": "..."},
                    "other": {"url": "https://…/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}

Strings may use `${VAR}`, `${env:VAR}` (Cursor / VS Code spelling) or `${VAR:-default}`; a
missing variable without a default is a named error, never an empty string. Third-party stdio
servers get a minimal environment (PATH, HOME, LANG, …) plus their own `env`: the parent's API
keys are never passed on.

`type` may say `stdio`, `http` (Streamable HTTP; also `streamable-http`, `streamableHttp`) or
`sse` (the legacy HTTP+SSE transport of 2024-11-05); without it a `url` means Streamable HTTP.
`disabled: true` keeps a server in the file without starting it. `timeout` (seconds) bounds one
tool call; without it the session's `tool_timeout` applies.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from formspec_consult.errors import N_, UserError

# Variables a well-behaved CLI server needs to run; nothing secret.
SAFE_ENV_VARS = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TZ",
)

_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
DEFAULT_TIMEOUT = 60.0
_HTTP_TYPES = {"http", "streamable-http", "streamable_http", "streamablehttp"}


class MCPConfigError(UserError, ValueError):
    """The MCP server configuration is invalid; the message says what to fix."""


@dataclass(frozen=True)
class ServerSpec:
    """How to reach one MCP server: a stdio command, an HTTP URL, or (tests) an in-process server."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    errlog: Path | None = None  # where a stdio server's stderr goes (never the terminal)
    in_process: Any = None  # an MCPServer instance, connected in memory (tests, demo)
    on_close: Callable[[], None] | None = None  # releases what an in-process server holds (its database)
    timeout: float = DEFAULT_TIMEOUT  # seconds allowed for one tool call
    sse: bool = False  # `url` speaks the legacy HTTP+SSE transport, not Streamable HTTP
    auth_hint: str = ""  # where the token of an HTTP server goes, said when it answers 401

    @property
    def transport(self) -> str:
        if self.in_process is not None:
            return "memory"
        if self.url:
            return "sse" if self.sse else "http"
        return "stdio"


def expand_vars(value: str, environ: Mapping[str, str], where: str) -> str:
    """Expand `${VAR}` and `${VAR:-default}` in `value`; a missing VAR is an MCPConfigError."""

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = environ.get(name)
        # Like the shell: `:-` also replaces an empty value.
        if default is not None and not value:
            return default
        if value is not None:
            return value
        raise MCPConfigError(
            template=N_("{where}: environment variable {name} is not set (set it, or write ${{{name}:-default}} in "
                        "the MCP config)"), fields={"where": where, "name": name}
        )

    return _VAR.sub(replace, value)


def safe_environment(extra: Mapping[str, str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The minimal environment for a child server: SAFE_ENV_VARS from the parent plus `extra`."""
    source = os.environ if environ is None else environ
    env = {key: source[key] for key in SAFE_ENV_VARS if key in source}
    env.update(extra)
    return env


def parse_servers(
    config: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    errlog_dir: Path | None = None,
    *,
    default_timeout: float = DEFAULT_TIMEOUT,
) -> list[ServerSpec]:
    """Parse an `mcpServers` mapping (or a document holding one) into server specs.

    Servers marked `disabled: true` are left out (their entry is still checked for shape, not for
    variables: a disabled server's missing token is no error). `default_timeout` is the tool-call
    limit of servers that set no `timeout` of their own (the session's `tool_timeout`).
    """
    source = os.environ if environ is None else environ
    servers = config.get("mcpServers", config) if isinstance(config, Mapping) else None
    if not isinstance(servers, Mapping):
        raise MCPConfigError(template=N_('MCP config: expected a JSON object whose "mcpServers" holds each server by '
                                          "name"))
    specs: list[ServerSpec] = []
    for name, raw in servers.items():
        if _disabled(str(name), raw):
            continue
        specs.append(_parse_one(str(name), raw, source, errlog_dir, default_timeout))
    return specs


def _disabled(name: str, raw: Any) -> bool:
    if not isinstance(raw, Mapping) or "disabled" not in raw:
        return False
    value = raw["disabled"]
    if not isinstance(value, bool):
        raise MCPConfigError(template=N_("mcpServers.{name}.disabled: expected true or false (got {value!r})"),
                             fields={"name": name, "value": value})
    return value


def _timeout(raw: Mapping[str, Any], where: str, default: float) -> float:
    if "timeout" not in raw:
        return default
    value = raw["timeout"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise MCPConfigError(template=N_("{where}.timeout: expected a number of seconds above 0 (got {value!r})"),
                             fields={"where": where, "value": value})
    return float(value)


def _transport_type(raw: Mapping[str, Any], where: str) -> str | None:
    """The declared `type`, normalised to stdio / http / sse (None when not declared)."""
    if "type" not in raw:
        return None
    declared = str(raw["type"])
    kind = declared.strip().lower()
    if kind in _HTTP_TYPES:
        return "http"
    if kind in ("stdio", "sse"):
        return kind
    raise MCPConfigError(template=N_("{where}.type: unknown transport {declared!r}; use stdio, http (Streamable "
                                      "HTTP) or sse (legacy HTTP+SSE)"), fields={"where": where, "declared": declared})


def _strings(raw: Any, where: str, environ: Mapping[str, str]) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise MCPConfigError(template=N_("{where}: expected an object of strings"), fields={"where": where})
    return {str(k): expand_vars(str(v), environ, f"{where}.{k}") for k, v in raw.items()}


def _parse_one(
    name: str, raw: Any, environ: Mapping[str, str], errlog_dir: Path | None, default_timeout: float
) -> ServerSpec:
    where = f"mcpServers.{name}"
    if not isinstance(raw, Mapping):
        raise MCPConfigError(template=N_("{where}: expected an object with 'command' or 'url'"), fields={"where": where})
    timeout = _timeout(raw, where, default_timeout)
    kind = _transport_type(raw, where)
    if kind in ("http", "sse") and "url" not in raw:
        raise MCPConfigError(template=N_("{where}: type {type!r} needs a 'url'"), fields={"where": where, "type": raw["type"]})
    if kind == "stdio" and "command" not in raw:
        raise MCPConfigError(template=N_("{where}: type 'stdio' needs a 'command'"), fields={"where": where})
    if "url" in raw and kind != "stdio":
        url = expand_vars(str(raw["url"]), environ, f"{where}.url")
        if not url.startswith(("http://", "https://")):
            raise MCPConfigError(template=N_("{where}.url: must start with http:// or https:// (got {url!r})"),
                                 fields={"where": where, "url": url})
        return ServerSpec(
            name=name,
            url=url,
            headers=_strings(raw.get("headers"), f"{where}.headers", environ),
            timeout=timeout,
            sse=kind == "sse",
            auth_hint=f"put the token in {where}.headers, e.g. \"Authorization\": \"Bearer ${{TOKEN}}\"",
        )
    if "command" not in raw:
        raise MCPConfigError(template=N_("{where}: needs 'command' (stdio server) or 'url' (HTTP server)"),
                             fields={"where": where})
    args = raw.get("args", [])
    if not isinstance(args, list):
        raise MCPConfigError(template=N_("{where}.args: expected a list of strings"), fields={"where": where})
    cwd = raw.get("cwd")
    return ServerSpec(
        name=name,
        command=expand_vars(str(raw["command"]), environ, f"{where}.command"),
        args=tuple(expand_vars(str(a), environ, f"{where}.args") for a in args),
        env=_strings(raw.get("env"), f"{where}.env", environ),
        cwd=expand_vars(str(cwd), environ, f"{where}.cwd") if cwd else None,
        errlog=(errlog_dir / f"mcp-{name}.log") if errlog_dir else None,
        timeout=timeout,
    )


def load_servers_file(
    path: Path,
    environ: Mapping[str, str] | None = None,
    errlog_dir: Path | None = None,
    *,
    default_timeout: float = DEFAULT_TIMEOUT,
) -> list[ServerSpec]:
    """Read an `mcpServers` JSON file; a broken file is an MCPConfigError naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise MCPConfigError(template=N_("MCP config {path} does not exist"), fields={"path": path}) from exc
    except json.JSONDecodeError as exc:
        raise MCPConfigError(template=N_("MCP config {path} is not valid JSON: {error}"),
                             fields={"path": path, "error": exc}) from exc
    return parse_servers(data, environ, errlog_dir, default_timeout=default_timeout)
