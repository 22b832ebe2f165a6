"""The client's registry token: environment first, then the OS keyring (`registry token set`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from formspec_consult.cli import cli
from formspec_consult.providers.registry_credentials import registry_account, registry_token
from tests.fakes.keyrings import BrokenKeyring, MemoryKeyring, installed

URL = "https://registry.example:8443/mcp"


@pytest.fixture
def memory() -> Iterator[MemoryKeyring]:
    with installed(MemoryKeyring()) as backend:
        yield backend


def test_token_set_stores_it_per_registry_host_and_the_lookup_finds_it(memory: MemoryKeyring) -> None:
    result = CliRunner().invoke(cli, ["registry", "token", "set", URL], input="tok-123\n")
    assert result.exit_code == 0, result.output
    assert memory.store == {("formspec-consult", "registry:registry.example:8443"): "tok-123"}
    assert registry_token(URL, environ={}) == (
        "tok-123",
        "OS keyring (formspec-consult/registry:registry.example:8443)",
    )
    assert registry_token("https://other.example/mcp", environ={})[0] is None


def test_the_environment_wins_over_the_keyring(memory: MemoryKeyring) -> None:
    memory.set_password("formspec-consult", registry_account(URL), "from-keyring")
    token, source = registry_token(URL, environ={"FORMSPEC_REGISTRY_TOKEN": "from-env"})
    assert (token, source) == ("from-env", "env FORMSPEC_REGISTRY_TOKEN")


def test_token_clear_forgets_it(memory: MemoryKeyring) -> None:
    memory.set_password("formspec-consult", registry_account(URL), "tok")
    assert "Removed" in CliRunner().invoke(cli, ["registry", "token", "clear", URL]).output
    assert "No token was stored" in CliRunner().invoke(cli, ["registry", "token", "clear", URL]).output


def test_a_broken_keyring_is_a_note_not_a_crash() -> None:
    with installed(BrokenKeyring()):
        token, note = registry_token(URL, environ={})
        failed = CliRunner().invoke(cli, ["registry", "token", "set", URL, "--token", "x"])
    assert token is None and "keyring unavailable" in note
    assert failed.exit_code == 1 and "FORMSPEC_REGISTRY_TOKEN" in failed.output


def test_a_url_that_is_not_http_is_refused_clearly(memory: MemoryKeyring) -> None:
    result = CliRunner().invoke(cli, ["registry", "token", "set", "registry.example", "--token", "x"])
    assert result.exit_code == 1 and "not a registry URL" in result.output


def test_the_engine_sends_the_keyring_token_to_a_configured_registry(
    memory: MemoryKeyring, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from formspec_consult.commands.wiring import registry_server_spec
    from formspec_consult.config import load_settings

    monkeypatch.delenv("FORMSPEC_REGISTRY_TOKEN", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    CliRunner().invoke(cli, ["registry", "token", "set", URL], input="tok-kr\n")
    settings = load_settings(tmp_path, {"registry_url": URL})
    spec = registry_server_spec(settings, tmp_path, timeout=5.0)
    assert spec is not None and spec.url == URL
    assert dict(spec.headers) == {"Authorization": "Bearer tok-kr"}
