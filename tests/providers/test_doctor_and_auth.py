"""`formspec-consult doctor` and `formspec-consult auth`, through the real command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from formspec_consult.cli import cli
from tests.fakes.keyrings import BrokenKeyring, MemoryKeyring
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

SECRET = "sk-ant-very-secret-1234"


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No real user config; the current folder is an empty FormSpec project."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    project = tmp_path / "shop"
    (project / "modules").mkdir(parents=True)
    monkeypatch.chdir(project)
    return project


def _run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)
    return result.exit_code, result.output


def test_doctor_without_a_model_says_what_to_set_and_fails() -> None:
    code, out = _run("doctor")
    assert code == 1
    assert "no model configured" in out and "FORMSPEC_MODEL" in out and "formspec-consult demo" in out


def test_doctor_shows_where_model_and_key_come_from_but_never_the_key(
    monkeypatch: pytest.MonkeyPatch, isolated: Path
) -> None:
    (isolated / ".formspec").mkdir()
    (isolated / ".formspec" / "consult.yaml").write_text("model: anthropic/claude-sonnet-4-5\ncompaction_threshold: 0.5\n")
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    assert _run("trust")[0] == 0  # a remote model in the project file waits for the folder's trust
    code, out = _run("doctor")
    assert code == 0, out
    assert f"anthropic/claude-sonnet-4-5  [from project config {isolated / '.formspec' / 'consult.yaml'}]" in out
    assert "key             env ANTHROPIC_API_KEY" in out
    assert "OS keyring (formspec-consult/anthropic) > ANTHROPIC_API_KEY > FORMSPEC_LLM_API_KEY" in out
    assert "context window  200,000 tokens (from litellm)" in out
    assert "compaction at   97,952 tokens (50% of usable" in out
    assert "OK — meets the minimum capability bar" in out
    assert SECRET not in out


def test_doctor_reports_a_missing_key_with_the_exact_fix() -> None:
    code, out = _run("--model", "deepseek/deepseek-chat", "doctor")
    assert code == 1
    assert "missing — run `formspec-consult auth set deepseek` or set DEEPSEEK_API_KEY" in out


def test_doctor_refuses_a_model_below_the_bar_unless_allowed() -> None:
    code, out = _run("doctor", "--model", "mystery", "--base-url", "http://127.0.0.1:9/v1")
    assert code == 1 and "REFUSED" in out and "tool calling    unknown" in out
    code, out = _run("doctor", "--model", "mystery", "--base-url", "http://127.0.0.1:9/v1",
                     "--context-window", "32000", "--allow-unvalidated")
    assert code == 0 and "BELOW THE BAR, allowed" in out and "32,000 tokens (from flag --context-window)" in out


def test_doctor_probe_confirms_tool_calling_against_an_endpoint(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(tool_calls=[{"name": "ping", "arguments": {"echo": "formspec"}}],
                                usage={"prompt_tokens": 60, "completion_tokens": 9}))
    code, out = _run("--model", "fake", "--base-url", fake_openai.url, "--context-window", "32000",
                     "--allow-unvalidated", "doctor", "--probe")
    assert code == 0, out
    assert "tool call       yes" in out and "60 in / 9 out (reported)" in out
    assert fake_openai.requests[0].body["tools"][0]["function"]["name"] == "ping"


def test_doctor_probe_fails_when_the_model_answers_without_the_tool(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(text="pong!"))
    code, out = _run("doctor", "--probe", "--model", "fake", "--base-url", fake_openai.url,
                     "--context-window", "32000", "--allow-unvalidated")
    assert code == 1 and "NO — it answered in text instead: 'pong!'" in out


def test_doctor_probe_reports_a_failed_request(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(status=401))
    code, out = _run("doctor", "--probe", "--model", "fake", "--base-url", fake_openai.url,
                     "--context-window", "32000", "--allow-unvalidated")
    assert code == 1 and "FAILED" in out and "the API key was rejected" in out


def test_doctor_names_a_broken_config_file(isolated: Path) -> None:
    (isolated / ".formspec").mkdir()
    (isolated / ".formspec" / "consult.yaml").write_text("max_steps: many\n")
    code, out = _run("doctor")
    assert code == 1 and "consult.yaml" in out and "'max_steps'" in out


def test_auth_set_stores_the_key_from_stdin_without_printing_it(memory_keyring: MemoryKeyring) -> None:
    code, out = _run("auth", "set", "anthropic", input=SECRET + "\n")
    assert code == 0 and SECRET not in out
    assert memory_keyring.store[("formspec-consult", "anthropic")] == SECRET
    code, out = _run("auth", "status")
    assert code == 0 and SECRET not in out
    assert next(line for line in out.splitlines() if line.startswith("anthropic")).split()[1] == "stored"


def test_a_stored_key_is_what_doctor_then_uses(memory_keyring: MemoryKeyring) -> None:
    _run("auth", "set", "openai", input="sk-openai\n")
    code, out = _run("--model", "openai/gpt-4o", "doctor")
    assert code == 0 and "key             OS keyring (formspec-consult/openai)" in out


def test_auth_remove_deletes_and_says_so_when_nothing_is_stored(memory_keyring: MemoryKeyring) -> None:
    memory_keyring.set_password("formspec-consult", "openai", "k")
    assert _run("auth", "remove", "openai")[0] == 0
    assert ("formspec-consult", "openai") not in memory_keyring.store
    code, out = _run("auth", "remove", "openai")
    assert code == 1 and "nothing to remove" in out


def test_auth_set_refuses_a_typo_and_an_empty_key(memory_keyring: MemoryKeyring) -> None:
    code, out = _run("auth", "set", "antropic", input="k\n")
    assert code == 2 and "did you mean 'anthropic'?" in out
    code, out = _run("auth", "set", "openai", input="\n")
    assert code == 1 and "nothing was stored" in out
    assert memory_keyring.store == {}


def test_auth_set_accepts_an_endpoint_host(memory_keyring: MemoryKeyring) -> None:
    assert _run("auth", "set", "gateway.example.com", input="gw\n")[0] == 0
    assert memory_keyring.store[("formspec-consult", "gateway.example.com")] == "gw"


def test_without_a_keyring_auth_points_to_the_environment_variable(broken_keyring: BrokenKeyring) -> None:
    code, out = _run("auth", "set", "anthropic", input="k\n")
    assert code == 1 and "set ANTHROPIC_API_KEY in your environment instead" in out
    code, out = _run("auth", "status")
    assert code == 0 and "keyring is not available" in out


def test_doctor_accepts_an_offline_scripted_model(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("- hello\n")
    code, out = _run("--model", f"scripted:{script}", "doctor")
    assert code == 0, out
    assert f"offline scripted provider (scripted:{script})" in out and "verdict         OK" in out


def test_doctor_lists_other_configured_settings_but_hides_the_registry_token(
    monkeypatch: pytest.MonkeyPatch, isolated: Path
) -> None:
    (isolated / ".formspec").mkdir()
    (isolated / ".formspec" / "consult.yaml").write_text(
        "max_steps: 9\nregistry_token: tok-secret\nmcpServers:\n  files: {command: npx}\n"
    )
    assert _run("trust")[0] == 0
    monkeypatch.setenv("FORMSPEC_TOOL_TIMEOUT", "12")
    _, out = _run("doctor")
    assert "max steps       9  [from project config" in out
    assert "tool timeout    12.0  [from env FORMSPEC_TOOL_TIMEOUT]" in out
    assert "mcp servers     files" in out and "registry token  (set, hidden)" in out
    assert "tok-secret" not in out


def test_doctor_probe_says_when_it_retries(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue(FakeReply(status=429, retry_after="0"), FakeReply(tool_calls=[{"name": "ping", "arguments": {}}]))
    code, out = _run("doctor", "--probe", "--model", "fake", "--base-url", fake_openai.url,
                     "--context-window", "32000", "--allow-unvalidated")
    assert code == 0, out
    assert "retry           openai/fake: rate limited" in out and "tool call       yes" in out


def test_auth_set_without_a_provider_uses_the_configured_models_account(
    memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORMSPEC_MODEL", "deepseek/deepseek-chat")
    assert _run("auth", "set", input="ds-key\n")[0] == 0
    assert memory_keyring.store == {("formspec-consult", "deepseek"): "ds-key"}


def test_auth_set_without_a_provider_or_a_model_asks_for_one(memory_keyring: MemoryKeyring) -> None:
    code, out = _run("auth", "set", input="k\n")
    assert code == 2 and "name the provider" in out and memory_keyring.store == {}
