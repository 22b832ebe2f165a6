"""Impossible start-ups fail in the shell before the app opens: exit code 2, one message that says
what to do (a folder that is not a project, a model without a provider, no key, a model litellm
does not know); a model litellm's map holds is checked without importing litellm."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from formspec_consult.cli import cli
from formspec_consult.commands import launch
from tests.helpers import copy_example


@pytest.fixture
def app_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[object]:
    """Records every start of the app (none is expected); no key, config or registry of the user."""
    started: list[object] = []
    def run_app(options: object) -> int:
        started.append(options)
        return 0

    monkeypatch.setattr(launch, "run_app", run_app)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "FORMSPEC_LLM_API_KEY", "FORMSPEC_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return started


def test_a_folder_that_is_not_a_project_fails_before_the_app_and_says_run_formspec_consult_init(
        tmp_path: Path, app_runs: list[object]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(cli, ["--model", "scripted:replies.yaml", "--project", str(empty)])
    assert result.exit_code == 2 and app_runs == []
    assert "is not a FormSpec project" in result.output and "formspec-consult init" in result.output
    assert "`formspec init`" not in result.output
    assert result.output.count("is not a FormSpec project") == 1


@pytest.mark.parametrize(("model", "env", "said"), [
    ("gpt-4o", {}, "has no provider prefix"),
    ("anthropic/claude-sonnet-4-5", {}, "no API key for anthropic"),
    ("openai/no-such-model-xyz", {"OPENAI_API_KEY": "sk-test"}, "litellm does not know openai/no-such-model-xyz"),
])
def test_a_model_that_cannot_start_fails_before_the_app_with_what_to_do(
        tmp_path: Path, app_runs: list[object], monkeypatch: pytest.MonkeyPatch,
        model: str, env: dict[str, str], said: str) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    project = copy_example(tmp_path)
    result = CliRunner().invoke(cli, ["--model", model, "--project", str(project)])
    assert result.exit_code == 2 and app_runs == [], result.output
    assert said in result.output and result.output.count(said) == 1
    if "does not know" in said:
        assert "--context-window" in result.output and "--allow-unvalidated" in result.output


def test_a_model_litellms_map_holds_is_checked_without_importing_litellm(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from formspec_consult.config import Settings\n"
        "from formspec_consult.providers.preflight import check_before_start\n"
        "check_before_start(Settings(model='anthropic/claude-sonnet-4-5'), env={'ANTHROPIC_API_KEY': 'sk-test'})\n"
        "print('litellm' in sys.modules)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
