"""Suite-wide guards: no test may reach the network, and litellm stays offline."""

from __future__ import annotations

import ipaddress
import os
import socket

import pytest
from hypothesis import HealthCheck, settings

from tests.fakes.fixtures import fake_anthropic, fake_openai  # noqa: F401  (shared fixtures)

# Machines here are shared and noisy: a property test judges behaviour, never speed (speed goals
# live in bench/). Without this, a loaded machine fails property tests on Hypothesis's deadline
# and its too_slow health check, although every example passed.
settings.register_profile(
    "shared-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "shared-machine"))

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOG", "ERROR")
# The interface speaks English in tests whatever the machine's locale; a test of another language
# asks for it (--lang, i18n.use_language) or clears this.
os.environ["FORMSPEC_LANGUAGE"] = "en"
# Never let a developer's real keys or config leak into a test run.
for _var in list(os.environ):
    if _var.endswith("_API_KEY") or _var in {"FORMSPEC_MODEL", "FORMSPEC_LLM_API_KEY"}:
        os.environ.pop(_var)


class NetworkBlocked(RuntimeError):
    """A test tried to reach a non-loopback address."""


def _is_loopback(host: object) -> bool:
    if not isinstance(host, str):
        return True  # unix sockets and the like
    if host in {"localhost", ""}:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


def _guarded_connect(self: socket.socket, address: object) -> object:
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):  # type: ignore[index]
        raise NetworkBlocked(f"test tried to connect to {address!r}; tests never touch the network")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> object:
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):  # type: ignore[index]
        raise NetworkBlocked(f"test tried to connect to {address!r}; tests never touch the network")
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
    if isinstance(host, bytes):
        host = host.decode()
    if host is not None and not _is_loopback(host):
        raise NetworkBlocked(f"test tried to resolve {host!r}; tests never touch the network")
    return _real_getaddrinfo(host, *args, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)


@pytest.fixture(autouse=True)
def _private_user_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's config folder (config.yaml, trusted folders) is a fresh one per test: a
    developer's own settings and trust never leak in, and a test's trust never leaks out."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
