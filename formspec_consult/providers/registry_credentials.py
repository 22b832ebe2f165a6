"""The client's registry token: `$FORMSPEC_REGISTRY_TOKEN`, else the OS keyring.

Keyring entry: service `formspec-consult` (shared with the provider keys), account
`registry:<host[:port]>` of the registry URL, so tokens for different registries never mix.
A missing or locked keyring is skipped with a note, never fatal (see `providers.keys`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from formspec_consult.providers.keys import SERVICE, keyring_get

TOKEN_ENV = "FORMSPEC_REGISTRY_TOKEN"


def registry_account(url: str) -> str:
    """The keyring account for a registry URL: `registry:<host[:port]>`."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not a registry URL; expected e.g. https://registry.example/mcp")
    host = parts.hostname + (f":{parts.port}" if parts.port else "")
    return f"registry:{host}"


def registry_token(url: str | None, environ: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """(token, where it came from) for the registry at `url`; (None, reason) when there is none."""
    env = os.environ if environ is None else environ
    if env.get(TOKEN_ENV):
        return env[TOKEN_ENV], f"env {TOKEN_ENV}"
    if not url:
        return None, "no registry URL configured (the bundled registry needs no token)"
    account = registry_account(url)
    token, note = keyring_get(account)
    if token:
        return token, f"OS keyring ({SERVICE}/{account})"
    return None, note or f"no token in {TOKEN_ENV} or the OS keyring ({SERVICE}/{account})"


def store_registry_token(url: str, token: str) -> str:
    """Save `token` for the registry at `url` in the OS keyring; returns the account used."""
    import keyring

    account = registry_account(url)
    keyring.set_password(SERVICE, account, token)
    return account


def forget_registry_token(url: str) -> bool:
    """Remove the stored token for `url`; False when there was none."""
    import keyring
    import keyring.errors

    try:
        keyring.delete_password(SERVICE, registry_account(url))
    except keyring.errors.PasswordDeleteError:
        return False
    return True
