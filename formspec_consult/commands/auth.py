"""`formspec-consult auth set|remove|status`: provider keys in the OS keyring.

Keys are stored under service ``formspec-consult``, account = the provider (``anthropic``,
``openai``, …) or the host of a custom OpenAI-compatible endpoint. `set` prompts without echo,
or reads one line from stdin when it is not a terminal (``echo $KEY | formspec-consult auth set
openai``). No command ever prints a key.
"""

from __future__ import annotations

import difflib
import os
import re
import sys

import click

from formspec_consult.i18n import _
from formspec_consult.providers.keys import GENERIC_ENV, KEYLESS_PROVIDERS, PROVIDER_ENV, SERVICE, keyring_get

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.\-]*$")


def _known_accounts() -> list[str]:
    from formspec_consult.providers.resolve import LITELLM_PREFIXES

    return sorted((set(PROVIDER_ENV) | LITELLM_PREFIXES) - KEYLESS_PROVIDERS)


def _check_account(provider: str) -> str:
    """Accept a known provider or an endpoint host name; refuse typos with a suggestion."""
    account = provider.strip().lower()
    if not _NAME.match(account):
        raise click.BadParameter(_("use a provider name such as anthropic, or an endpoint host name"), param_hint="PROVIDER")
    if account in KEYLESS_PROVIDERS:
        raise click.UsageError(_("{account} runs locally and needs no key").format(account=account))
    if "." in account or account in _known_accounts():
        return account
    close = difflib.get_close_matches(account, _known_accounts(), n=1)
    hint = (_("did you mean '{name}'?").format(name=close[0]) if close
            else _("known: {names}").format(names=", ".join(_known_accounts())))
    raise click.BadParameter(_("unknown provider '{account}' — {hint} (or give an endpoint host name)").format(account=account, hint=hint),
                             param_hint="PROVIDER")


def _keyring_failure(exc: Exception, account: str) -> click.ClickException:
    variable = PROVIDER_ENV.get(account, GENERIC_ENV)
    return click.ClickException(
        _("the OS keyring is not available ({problem}); set {variable} in your environment instead").format(
            problem=f"{type(exc).__name__}: {exc}", variable=variable)
    )


@click.group()
def auth() -> None:
    """Store, remove or check provider keys in the OS keyring."""


def _configured_account(ctx: click.Context) -> str:
    """The keyring account of the configured model (when `auth set` gets no PROVIDER)."""
    from formspec_consult.commands.doctor import cli_flags, project_root_of
    from formspec_consult.config import ConfigError, load_settings
    from formspec_consult.providers.base import ProviderError
    from formspec_consult.providers.resolve import resolve

    try:
        settings = load_settings(project_root_of((ctx.obj or {}).get("project")), cli_flags(ctx, {}))
        resolution = resolve(settings)
    except (ConfigError, ProviderError):
        resolution = None
    if resolution is None or resolution.key is None:
        raise click.UsageError(_("name the provider, e.g. `formspec-consult auth set anthropic`"))
    if not resolution.key.required:
        raise click.UsageError(_("{configured} needs no key").format(configured=resolution.configured))
    return resolution.key.account


@auth.command("set")
@click.argument("provider", required=False)
@click.pass_context
def set_key(ctx: click.Context, provider: str | None) -> None:
    """Store the API key for PROVIDER (default: the configured model's), prompted without echo
    or read from stdin."""
    account = _check_account(provider) if provider else _configured_account(ctx)
    if sys.stdin.isatty():
        key = click.prompt(_("API key for {account}").format(account=account), hide_input=True, prompt_suffix=": ")
    else:
        key = sys.stdin.readline()
    key = key.strip()
    if not key:
        raise click.ClickException(_("no key given; nothing was stored"))
    try:
        import keyring

        keyring.set_password(SERVICE, account, key)
    except Exception as exc:  # noqa: BLE001 - every backend failure gets the same advice
        raise _keyring_failure(exc, account) from None
    click.echo(_("Stored the {account} key in the OS keyring ({SERVICE}/{account}).").format(account=account, SERVICE=SERVICE))


@auth.command("remove")
@click.argument("provider")
def remove_key(provider: str) -> None:
    """Delete the stored key for PROVIDER."""
    account = provider.strip().lower()
    try:
        import keyring
        import keyring.errors

        if keyring.get_password(SERVICE, account) is None:
            raise click.ClickException(_("no {account} key is stored in the OS keyring; nothing to remove").format(account=account))
        keyring.delete_password(SERVICE, account)
    except click.ClickException:
        raise
    except Exception as exc:  # noqa: BLE001
        raise _keyring_failure(exc, account) from None
    click.echo(_("Removed the {account} key from the OS keyring.").format(account=account))


@auth.command("status")
def status() -> None:
    """Which providers have a key, and where it would come from (keys are never shown)."""
    rows: list[tuple[str, str, str]] = []
    for account, variable in sorted(PROVIDER_ENV.items()):
        stored, note = keyring_get(account)
        keyring_state = _("unavailable") if note else (_("stored") if stored else "-")
        env_state = _("{variable} set").format(variable=variable) if os.environ.get(variable) else "-"
        rows.append((account, keyring_state, env_state))
    provider, keyring_column, environment = _("provider"), _("OS keyring"), _("environment")
    click.echo(f"{provider:<14}{keyring_column:<14}{environment}")
    for account, keyring_state, env_state in rows:
        click.echo(f"{account:<14}{keyring_state:<14}{env_state}")
    generic = _("set") if os.environ.get(GENERIC_ENV) else _("not set")
    click.echo(_("\n{GENERIC_ENV} (used by any provider without its own key): {generic}").format(GENERIC_ENV=GENERIC_ENV, generic=generic))
    if any(row[1] == "unavailable" for row in rows):
        click.echo(_("The OS keyring is not available here; use the environment variables instead."))
