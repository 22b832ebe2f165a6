"""Settings: defaults < user config < project config < environment < command-line flags.

* user config:    ``platformdirs.user_config_dir("formspec-consult")/config.yaml``
* project config: ``<project>/.formspec/consult.yaml``
* environment:    ``FORMSPEC_MODEL``, ``FORMSPEC_BASE_URL``, ``FORMSPEC_CONTEXT_WINDOW``, … (see FIELDS)
* flags:          a mapping of field name to value; ``None`` means "not given"

Both config files are YAML mappings whose keys are the :class:`Settings` field names
(``mcpServers`` is accepted for ``mcp_servers``, the shape other MCP clients use). A bad file,
an unknown key or a bad value raises :class:`ConfigError` naming the file, the key and the fix.
API keys never live here (see ``providers.keys``); ``registry_token`` is hidden from ``repr``.

The project file is someone else's word until the person trusts the folder (see ``config.trust``):
its settings that run code, widen permissions or decide where keys and prompts go are left out
(and named in ``Settings.withheld``) until then. ``permissions`` merge rule by rule across the
layers: the person's own layers (user config, environment, flags) override, the project's may
always tighten and, trusted, add an ``allow`` the person has no rule of their own for.
"""

from __future__ import annotations

import difflib
import json
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from formspec_consult.config.trust import (
    GATED,
    TrustRequest,
    describe,
    digest_of,
    is_trusted,
    needs_trust,
    shown,
)
from formspec_consult.errors import UserError
from formspec_consult.i18n import _, check_language

USER_CONFIG_NAME = "config.yaml"
PROJECT_CONFIG = Path(".formspec") / "consult.yaml"


class ConfigError(UserError, ValueError):
    """A configuration problem, with the place it came from and what to do about it."""


@dataclass
class Settings:
    """Everything configurable about a consultation. `sources` says where each value came from."""

    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None  # read the key from this env var instead of the provider's usual one
    context_window: int | None = None  # overrides the model's window (needed for unknown models)
    reserved_output: int = 4096  # tokens kept free for the answer (capped at the model's max output)
    compaction_threshold: float = 0.75  # fraction of the usable window that triggers compaction
    allow_unvalidated: bool = False  # use a model below the minimum capability bar
    max_steps: int = 25  # model requests per turn: a drafting turn (a module, entities, views) needs ~15
    tool_result_cap: int = 8000  # characters of a tool result the model sees
    tool_timeout: float = 60.0  # seconds per MCP tool call
    request_timeout: float = 120.0  # seconds per model request (each retry gets its own)
    verify: str = "deterministic"  # after each draft: off | deterministic (the verifiers' findings) | llm (+ verify-draft)
    mcp_servers: dict[str, Any] = field(default_factory=dict)  # the `mcpServers` JSON shape
    permissions: dict[str, str] = field(default_factory=dict)  # model-called write tools: allow | ask | deny
    registry_url: str | None = None
    registry_token: str | None = field(default=None, repr=False)
    language: str | None = None  # the interface language ("id", "en"); unset: the locale (i18n.resolve_language)
    screen_reader: bool = False  # plain linear output for screen readers (also --screen-reader, ACCESSIBLE)
    sources: dict[str, str] = field(default_factory=dict, repr=False)
    # The project's settings left out because the folder is not trusted (None: nothing left out).
    withheld: TrustRequest | None = field(default=None, repr=False)

    def source_of(self, name: str) -> str:
        """Where the value of field `name` came from ("default" when nobody set it)."""
        return self.sources.get(name, "default")


def _positive_int(value: Any) -> int:
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise ValueError(_("expected a whole number, e.g. 32000"))
    try:
        number = int(value.strip().replace("_", "")) if isinstance(value, str) else int(value)
    except (TypeError, ValueError):
        raise ValueError(_("expected a whole number, e.g. 32000")) from None
    if number <= 0:
        raise ValueError(_("must be greater than 0"))
    return number


def _positive_float(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError(_("expected a number"))
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(_("expected a number, e.g. 60")) from None
    if number <= 0:
        raise ValueError(_("must be greater than 0"))
    return number


def _fraction(value: Any) -> float:
    number = _positive_float(value)
    if number > 1:
        raise ValueError(_("must be a fraction between 0 and 1, e.g. 0.75"))
    return number


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in {"1", "true", "yes", "on"}:
        return True
    if text in {"0", "false", "no", "off", ""}:
        return False
    raise ValueError(_("expected true or false"))


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise ValueError(_("expected a text value"))
    return str(value).strip() or None


def _language(value: Any) -> str | None:
    """A language the interface has a catalogue for ("id", "id_ID", "en"), as its code."""
    text = _text(value)
    return None if text is None else check_language(text)


VERIFY_MODES = ("off", "deterministic", "llm")


def _verify_mode(value: Any) -> str:
    text = str(value).strip().lower()
    if text not in VERIFY_MODES:
        raise ValueError(_("expected one of {values}").format(values=", ".join(VERIFY_MODES)))
    return text


def _permissions(value: Any) -> dict[str, str]:
    """`{tool: allow|ask|deny}` (and `default`) for the write tools the model calls."""
    if value in (None, ""):
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(_("expected a mapping of tool name to allow, ask or deny, e.g. {apply_draft: ask}"))
    out: dict[str, str] = {}
    for tool, rule in value.items():
        text = str(rule).strip().lower()
        if text not in {"allow", "ask", "deny"}:
            raise ValueError(_("{tool}: {rule!r} is not one of allow, ask, deny").format(tool=tool, rule=rule))
        out[str(tool)] = text
    return out


def _servers(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping) or not all(isinstance(v, Mapping) for v in value.values()):
        raise ValueError(_("expected a mapping of server name to {command, args, env} or {url, headers}"))
    return {str(name): dict(spec) for name, spec in value.items()}


# field name -> (parser, environment variable)
FIELDS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "model": (_text, "FORMSPEC_MODEL"),
    "base_url": (_text, "FORMSPEC_BASE_URL"),
    "api_key_env": (_text, "FORMSPEC_API_KEY_ENV"),
    "context_window": (_positive_int, "FORMSPEC_CONTEXT_WINDOW"),
    "reserved_output": (_positive_int, "FORMSPEC_RESERVED_OUTPUT"),
    "compaction_threshold": (_fraction, "FORMSPEC_COMPACTION_THRESHOLD"),
    "allow_unvalidated": (_boolean, "FORMSPEC_ALLOW_UNVALIDATED"),
    "max_steps": (_positive_int, "FORMSPEC_MAX_STEPS"),
    "tool_result_cap": (_positive_int, "FORMSPEC_TOOL_RESULT_CAP"),
    "tool_timeout": (_positive_float, "FORMSPEC_TOOL_TIMEOUT"),
    "request_timeout": (_positive_float, "FORMSPEC_REQUEST_TIMEOUT"),
    "verify": (_verify_mode, "FORMSPEC_VERIFY"),
    "mcp_servers": (_servers, "FORMSPEC_MCP_SERVERS"),
    "permissions": (_permissions, "FORMSPEC_PERMISSIONS"),
    "registry_url": (_text, "FORMSPEC_REGISTRY_URL"),
    "registry_token": (_text, "FORMSPEC_REGISTRY_TOKEN"),
    "language": (_language, "FORMSPEC_LANGUAGE"),
    "screen_reader": (_boolean, "FORMSPEC_SCREEN_READER"),
}
ALIASES = {"mcpServers": "mcp_servers"}


def user_config_path() -> Path:
    """The user-wide config file (it may not exist)."""
    import platformdirs  # small, but only needed here

    return Path(platformdirs.user_config_dir("formspec-consult")) / USER_CONFIG_NAME


def project_config_path(project_root: Path) -> Path:
    """The project's config file (it may not exist)."""
    return project_root / PROJECT_CONFIG


def _parse(name: str, raw: Any, where: str) -> Any:
    parser, _env = FIELDS[name]
    if name in {"mcp_servers", "permissions"} and isinstance(raw, str):  # the env var carries JSON
        import json

        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ConfigError(_("{where}: '{name}' is not valid JSON ({error}); fix or unset it").format(
                where=where, name=name, error=exc.msg)) from None
    try:
        return parser(raw)
    except (TypeError, ValueError) as exc:
        raise ConfigError(_("{where}: '{name}' = {value!r} is not valid ({error}); fix or remove it").format(
            where=where, name=name, value=raw, error=exc)) from None


def _read_bytes(path: Path) -> bytes | None:
    """The file's bytes; None when it does not exist."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(_("{path}: cannot be read ({error}); fix its permissions or remove it").format(
            path=path, error=exc.strerror)) from None


def _read_file(path: Path, raw: bytes | None = None) -> dict[str, Any]:
    """Read one YAML config file (or its bytes, `raw`) into {field: raw value}; a missing file is empty."""
    raw = _read_bytes(path) if raw is None else raw
    if raw is None:
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(_("{path}: is not UTF-8 text (byte {byte}); save it as UTF-8").format(
            path=path, byte=exc.start)) from None
    try:
        data = yaml.safe_load(text)
    except ValueError as exc:  # an integer longer than Python turns into a number (4,300 digits)
        raise ConfigError(_("{path}: holds a value it cannot read ({error}); shorten or quote it").format(
            path=path, error=exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        message = (_("{path}: is not valid YAML at line {line}; fix the syntax or remove the file") if mark is not None
                   else _("{path}: is not valid YAML; fix the syntax or remove the file"))
        raise ConfigError(message.format(path=path, line=mark.line + 1 if mark is not None else 0)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(_("{path}: must be a mapping of settings (key: value), not {type}").format(
            path=path, type=type(data).__name__))
    values: dict[str, Any] = {}
    for key, raw in data.items():
        name = ALIASES.get(str(key), str(key))
        if name not in FIELDS:
            close = difflib.get_close_matches(name, list(FIELDS), n=1)
            hint = (_("did you mean '{key}'?").format(key=close[0]) if close
                    else _("known keys: {keys}").format(keys=", ".join(FIELDS)))
            raise ConfigError(_("{path}: unknown key '{key}' — {hint}").format(path=path, key=key, hint=hint))
        values[name] = raw
    return values


def load_settings(
    project_root: Path | None,
    flags: Mapping[str, Any],
    *,
    env: Mapping[str, str] | None = None,
    user_config: Path | None = None,
    trust_store: Path | None = None,
) -> Settings:
    """Merge every layer into one :class:`Settings`; later layers win, ``None`` flags are skipped.

    `env` defaults to ``os.environ``, `user_config` to :func:`user_config_path` and `trust_store`
    to ``config.trust.trust_file()`` (parameters so tests can isolate them). Flags that are not
    settings (``prompt``…) are ignored, except ``trust_project`` (``--trust-project``): trust the
    project's settings for this run.
    """
    import os

    environ = os.environ if env is None else env
    settings = Settings()
    user_file = user_config if user_config is not None else user_config_path()
    _apply(settings, f"user config {user_file}", _read_file(user_file), own=True)
    if project_root is not None:
        project_file = project_config_path(project_root)
        raw = _read_bytes(project_file)
        values = _read_file(project_file, raw) if raw is not None else {}
        parsed = {name: _parse(name, value, str(project_file)) for name, value in values.items()}
        request = _trust_request(project_root, project_file, raw or b"", parsed)
        trusted = request is None or bool(flags.get("trust_project")) or is_trusted(
            project_root, request.digest, store=trust_store
        )
        if not trusted:
            settings.withheld = request
            parsed = {name: value for name, value in parsed.items() if name == "permissions" or not needs_trust(name, value)}
        _apply(settings, f"project config {project_file}", parsed, own=False, parsed=True, loosen=trusted)
    for name, (_parser, var) in FIELDS.items():
        if environ.get(var) not in (None, ""):
            _apply(settings, f"env {var}", {name: _parse(name, environ[var], f"environment variable {var}")},
                   own=True, parsed=True)
    for name, raw_flag in flags.items():
        if name not in FIELDS or raw_flag is None or (name == "allow_unvalidated" and raw_flag is False):
            continue  # a bare flag that was not passed is False, not "turn it off"
        option = "--" + name.replace("_", "-")
        _apply(settings, f"flag {option}", {name: _parse(name, raw_flag, f"option {option}")}, own=True, parsed=True)
    return settings


def _apply(
    settings: Settings, label: str, values: Mapping[str, Any], *, own: bool, parsed: bool = False, loosen: bool = True
) -> None:
    """Set one layer's values; `permissions` merge rule by rule (see :func:`merge_permissions`)."""
    for name, raw in values.items():
        value = raw if parsed else _parse(name, raw, label.split(" ", 2)[2])
        if name == "permissions":
            value = merge_permissions(settings.permissions, value, own=own, loosen=loosen)
            if value == settings.permissions:
                continue
        setattr(settings, name, value)
        settings.sources[name] = label


STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}


def merge_permissions(
    base: Mapping[str, str], layer: Mapping[str, str], *, own: bool, loosen: bool = True
) -> dict[str, str]:
    """The rules of `base` with a later `layer`'s.

    The person's own layer (`own`) overrides rule by rule (`--allow-tool` adds to their config, it
    does not replace it). A project's rule only tightens what the person's rules say — a project
    `allow` never beats their `deny` or `ask` — and adds an `allow` only when `loosen` (the folder
    is trusted) and the person has no rule for that tool. A project `default` tightens the
    person's looser rules for single tools too.
    """
    out = dict(base)
    for tool, rule in layer.items():
        if own:
            out[tool] = rule
            continue
        before = out.get(tool) or out.get("default")
        if before is None:
            if rule != "allow" or loosen:
                out[tool] = rule
        elif STRICTNESS[rule] >= STRICTNESS[before]:
            out[tool] = rule
        if tool == "default" and rule != "allow":
            for other, was in list(out.items()):
                if STRICTNESS[was] < STRICTNESS[rule]:
                    out[other] = rule
    return out


def _trust_request(
    project_root: Path, project_file: Path, raw: bytes, parsed: Mapping[str, Any]
) -> TrustRequest | None:
    """What the project's files ask for that needs trust; None when they ask for nothing of the kind.

    Besides the settings file, ``consult.dev_command`` in ``formspec-app.yaml`` (the command the
    local server runs to start the dev server) is asked about: the digest covers it too.
    """
    asked = [name for name in GATED if needs_trust(name, parsed.get(name))]
    dev = dev_command(project_root)
    if not asked and dev is None:
        return None
    wants = [line for name in asked for line in describe(name, parsed[name])]
    keys = [shown(name) for name in asked]
    digest = digest_of(raw)
    if dev is not None:
        keys.append(DEV_COMMAND_KEY)
        wants.append(f"run the command `{shlex.join(dev)}` to start the dev server ({DEV_COMMAND_KEY})")
        digest = digest_of(raw + b"\0" + json.dumps(dev).encode("utf-8"))
    return TrustRequest(
        folder=Path(project_root).resolve(),
        settings_file=project_file,
        digest=digest,
        keys=tuple(keys),
        wants=tuple(wants),
    )


DEV_COMMAND_KEY = "consult.dev_command in formspec-app.yaml"


def dev_command(project_root: Path) -> list[str] | None:
    """The dev-server command ``formspec-app.yaml`` names (``consult.dev_command``), if any."""
    try:
        data = yaml.safe_load((Path(project_root) / "formspec-app.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, ValueError):
        return None
    consult = data.get("consult") if isinstance(data, dict) else None
    value = consult.get("dev_command") if isinstance(consult, dict) else None
    if isinstance(value, str) and value.strip():
        try:
            return shlex.split(value)
        except ValueError:
            return [value]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def trust_request(
    project_root: Path, *, trust_store: Path | None = None, include_trusted: bool = False
) -> TrustRequest | None:
    """What the project's settings file asks for that waits for trust, when the folder is not yet
    trusted with this version of the file (or, `include_trusted`, also when it is); None when there
    is nothing to ask. Raises ConfigError for a broken file."""
    project_file = project_config_path(project_root)
    raw = _read_bytes(project_file)
    values = _read_file(project_file, raw) if raw is not None else {}
    parsed = {name: _parse(name, value, str(project_file)) for name, value in values.items()}
    request = _trust_request(project_root, project_file, raw or b"", parsed)
    if request is None or (not include_trusted and is_trusted(project_root, request.digest, store=trust_store)):
        return None
    return request


def language_setting(project_root: Path | None, *, env: Mapping[str, str] | None = None) -> str | None:
    """The ``language`` setting (environment, project config, user config, highest first) as
    written, read leniently: before the command line is parsed, a broken file is not this
    function's to report (the settings' full load says what is wrong with it)."""
    import os

    environ = os.environ if env is None else env
    if environ.get("FORMSPEC_LANGUAGE"):
        return environ["FORMSPEC_LANGUAGE"]
    files = [project_config_path(project_root)] if project_root is not None else []
    for path in [*files, user_config_path()]:
        try:
            value = _read_file(path).get("language")
        except ConfigError:
            continue
        if isinstance(value, str) and value.strip():
            return value
    return None


def settings_field_names() -> list[str]:
    """The configurable keys, in documentation order."""
    return [f.name for f in fields(Settings) if f.name not in {"sources", "withheld"}]
