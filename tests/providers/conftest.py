"""Provider-test fixtures: an in-memory OS keyring so no test ever sees the developer's keys."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.keyrings import BrokenKeyring, MemoryKeyring, installed

__all__ = ["BrokenKeyring", "MemoryKeyring"]


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    """Every provider test runs against an empty in-memory keyring."""
    with installed(MemoryKeyring()) as backend:
        yield backend


@pytest.fixture
def broken_keyring() -> Iterator[BrokenKeyring]:
    """Replace the keyring by one whose every call fails."""
    with installed(BrokenKeyring()) as backend:
        yield backend
