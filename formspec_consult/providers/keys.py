"""Where an API key comes from: OS keyring > the provider's usual env var > FORMSPEC_LLM_API_KEY.

The keyring entry is service ``formspec-consult``, account = the provider (``anthropic``,
``openai``…; for any other endpoint — a base URL that is not the provider's own host — that host
name, so a gateway never receives your OpenAI key). A provider's variable (``OPENAI_API_KEY``…)
is sent only to that provider's own endpoint, whoever named it in ``api_key_env``. Local endpoints (Ollama, a base URL on this machine or the LAN) need no key.
A missing or broken keyring backend (common on headless Linux) is noted and skipped, never fatal.
Keys are returned to the caller only: never logged, never in a repr, never written to a file.
"""

from __future__ import annotations

import ipaddress
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlparse

from formspec_consult.i18n import _

SERVICE = "formspec-consult"
GENERIC_ENV = "FORMSPEC_LLM_API_KEY"
LOCAL_PLACEHOLDER_KEY = "not-needed"  # OpenAI-compatible clients insist on some key
PROVIDER_ENV: dict[str, str] = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "xai": "XAI_API_KEY",
    "cohere": "COHERE_API_KEY",
    "fireworks_ai": "FIREWORKS_API_KEY",
    "perplexity": "PERPLEXITYAI_API_KEY",
}
# The hosts each provider's own API answers on: a base URL elsewhere is another endpoint.
PROVIDER_HOSTS: dict[str, frozenset[str]] = {
    "anthropic": frozenset({"api.anthropic.com"}),
    "openai": frozenset({"api.openai.com"}),
    "deepseek": frozenset({"api.deepseek.com"}),
    "gemini": frozenset({"generativelanguage.googleapis.com"}),
    "mistral": frozenset({"api.mistral.ai"}),
    "groq": frozenset({"api.groq.com"}),
    "openrouter": frozenset({"openrouter.ai"}),
    "together_ai": frozenset({"api.together.xyz", "api.together.ai"}),
    "xai": frozenset({"api.x.ai"}),
    "cohere": frozenset({"api.cohere.ai", "api.cohere.com"}),
    "fireworks_ai": frozenset({"api.fireworks.ai"}),
    "perplexity": frozenset({"api.perplexity.ai"}),
}
OWNER_OF_VARIABLE = {variable: provider for provider, variable in PROVIDER_ENV.items()}
KEYRING_TIMEOUT = 5.0  # seconds
KEYLESS_PROVIDERS = {"ollama", "ollama_chat", "lm_studio", "llamafile", "hosted_vllm"}


@dataclass(frozen=True)
class KeyLookup:
    """The outcome of looking for a key; `source` is safe to print, `key` is not."""

    account: str
    source: str  # e.g. "OS keyring (formspec-consult/anthropic)", "env ANTHROPIC_API_KEY", "missing"
    key: str | None = field(default=None, repr=False)
    env_vars: tuple[str, ...] = ()  # the variables that were consulted, in order
    required: bool = True
    notes: tuple[str, ...] = ()  # e.g. why the keyring was skipped

    @property
    def found(self) -> bool:
        return self.key is not None


def is_local_url(url: str | None) -> bool:
    """True for endpoints on this machine or the local network (no key expected)."""
    if not url:
        return False
    host = (urlparse(url if "//" in url else f"//{url}").hostname or "").lower()
    if host in {"localhost", "host.docker.internal"} or host.endswith((".local", ".localhost")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_unspecified


def account_for(provider: str, base_url: str | None) -> str:
    """The keyring account: the provider, or the host of a custom OpenAI-compatible endpoint."""
    host = urlparse(base_url).hostname if base_url else None
    if host and provider in PROVIDER_HOSTS and host.lower() not in PROVIDER_HOSTS[provider]:
        return host
    return provider


def foreign_variable(variable: str | None, provider: str, account: str) -> str | None:
    """The provider whose key `variable` holds, when this endpoint is not that provider's own
    (the key must not go there); None when the variable may be used."""
    owner = OWNER_OF_VARIABLE.get(variable or "")
    if owner is None or (owner == provider and account == provider):
        return None
    return owner


def keyring_get(account: str, timeout: float = KEYRING_TIMEOUT) -> tuple[str | None, str | None]:
    """(key, note): the stored key, or None with a note saying why the keyring was skipped.

    The lookup runs in a daemon thread with a deadline: a locked Secret Service over SSH can
    wait forever for an unlock prompt nobody sees, and that must not freeze the app.
    """
    outcome: list[tuple[str | None, str | None]] = []

    def lookup() -> None:
        try:
            import keyring

            outcome.append((keyring.get_password(SERVICE, account), None))
        except Exception as exc:  # noqa: BLE001 - any backend failure means "no keyring", not a crash
            outcome.append((None, f"OS keyring unavailable ({type(exc).__name__})"))

    worker = threading.Thread(target=lookup, name="keyring-lookup", daemon=True)
    worker.start()
    worker.join(timeout)
    if not outcome:
        return None, f"OS keyring did not answer within {timeout:g} s (locked?)"
    return outcome[0]


def env_candidates(provider: str, account: str, api_key_env: str | None) -> tuple[str, ...]:
    """The environment variables to consult, in order."""
    if api_key_env:
        first: tuple[str, ...] = (api_key_env,)
    elif account != provider:  # a custom endpoint: never hand it another provider's key
        first = ()
    else:
        first = (PROVIDER_ENV.get(provider, f"{provider.upper()}_API_KEY"),)
    return (*first, GENERIC_ENV) if GENERIC_ENV not in first else first


def find_key(
    provider: str,
    base_url: str | None = None,
    api_key_env: str | None = None,
    env: Mapping[str, str] | None = None,
) -> KeyLookup:
    """Look for a key in the documented order; never raises (see :func:`require_key`)."""
    environ = os.environ if env is None else env
    account = account_for(provider, base_url)
    required = provider not in KEYLESS_PROVIDERS and not is_local_url(base_url)
    refused: tuple[str, ...] = ()
    if (owner := foreign_variable(api_key_env, provider, account)) is not None:
        refused = (f"{api_key_env} holds your {owner} key and is sent only to {owner} itself, not to {account}",)
        api_key_env = None
    variables = env_candidates(provider, account, api_key_env)
    if provider in KEYLESS_PROVIDERS and not api_key_env:
        return KeyLookup(account, "not needed (local model server)", LOCAL_PLACEHOLDER_KEY, (), False, refused)
    key, note = keyring_get(account)
    notes = refused + ((note,) if note else ())
    if key:
        return KeyLookup(account, f"OS keyring ({SERVICE}/{account})", key, variables, required, notes)
    for variable in variables:
        if environ.get(variable):
            return KeyLookup(account, f"env {variable}", environ[variable], variables, required, notes)
    if not required:
        return KeyLookup(account, "not needed (local endpoint)", LOCAL_PLACEHOLDER_KEY, variables, False, notes)
    return KeyLookup(account, "missing", None, variables, True, notes)


def missing_key_hint(lookup: KeyLookup) -> str:
    """Exactly what to set, and the way out without a key."""
    command = f"`formspec-consult auth set {lookup.account}`"
    if lookup.env_vars:
        options = _("run {command} or set {variables}").format(command=command,
                                                                variables=_(" or ").join(lookup.env_vars))
    else:
        options = _("run {command}").format(command=command)
    note = f" ({'; '.join(lookup.notes)})" if lookup.notes else ""
    return _("{options}{notes}; no key? try `formspec-consult demo` (offline)").format(options=options, notes=note)


# Query parameters whose values are credentials (compared lower-case, "-" read as "_").
_SECRET_PARAMS = frozenset({"token", "access_token", "api_key", "apikey", "key", "password", "pass", "secret",
                            "client_secret", "auth", "sig", "signature", "x_api_key"})


def url_secrets(url: str | None) -> tuple[str, ...]:
    """The credentials written into a URL: the password of ``user:pass@``, and the
    values of query parameters such as ``token=`` or ``api_key=`` — for masking in logs."""
    if not url:
        return ()
    from urllib.parse import parse_qsl, unquote

    parsed = urlparse(url)
    found = [unquote(parsed.password)] if parsed.password else []
    for name, value in parse_qsl(parsed.query, keep_blank_values=False):
        if name.lower().replace("-", "_") in _SECRET_PARAMS and value:
            found += [value, quote_value(value)]
    return tuple(dict.fromkeys(s for s in found if len(s) >= 3))


def quote_value(value: str) -> str:
    """``value`` as it appears percent-encoded in a query string."""
    from urllib.parse import quote

    return quote(value, safe="")


def redact_url(url: str | None) -> str:
    """``url`` with its password and credential query values replaced by ``***`` (for display)."""
    if not url:
        return url or ""
    shown = url
    for secret in sorted(url_secrets(url), key=len, reverse=True):
        shown = shown.replace(secret, "***")
    return shown
