"""Which language the interface speaks: --lang, else the `language` setting, else the locale, else English."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from formspec_consult import i18n
from formspec_consult.commands.language import interface_language
from formspec_consult.config import ConfigError, load_settings
from formspec_consult.i18n import UnknownLanguage, resolve_language


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "en"),
        ({"LANG": "id_ID.UTF-8"}, "id"),
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "id_ID.UTF-8"}, "id"),
        ({"LANG": "id_ID.UTF-8", "LC_ALL": "C"}, "en"),  # LC_ALL wins, and C means English
        ({"LC_ALL": "id_ID.UTF-8", "LANG": "en_GB.UTF-8"}, "id"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),  # no French catalogue: English, quietly
        ({"LANG": "fr_FR.UTF-8", "LANGUAGE": "fr:id"}, "id"),  # gettext's preference list
        ({"LANG": "C.UTF-8", "LANGUAGE": "id"}, "en"),  # LANGUAGE does not count under the C locale
        ({"LANG": "id"}, "id"),
    ],
)
def test_the_locale_decides_when_nothing_else_does(environ: dict[str, str], expected: str) -> None:
    assert resolve_language(environ=environ) == expected


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "ms_MY.UTF-8"}, "ms"),  # no Malay catalogue, but the owner's locale is Malay
        ({"LANG": "C.UTF-8"}, None),
        ({"LANG": "en_US.UTF-8", "LC_ALL": "id_ID.UTF-8"}, "id"),
        ({"LANG": "id_ID.UTF-8", "LANGUAGE": "ms:id"}, "ms"),
    ],
)
def test_the_locale_s_own_language_is_known_without_a_catalogue(environ: dict[str, str], expected: str | None) -> None:
    assert i18n.locale_language(environ) == expected


def test_the_flag_beats_the_setting_and_the_setting_beats_the_locale() -> None:
    env = {"LANG": "en_US.UTF-8"}
    assert resolve_language("id", "en", env) == "id"
    assert resolve_language(None, "id", env) == "id"
    assert resolve_language("en", None, {"LANG": "id_ID.UTF-8"}) == "en"
    assert resolve_language("id-ID", None, env) == "id"


def test_a_language_asked_for_by_name_without_a_catalogue_is_an_error_naming_the_available_ones() -> None:
    with pytest.raises(UnknownLanguage, match=r"'fr'.*en, id"):
        resolve_language("fr", None, {})
    with pytest.raises(UnknownLanguage):
        resolve_language(None, "klingon", {})


def test_the_language_setting_is_read_from_the_project_and_the_environment(tmp_path: Path) -> None:
    (tmp_path / "formspec-app.yaml").write_text("name: shop\n")
    (tmp_path / ".formspec").mkdir()
    (tmp_path / ".formspec" / "consult.yaml").write_text("language: id\n")
    user = tmp_path / "user.yaml"
    settings = load_settings(tmp_path, {}, env={}, user_config=user)
    assert settings.language == "id"
    assert load_settings(tmp_path, {"language": "en"}, env={}, user_config=user).language == "en"
    assert interface_language(None, tmp_path, {"LANG": "en_US.UTF-8"}) == "id"
    assert interface_language("en", tmp_path, {}) == "en"
    assert interface_language(None, tmp_path, {"FORMSPEC_LANGUAGE": "en", "LANG": "id_ID.UTF-8"}) == "en"


def test_a_bad_language_setting_says_which_languages_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"'language'.*available in en, id"):
        load_settings(None, {}, env={"FORMSPEC_LANGUAGE": "xx"}, user_config=tmp_path / "none.yaml")


def test_lang_flag_chooses_the_language_of_the_command_line_messages(tmp_path: Path) -> None:
    from formspec_consult.cli import cli

    runner = CliRunner()
    try:
        english = runner.invoke(cli, ["--project", str(tmp_path), "sessions"], env={"LANG": "id_ID.UTF-8", "FORMSPEC_LANGUAGE": ""})
        assert i18n.current_language() == "id"
        runner.invoke(cli, ["--lang", "en", "--project", str(tmp_path), "sessions"], env={"LANG": "id_ID.UTF-8"})
        assert i18n.current_language() == "en"
        bad = runner.invoke(cli, ["--lang", "xx", "sessions"])
        assert bad.exit_code == 2
        assert "unknown language 'xx'" in bad.output and "en, id" in bad.output
    finally:
        i18n.use_language("en")
    del english


def test_numbers_dates_and_money_follow_the_interface_locale() -> None:
    from datetime import datetime

    try:
        i18n.use_language("id", "id_ID")
        assert i18n.format_number(1234567) == "1.234.567"
        assert i18n.format_number(0.5, decimals=2) == "0,50"
        assert i18n.format_money(0.0123, decimals=4) == "US$0,0123"
        assert i18n.format_money(15000, "IDR") == "Rp15.000"
        assert "Des" in i18n.format_datetime(datetime(2026, 12, 2, 13, 30))
        i18n.use_language("en")
        assert i18n.format_number(1234567) == "1,234,567"
        assert i18n.format_money(0.0123, decimals=4) == "$0.0123"
    finally:
        i18n.use_language("en")


def test_a_command_speaks_indonesian_for_an_indonesian_owner(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "formspec-app.yaml").write_text("name: shop\n")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "id_ID.UTF-8"}
    run = subprocess.run([sys.executable, "-m", "formspec_consult", "--project", str(tmp_path), "sessions"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert run.stdout.startswith("Belum ada sesi konsultasi di"), run.stdout + run.stderr
    run = subprocess.run([sys.executable, "-m", "formspec_consult", "--lang", "en", "--project", str(tmp_path), "sessions"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert run.stdout.startswith("No consultation sessions in"), run.stdout + run.stderr


def test_the_spawned_local_server_speaks_the_session_s_language(tmp_path: Path) -> None:
    """It writes the apply/undo/reject lines of transcript.md: in the person's language, not its own locale's."""
    from formspec_consult.commands.wiring import local_server_spec

    try:
        i18n.use_language("id")
        spec = local_server_spec(tmp_path, "s-1", in_memory=False, timeout=5.0)
    finally:
        i18n.use_language("en")
    assert spec.args[:4] == ("-m", "formspec_consult", "--lang", "id") and "mcp-serve" in spec.args
