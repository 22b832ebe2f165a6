"""The provider decision tree and the key lookup order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from formspec_consult.config import Settings
from formspec_consult.providers import ReplayProvider, ScriptedProvider, open_provider
from formspec_consult.providers.base import ProviderError
from formspec_consult.providers.litellm_provider import LiteLLMProvider
from formspec_consult.providers.resolve import resolve
from tests.fakes.keyrings import BrokenKeyring, MemoryKeyring


def test_no_model_names_every_place_to_set_one_and_the_demo() -> None:
    with pytest.raises(ProviderError) as error:
        open_provider(Settings(), env={})
    hint = error.value.hint
    for needle in ("--model", "FORMSPEC_MODEL", "config.yaml", ".formspec/consult.yaml", "formspec-consult demo"):
        assert needle in hint


def test_scripted_model_opens_the_script_with_the_configured_window(tmp_path: Path) -> None:
    script = tmp_path / "s.yaml"
    script.write_text("- hello\n")
    provider = open_provider(Settings(model=f"scripted:{script}", context_window=8000), env={})
    assert isinstance(provider, ScriptedProvider) and provider.context_window == 8000


def test_replay_model_opens_a_recorded_session(tmp_path: Path) -> None:
    events = [
        {"type": "session_started"},
        {"type": "message", "message": {"role": "user", "content": "hi"}},
        {"type": "message", "message": {"role": "assistant", "content": "Hello!"}},
    ]
    (tmp_path / "events.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    provider = open_provider(Settings(model=f"replay:{tmp_path}"), env={})
    assert isinstance(provider, ReplayProvider) and provider.remaining == 1


def test_a_provider_prefixed_model_goes_to_litellm_with_its_key() -> None:
    provider = open_provider(Settings(model="anthropic/claude-sonnet-4-5"), env={"ANTHROPIC_API_KEY": "sk-ant"})
    assert isinstance(provider, LiteLLMProvider)
    assert provider.model == "anthropic/claude-sonnet-4-5" and provider.api_base is None
    assert "sk-ant" not in repr(provider)
    assert provider.secret_values() == ("sk-ant",)  # what the event log must mask


def test_a_bare_name_with_a_base_url_becomes_an_openai_compatible_endpoint() -> None:
    settings = Settings(model="llama3.1:8b", base_url="http://127.0.0.1:11434/v1")
    resolution = resolve(settings, env={})
    assert (resolution.model, resolution.api_base) == ("openai/llama3.1:8b", "http://127.0.0.1:11434/v1")
    assert resolution.key is not None and resolution.key.source == "not needed (local endpoint)"
    provider = open_provider(settings, env={})
    assert isinstance(provider, LiteLLMProvider) and provider.api_base == settings.base_url


def test_an_org_slash_model_on_a_gateway_is_not_mistaken_for_a_provider() -> None:
    resolution = resolve(Settings(model="meta-llama/Llama-3-70b", base_url="http://10.0.0.5:8000/v1"), env={})
    assert resolution.model == "openai/meta-llama/Llama-3-70b"


@pytest.mark.parametrize("model", ["ollama_chat/qwen2.5", "ollama/llama3"])
def test_ollama_needs_no_key(model: str) -> None:
    assert isinstance(open_provider(Settings(model=model), env={}), LiteLLMProvider)


def test_a_bare_name_without_base_url_asks_for_a_provider_prefix() -> None:
    with pytest.raises(ProviderError, match="no provider prefix") as error:
        open_provider(Settings(model="gpt-4o"), env={})
    assert "openai/gpt-4o" in error.value.hint


def test_missing_key_error_names_the_keyring_command_and_every_variable() -> None:
    with pytest.raises(ProviderError, match="no API key for deepseek") as error:
        open_provider(Settings(model="deepseek/deepseek-chat"), env={})
    hint = error.value.hint
    assert "formspec-consult auth set deepseek" in hint
    assert "DEEPSEEK_API_KEY" in hint and "FORMSPEC_LLM_API_KEY" in hint and "formspec-consult demo" in hint


def test_keyring_beats_env_var_beats_generic_variable(memory_keyring: MemoryKeyring) -> None:
    settings = Settings(model="openai/gpt-4o")
    env = {"OPENAI_API_KEY": "from-env", "FORMSPEC_LLM_API_KEY": "generic"}
    assert resolve(settings, env={"FORMSPEC_LLM_API_KEY": "generic"}).key.source == "env FORMSPEC_LLM_API_KEY"  # type: ignore[union-attr]
    assert resolve(settings, env=env).key.source == "env OPENAI_API_KEY"  # type: ignore[union-attr]
    memory_keyring.set_password("formspec-consult", "openai", "from-keyring")
    lookup = resolve(settings, env=env).key
    assert lookup is not None and lookup.key == "from-keyring"
    assert lookup.source == "OS keyring (formspec-consult/openai)"
    assert "from-keyring" not in repr(lookup)


def test_a_broken_keyring_falls_through_to_the_environment(broken_keyring: BrokenKeyring) -> None:
    lookup = resolve(Settings(model="anthropic/claude-x"), env={"ANTHROPIC_API_KEY": "k"}).key
    assert lookup is not None and lookup.source == "env ANTHROPIC_API_KEY"
    assert lookup.notes == ("OS keyring unavailable (KeyringError)",)


def test_api_key_env_replaces_the_usual_variable() -> None:
    settings = Settings(model="openai/gpt-4o", api_key_env="WORK_OPENAI_KEY")
    lookup = resolve(settings, env={"OPENAI_API_KEY": "personal", "WORK_OPENAI_KEY": "work"}).key
    assert lookup is not None and (lookup.key, lookup.source) == ("work", "env WORK_OPENAI_KEY")


def test_a_remote_gateway_never_receives_the_openai_key(memory_keyring: MemoryKeyring) -> None:
    settings = Settings(model="openai/gpt-4o", base_url="https://gateway.example.com/v1")
    with pytest.raises(ProviderError) as error:
        open_provider(settings, env={"OPENAI_API_KEY": "sk-openai"})
    assert "auth set gateway.example.com" in error.value.hint and "OPENAI_API_KEY" not in error.value.hint
    memory_keyring.set_password("formspec-consult", "gateway.example.com", "gw-key")
    lookup = resolve(settings, env={}).key
    assert lookup is not None and lookup.key == "gw-key"


@pytest.mark.parametrize(
    ("model", "base_url", "variable"),
    [
        ("openai/gpt-4o", "https://gateway.example.com/v1", "OPENAI_API_KEY"),  # the case
        ("gpt-4o", "https://gateway.example.com/v1", "OPENAI_API_KEY"),  # the person's own --base-url
        ("anthropic/claude-x", "https://gateway.example.com", "ANTHROPIC_API_KEY"),  # any provider prefix
        ("anthropic/claude-x", None, "OPENAI_API_KEY"),  # one provider's key to another provider
    ],
)
def test_a_providers_variable_never_goes_to_another_endpoint_whoever_named_it(
    memory_keyring: MemoryKeyring, model: str, base_url: str | None, variable: str
) -> None:
    settings = Settings(model=model, base_url=base_url, api_key_env=variable)
    with pytest.raises(ProviderError) as error:
        open_provider(settings, env={variable: "sk-personal"})
    assert f"{variable} holds your" in error.value.hint and "sk-personal" not in str(error.value)


def test_a_providers_variable_still_goes_to_that_provider_and_a_gateways_own_variable_to_the_gateway(
    memory_keyring: MemoryKeyring,
) -> None:
    own = resolve(Settings(model="openai/gpt-4o", base_url="https://api.openai.com/v1", api_key_env="OPENAI_API_KEY"),
                  env={"OPENAI_API_KEY": "sk-openai"}).key
    assert own is not None and own.key == "sk-openai"
    gateway = resolve(Settings(model="gpt-4o", base_url="https://gateway.example.com/v1", api_key_env="GW_KEY"),
                      env={"GW_KEY": "gw", "OPENAI_API_KEY": "sk-openai"}).key
    assert gateway is not None and (gateway.key, gateway.source) == ("gw", "env GW_KEY")


@pytest.mark.parametrize("model", ["scripted:", "replay:  "])
def test_an_offline_model_without_a_path_is_refused(model: str) -> None:
    with pytest.raises(ProviderError, match="names no file"):
        open_provider(Settings(model=model), env={})


def test_importing_and_resolving_does_not_import_litellm() -> None:
    code = (
        "import sys\n"
        "from formspec_consult.config import Settings\n"
        "from formspec_consult.providers import open_provider, check_capability\n"
        "p = open_provider(Settings(model='openai/gpt-4o'), env={'OPENAI_API_KEY': 'k'})\n"
        "assert 'litellm' not in sys.modules, 'litellm was imported'\n"
        "assert 'openai' not in sys.modules, 'openai was imported'\n"
    )
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}  # never the real keychain
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr


def test_a_keyring_that_hangs_is_given_up_on_with_a_note() -> None:
    import threading

    import keyring

    release = threading.Event()

    class HangingKeyring(MemoryKeyring):
        def get_password(self, service: str, username: str) -> str | None:
            release.wait(10)
            return None

    keyring.set_keyring(HangingKeyring())
    try:
        from formspec_consult.providers.keys import keyring_get

        assert keyring_get("openai", timeout=0.2) == (None, "OS keyring did not answer within 0.2 s (locked?)")
    finally:
        release.set()
