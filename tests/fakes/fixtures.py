"""Pytest fixtures around the fakes; tests/conftest.py imports them so every test can use them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A started fake OpenAI-compatible server; queue replies, then read `.requests`."""
    server = FakeOpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()
