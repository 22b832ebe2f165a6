"""`formspec-consult doctor [--probe]`: how the model and key are resolved, and whether it is fit.

It prints the whole resolution path — config files read, which model from which source, which
key source (never the key), the capability verdict, the window and the compaction threshold —
and with ``--probe`` makes one tiny tool-calling request. Exit code 0 when everything is usable,
1 otherwise, so scripts can use it as a check.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from formspec_consult.commands.model_options import MODEL_FLAG_KEYS, model_options
from formspec_consult.config import (
    ConfigError,
    Settings,
    load_settings,
    project_config_path,
    settings_field_names,
    user_config_path,
)
from formspec_consult.i18n import N_, _, format_money, format_number, format_percent
from formspec_consult.providers.base import Provider, ProviderError

# Every label of the report, so that one column holds them all in the person's language
# ("konfigurasi pengguna" is longer than "user config").
_LABELS = (
    N_("user config"), N_("project config"), N_("project trust"), N_("model"), N_("base URL"), N_("problem"),
    N_("route"), N_("key"), N_("key lookup"), N_("note"), N_("tool calling"), N_("context window"),
    N_("reserved output"), N_("usable window"), N_("compaction at"), N_("verdict"), N_("try"), N_("retry"),
    N_("request"), N_("tool call"), N_("usage"), N_("skipped"),
)


def _width() -> int:
    """The label column: one space past the longest label of the interface language (16 in English)."""
    return max(len(_(label)) for label in _LABELS) + 1


def _line(label: str, value: str) -> None:
    width = _width()  # a longer label (a setting's name) keeps two spaces before its value
    click.echo(f"  {label:<{width}}{value}" if len(label) < width else f"  {label}  {value}")


def _file_state(path: Path) -> str:
    found = _("found") if path.is_file() else _("not found")
    return f"{path} ({found})"


def _from(source: str) -> str:
    return "[" + _("from {source}").format(source=source) + "]"


def project_root_of(option: Path | None) -> Path | None:
    """The FormSpec project at `option` (or the current folder), or None outside any project."""
    try:
        from formspec_consult.spec import open_project

        return Path(open_project(option or Path.cwd()).root)
    except Exception:  # noqa: BLE001 - doctor still works outside a project
        return None


def cli_flags(ctx: click.Context, local: Mapping[str, Any]) -> dict[str, Any]:
    """Options given to doctor itself win over the same options given before it."""
    merged = {key: (ctx.obj or {}).get(key) for key in (*MODEL_FLAG_KEYS, "trust_project")}
    merged.update({key: value for key, value in local.items() if value not in (None, False)})
    return merged


def report_configuration(project_root: Path | None, settings: Settings) -> None:
    click.echo(_("Configuration"))
    _line(_("user config"), _file_state(user_config_path()))
    if project_root is None:
        _line(_("project config"), _("no FormSpec project here (only user config, env and flags apply)"))
    else:
        _line(_("project config"), _file_state(project_config_path(project_root)))
        if settings.withheld is not None:
            _line(_("project trust"), _("not trusted — left out: {keys} (review the file, then run `formspec-consult trust`)").format(
                keys=", ".join(settings.withheld.keys)))
    model = settings.model or _("(none)")
    _line(_("model"), f"{model}  {_from(settings.source_of('model'))}")
    if settings.base_url:
        _line(_("base URL"), f"{redact_url(settings.base_url)}  {_from(settings.source_of('base_url'))}")
    shown = {"model", "base_url", "context_window", "compaction_threshold", "allow_unvalidated"}
    for name in settings_field_names():
        if name in shown or settings.source_of(name) == "default":
            continue
        value = getattr(settings, name)
        if name == "registry_token":
            value = _("(set, hidden)")
        elif name == "mcp_servers":
            value = ", ".join(value) or _("(none)")
        elif name.endswith("_url"):
            value = redact_url(value)
        _line(name.replace("_", " "), f"{value}  {_from(settings.source_of(name))}")


def redact_url(url: str | None) -> str:
    """A URL fit to print (no password or token in it)."""
    from formspec_consult.providers.keys import redact_url as redact

    return redact(url)


def report_route(settings: Settings) -> bool:
    """Print the decision-tree branch and the key source; False when no provider can be made."""
    from formspec_consult.providers.keys import missing_key_hint
    from formspec_consult.providers.resolve import resolve

    click.echo(_("Provider"))
    try:
        resolution = resolve(settings)
    except ProviderError as error:
        _line(_("problem"), str(error))
        return False
    _line(_("route"), resolution.step)
    key = resolution.key
    if key is None:
        return True
    _line(_("key"), key.source + ("" if key.found else f" — {missing_key_hint(key)}"))
    if key.env_vars:  # a keyless local model server has no lookup to show
        _line(_("key lookup"), " > ".join([_("OS keyring (formspec-consult/{account})").format(account=key.account), *key.env_vars]))
    for note in key.notes:
        _line(_("note"), note)
    return key.found


def report_capability(provider: Provider, settings: Settings) -> bool:
    """Print window, threshold and the capability verdict; True when the bar is met (or overridden)."""
    from formspec_consult.providers.capability import MIN_USABLE_WINDOW, assess

    verdict = assess(provider)
    click.echo(_("Capability"))
    tools = {True: _("yes"), False: _("no"), None: _("unknown (litellm does not know this model)")}[verdict.tool_calling]
    _line(_("tool calling"), tools)
    if verdict.context_window is not None and verdict.usable_window is not None:
        origin = _("from {source}").format(source=settings.source_of("context_window") if settings.context_window
                                             else "litellm")
        if provider.name in {"scripted", "replay"} and not settings.context_window:
            origin = _("{name} provider").format(name=provider.name)
        _line(_("context window"), _("{n} tokens ({origin})").format(n=format_number(verdict.context_window), origin=origin))
        _line(_("reserved output"), _("{n} tokens").format(n=format_number(provider.max_output_tokens)))
        _line(_("usable window"), _("{n} tokens (needs ≥ {minimum})").format(
            n=format_number(verdict.usable_window), minimum=format_number(MIN_USABLE_WINDOW)))
        threshold = int(verdict.usable_window * settings.compaction_threshold)
        _line(_("compaction at"), _("{n} tokens ({share} of usable, from {source})").format(
            n=format_number(threshold), share=format_percent(settings.compaction_threshold),
            source=settings.source_of("compaction_threshold")))
    if verdict.ok:
        _line(_("verdict"), _("OK — meets the minimum capability bar"))
        return True
    for problem in verdict.problems:
        _line(_("problem"), problem)
    if settings.allow_unvalidated:
        _line(_("verdict"), _("BELOW THE BAR, allowed by allow_unvalidated") + " " + _from(settings.source_of("allow_unvalidated")))
        return True
    _line(_("verdict"), _("REFUSED — pass --allow-unvalidated to use it anyway"))
    if not verdict.known:
        _line(_("try"), "formspec-consult doctor --probe --context-window N --allow-unvalidated "
                     + _("(checks that it really calls tools)"))
    return False


def report_probe(provider: Provider) -> bool:
    from formspec_consult.providers.probe import probe

    click.echo(_("Probe"))
    from formspec_consult.providers.litellm_provider import LiteLLMProvider

    if isinstance(provider, LiteLLMProvider):  # a diagnosis should fail fast and say what it is doing
        from formspec_consult.providers.errors import RetryPolicy

        provider.retry = RetryPolicy(attempts=2)
        provider.on_retry = lambda notice: _line(_("retry"), _("{error} — again in {seconds} s").format(
            error=notice.error, seconds=format_number(notice.delay, decimals=0)))
    result = asyncio.run(probe(provider))
    if result.error is not None:
        _line(_("request"), _("FAILED after {seconds} s: {error}").format(
            seconds=format_number(result.seconds, decimals=1), error=result.error))
        return False
    _line(_("request"), _("answered in {seconds} s").format(seconds=format_number(result.seconds, decimals=1)))
    _line(_("tool call"), _("yes — the model called the probe tool") if result.called_tool
          else _("NO — it answered in text instead: {text!r}").format(text=result.text[:80]))
    if result.usage is not None:
        cost = ", " + format_money(result.usage.cost, decimals=6) if result.usage.cost is not None else ""
        kind = _("reported") if result.usage.reported else _("estimated")
        _line(_("usage"), _("{sent} in / {received} out ({kind}{cost})").format(
            sent=format_number(result.usage.prompt_tokens), received=format_number(result.usage.completion_tokens),
            kind=kind, cost=cost))
    return result.called_tool


@click.command()
@click.option("--probe", "run_probe", is_flag=True, help=N_("Also make one tiny tool-calling request."))
@model_options
@click.pass_context
def doctor(ctx: click.Context, /, run_probe: bool, **local: Any) -> None:
    """Show how the model and key are resolved, and whether the model is fit for a consultation."""
    project_root = project_root_of((ctx.obj or {}).get("project"))
    try:
        settings = load_settings(project_root, cli_flags(ctx, local))
    except ConfigError as error:
        raise click.ClickException(str(error)) from None
    report_configuration(project_root, settings)
    healthy = report_route(settings)
    if healthy:
        from formspec_consult.providers.resolve import open_provider

        try:
            provider = open_provider(settings)
        except ProviderError as error:
            _line(_("problem"), str(error))
            ctx.exit(1)
        healthy = report_capability(provider, settings)
        if run_probe:
            healthy = report_probe(provider) and healthy
    elif run_probe:
        click.echo(_("Probe"))
        _line(_("skipped"), _("fix the problems above first"))
    ctx.exit(0 if healthy else 1)
