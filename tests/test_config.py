"""Settings precedence and config-file errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.config import ConfigError, Settings, load_settings


@pytest.fixture
def layers(tmp_path: Path) -> tuple[Path, Path]:
    user = tmp_path / "user" / "config.yaml"
    user.parent.mkdir()
    project = tmp_path / "project"
    (project / ".formspec").mkdir(parents=True)
    return user, project


def _load(user: Path, project: Path | None, env: dict[str, str] | None = None, **flags: object) -> Settings:
    return load_settings(project, flags, env=env or {}, user_config=user)


def test_defaults_apply_when_nothing_is_configured(layers: tuple[Path, Path]) -> None:
    user, project = layers
    settings = _load(user, project)
    assert settings.model is None
    assert (settings.compaction_threshold, settings.max_steps, settings.tool_result_cap) == (0.75, 25, 8000)
    assert settings.tool_timeout == 60.0 and settings.reserved_output == 4096
    assert settings.source_of("model") == "default"


def test_each_layer_overrides_the_one_before(layers: tuple[Path, Path]) -> None:
    user, project = layers
    user.write_text("model: openai/gpt-4o\ncontext_window: 1000\nmax_steps: 3\ntool_timeout: 5\n")
    (project / ".formspec" / "consult.yaml").write_text("model: anthropic/claude-x\ncontext_window: 2000\n")
    env = {"FORMSPEC_CONTEXT_WINDOW": "3000", "FORMSPEC_BASE_URL": "http://localhost:11434/v1"}
    settings = _load(user, project, env, context_window=None, model="deepseek/deepseek-chat")
    assert settings.model == "deepseek/deepseek-chat"
    assert settings.source_of("model") == "flag --model"
    assert settings.context_window == 3000
    assert settings.source_of("context_window") == "env FORMSPEC_CONTEXT_WINDOW"
    assert settings.max_steps == 3 and settings.tool_timeout == 5.0
    assert settings.source_of("max_steps") == f"user config {user}"
    assert settings.base_url == "http://localhost:11434/v1"


def test_project_config_beats_user_config(layers: tuple[Path, Path]) -> None:
    user, project = layers
    user.write_text("model: openai/gpt-4o\n")
    (project / ".formspec" / "consult.yaml").write_text("model: anthropic/claude-x\n")
    settings = _load(user, project, trust_project=True)  # a remote model waits for the folder's trust
    assert settings.model == "anthropic/claude-x"
    assert settings.source_of("model").startswith("project config ")


def test_an_unpassed_boolean_flag_does_not_turn_off_the_config(layers: tuple[Path, Path]) -> None:
    user, project = layers
    user.write_text("allow_unvalidated: true\n")
    assert _load(user, project, allow_unvalidated=False).allow_unvalidated is True
    assert _load(user, project, {"FORMSPEC_ALLOW_UNVALIDATED": "no"}).allow_unvalidated is False


def test_mcp_servers_accepts_the_common_json_key(layers: tuple[Path, Path]) -> None:
    user, project = layers
    user.write_text("mcpServers:\n  files:\n    command: npx\n    args: [server-files]\n")
    assert _load(user, project).mcp_servers == {"files": {"command": "npx", "args": ["server-files"]}}
    env = {"FORMSPEC_MCP_SERVERS": '{"web": {"url": "http://localhost:9/mcp"}}'}
    assert _load(user, project, env).mcp_servers == {"web": {"url": "http://localhost:9/mcp"}}


def test_flags_that_are_not_settings_are_ignored(layers: tuple[Path, Path]) -> None:
    user, project = layers
    flags = {"prompt": "hi", "json_output": True, "project": None, "continue_": False}
    assert load_settings(project, flags, env={}, user_config=user).model is None


def test_unknown_key_error_names_the_file_and_suggests_the_right_key(layers: tuple[Path, Path]) -> None:
    user, project = layers
    config = project / ".formspec" / "consult.yaml"
    config.write_text("modle: openai/gpt-4o\n")
    with pytest.raises(ConfigError) as error:
        _load(user, project)
    assert str(config) in str(error.value) and "'modle'" in str(error.value)
    assert "did you mean 'model'?" in str(error.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("context_window: lots\n", "'context_window' = 'lots' is not valid (expected a whole number"),
        ("context_window: 1000.5\n", "expected a whole number"),
        ("tool_timeout: soon\n", "expected a number"),
        ("context_window: -5\n", "must be greater than 0"),
        ("compaction_threshold: 1.5\n", "between 0 and 1"),
        ("allow_unvalidated: maybe\n", "expected true or false"),
        ("mcp_servers: [a, b]\n", "expected a mapping of server name"),
        ("- just\n- a list\n", "must be a mapping of settings"),
        ("model: [unclosed\n", "is not valid YAML at line"),
        ("context_window: " + "9" * 5000 + "\n", "holds a value it cannot read (Exceeds the limit (4300 digits)"),
    ],
)
def test_bad_values_are_refused_with_the_file_key_and_fix(
    layers: tuple[Path, Path], text: str, expected: str
) -> None:
    user, project = layers
    user.write_text(text)
    with pytest.raises(ConfigError) as error:
        _load(user, project)
    assert str(user) in str(error.value)
    assert expected in str(error.value)


def test_a_bad_environment_value_names_the_variable(layers: tuple[Path, Path]) -> None:
    user, project = layers
    with pytest.raises(ConfigError, match="environment variable FORMSPEC_MAX_STEPS"):
        _load(user, project, {"FORMSPEC_MAX_STEPS": "0"})


def test_a_bad_flag_names_the_option(layers: tuple[Path, Path]) -> None:
    user, project = layers
    with pytest.raises(ConfigError, match="option --context-window"):
        _load(user, project, context_window=0)


def test_repr_never_shows_the_registry_token(layers: tuple[Path, Path]) -> None:
    user, project = layers
    user.write_text("registry_token: s3cr3t-token\n")
    settings = _load(user, project)
    assert settings.registry_token == "s3cr3t-token"
    assert "s3cr3t" not in repr(settings)


def test_without_a_project_only_user_config_env_and_flags_count(layers: tuple[Path, Path]) -> None:
    user, _ = layers
    user.write_text("model: openai/gpt-4o\n")
    assert _load(user, None).model == "openai/gpt-4o"


def test_the_user_config_lives_in_the_platform_config_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "formspec-consult").mkdir()
    (tmp_path / "formspec-consult" / "config.yaml").write_text("max_steps: 7\n")
    assert load_settings(None, {}, env={}).max_steps == 7
