"""Suite-wide guards: no test may reach the network, and litellm stays offline."""

from __future__ import annotations

import ipaddress
import os
import socket
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests.e2e.project import make_project
from tests.fakes.fixtures import fake_anthropic, fake_openai  # noqa: F401  (shared fixtures)

USER_DIRS = {"XDG_CONFIG_HOME": "config", "XDG_CACHE_HOME": "cache", "XDG_DATA_HOME": "data",
             "XDG_STATE_HOME": "state"}

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


Address = tuple[Any, ...] | str | bytes  # what socket.connect takes


def _refuse_remote(sock: socket.socket, address: Address) -> None:
    """Raise NetworkBlocked when an internet socket would reach a host other than this machine."""
    if sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple) \
            and not _is_loopback(address[0]):
        raise NetworkBlocked(f"test tried to connect to {address!r}; tests never touch the network")


def _guarded_connect(self: socket.socket, address: Address) -> None:
    _refuse_remote(self, address)
    _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Address) -> int:
    _refuse_remote(self, address)
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(
    host: bytes | str | None, port: bytes | str | int | None, *args: Any, **kwargs: Any
) -> list[Any]:
    name = host.decode() if isinstance(host, bytes) else host
    if name is not None and not _is_loopback(name):
        raise NetworkBlocked(f"test tried to resolve {name!r}; tests never touch the network")
    return _real_getaddrinfo(host, port, *args, **kwargs)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)


@pytest.fixture(autouse=True)
def _private_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's folders are fresh ones per test: config (config.yaml, trusted folders), cache
    (the official schemas), data and state. A developer's own settings, trust and cached schemas
    never leak in, and a test's never leak out. (The package finds them through platformdirs,
    which reads these variables on Linux; it reads no other path under HOME. HOME itself stays:
    the npm and tmux tools of the test setup keep their caches there.)"""
    base = tmp_path_factory.mktemp("user")
    for var, name in USER_DIRS.items():
        (base / name).mkdir()
        monkeypatch.setenv(var, str(base / name))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The small shop project (`tests/e2e/project.py`) in `tmp_path/shop`, with a registry
    database of its own. A test directory that needs another project overrides this fixture."""
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    return make_project(tmp_path / "shop")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
