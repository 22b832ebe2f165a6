"""Folder trust: a project's settings that run code, widen permissions or decide where keys and
prompts go take effect only once the person trusts that folder.

A cloned repository's ``.formspec/consult.yaml`` is someone else's word. Its harmless settings
(``max_steps``, ``verify``, a ``deny``…) apply at once; these wait for trust (:data:`GATED`):

* ``mcpServers``: starts commands or connects to hosts;
* ``model`` (unless offline or a local model server), ``base_url``, ``api_key_env``: where the
  prompts, the project and a key go;
* ``registry_url``, ``registry_token``: where the registry token goes;
* ``permissions`` entries that say ``allow``: the model writes without asking. A project may
  always tighten (``ask``, ``deny``); it never loosens a rule the person wrote themselves.

Trust is stored in ``platformdirs.user_config_dir("formspec-consult")/trusted-folders.json``, keyed
by the folder's real path, with the SHA-256 of the settings file as trusted: a changed file is
untrusted again until the person looks at it once more (``formspec-consult trust``, or the TUI's
question). Nothing here reads a key; descriptions name variables and hosts, never values.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

TRUST_FILE = "trusted-folders.json"
GATED = ("mcp_servers", "model", "base_url", "api_key_env", "registry_url", "registry_token", "permissions")
SHOWN_AS = {"mcp_servers": "mcpServers"}  # the key as people write it
OFFLINE_MODELS = ("scripted:", "replay:")  # read a local file; nothing leaves the machine
LOCAL_PROVIDERS = frozenset({"ollama", "ollama_chat", "lm_studio", "llamafile"})  # this machine by default
HOW_TO_TRUST = "review it, then run `formspec-consult trust` (or pass --trust-project)"
_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)")


def shown(name: str) -> str:
    """A setting's name as the config file spells it."""
    return SHOWN_AS.get(name, name)


def needs_trust(name: str, value: Any) -> bool:
    """Whether the project setting `name` = `value` (already parsed) waits for the folder's trust."""
    if name not in GATED or value in (None, "", {}):
        return False
    if name == "model":
        text = str(value)
        return not text.startswith(OFFLINE_MODELS) and text.split("/", 1)[0] not in LOCAL_PROVIDERS
    if name == "permissions":
        return any(rule == "allow" for rule in value.values())
    return True


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _variables(value: Any) -> list[str]:
    return sorted(set(_VAR.findall(json.dumps(value))))


def _server_wants(name: str, spec: Mapping[str, Any]) -> str:
    if spec.get("url") and str(spec.get("type", "")).lower() != "stdio":
        said = f"connect to the MCP server '{name}' at {spec['url']}"
        if spec.get("headers"):
            said += f", sending the headers {', '.join(map(str, spec['headers']))}"
    else:
        words = [str(spec.get("command", "")), *(str(a) for a in spec.get("args") or [])]
        said = f"run the command `{shlex.join(words)}` (MCP server '{name}')"
        if spec.get("cwd"):
            said += f" in {spec['cwd']}"
        if spec.get("env"):
            said += f", with the variables {', '.join(map(str, spec['env']))} set"
    variables = _variables(spec)
    if variables:
        said += f", reading your {', '.join(variables)}"
    return said + (" (disabled in the file)" if spec.get("disabled") is True else "")


def describe(name: str, value: Any) -> list[str]:
    """What the gated setting asks for, in the person's words: commands in full, hosts, variables."""
    if name == "mcp_servers":
        return [_server_wants(str(server), spec) for server, spec in value.items()]
    if name == "permissions":
        tools = [tool for tool, rule in value.items() if rule == "allow"]
        return [
            "let the consultant run "
            + ("every tool that changes your project" if tool == "default" else tool)
            + " without asking you (permissions)"
            for tool in tools
        ]
    return {
        "model": [f"use the model {value} (model): your conversation and project go to its provider"],
        "base_url": [f"send your conversation and project to {value} (base_url)"],
        "api_key_env": [f"send the key held in your variable {value} with each request (api_key_env)"],
        "registry_url": [f"use the registry at {value}, with your registry token (registry_url)"],
        "registry_token": ["send the registry token written in the file (registry_token)"],
    }[name]


@dataclass(frozen=True)
class TrustRequest:
    """What an untrusted (or changed) project settings file asks for, for the person to decide."""

    folder: Path  # the project's real path
    settings_file: Path
    digest: str  # SHA-256 of the file as read: trusting stores this, not a later version
    keys: tuple[str, ...]  # the gated keys, as the file spells them
    wants: tuple[str, ...]  # one line per thing asked for

    def one_line(self) -> str:
        """The single line said when these settings are ignored."""
        return f"Ignored until you trust this folder ({self.folder}): {', '.join(self.keys)} — {HOW_TO_TRUST}."


def trust_file() -> Path:
    """Where trusted folders are recorded (the user's config folder)."""
    import platformdirs

    return Path(platformdirs.user_config_dir("formspec-consult")) / TRUST_FILE


def folder_key(root: Path) -> str:
    return str(Path(root).resolve())


def _store(path: Path) -> dict[str, dict[str, str]]:
    """The recorded folders; a missing or unreadable record trusts nothing (never a crash)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    folders = data.get("folders") if isinstance(data, dict) else None
    if not isinstance(folders, dict):
        return {}
    return {str(k): v for k, v in folders.items() if isinstance(v, dict) and isinstance(v.get("sha256"), str)}


def _save(path: Path, folders: Mapping[str, Mapping[str, str]]) -> None:
    """Write the record atomically (a crash leaves the old one or the new one, never half)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".trusted-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"folders": dict(folders)}, out, indent=2, sort_keys=True)
            out.write("\n")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def is_trusted(root: Path, digest: str, *, store: Path | None = None) -> bool:
    """Whether the person trusted this folder with its settings file exactly as `digest` says."""
    entry = _store(store or trust_file()).get(folder_key(root))
    return entry is not None and entry.get("sha256") == digest


def trust(root: Path, digest: str, *, store: Path | None = None) -> None:
    """Record that the person trusts the folder with this version of its settings file."""
    path = store or trust_file()
    folders = _store(path)
    folders[folder_key(root)] = {"sha256": digest, "trusted_at": datetime.now(UTC).isoformat(timespec="seconds")}
    _save(path, folders)


def revoke(root: Path, *, store: Path | None = None) -> bool:
    """Forget the folder's trust; False when it was not trusted."""
    path = store or trust_file()
    folders = _store(path)
    if folders.pop(folder_key(root), None) is None:
        return False
    _save(path, folders)
    return True


def trusted_folders(*, store: Path | None = None) -> dict[str, dict[str, str]]:
    """Every recorded folder: real path -> {sha256, trusted_at}."""
    return _store(store or trust_file())
