"""In-memory and failing OS keyring backends, and a context manager that installs one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

import keyring
import keyring.backend
import keyring.errors

B = TypeVar("B", bound=keyring.backend.KeyringBackend)


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring backend that keeps passwords in a dict."""

    priority = 1

    def __init__(self) -> None:
        # Not the base's (untyped) __init__: it only reads KEYRING_PROPERTY_* variables, of which a fake has no use.
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.store:
            raise keyring.errors.PasswordDeleteError("not found")
        del self.store[(service, username)]


class BrokenKeyring(keyring.backend.KeyringBackend):
    """A backend that fails like a headless Linux box without a secret service."""

    priority = 1

    def __init__(self) -> None:
        """Not the base's (untyped) __init__: it only reads KEYRING_PROPERTY_* variables, of which a fake has no use."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringError("no secret service on D-Bus")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError("no secret service on D-Bus")

    def delete_password(self, service: str, username: str) -> None:
        raise keyring.errors.PasswordDeleteError("no secret service on D-Bus")


@contextmanager
def installed(backend: B) -> Iterator[B]:
    """Use `backend` as the process's keyring for the duration, then restore the previous one."""
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)
