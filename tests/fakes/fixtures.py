"""Pytest fixtures around the fakes; tests/conftest.py imports them so every test can use them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.fakes.anthropic_server import FakeAnthropicServer
    from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A started fake OpenAI-compatible server on loopback; queue replies, then read `.requests`."""
    from tests.fakes.openai_server import FakeOpenAIServer  # uvicorn only for tests that use it

    server = FakeOpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropicServer]:
    """A started fake Anthropic Messages server on loopback that checks and simulates prompt caching."""
    from tests.fakes.anthropic_server import FakeAnthropicServer

    server = FakeAnthropicServer().start()
    try:
        yield server
    finally:
        server.stop()
