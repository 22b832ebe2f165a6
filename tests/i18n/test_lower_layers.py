"""The lower layers speak the owner's language too: the engine's notices and slash-command usage
errors, /status and its MCP line, the permission question, and the errors of the settings, the
providers and the project — while what the model reads stays English."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

from formspec_consult import i18n
from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.agent.loop.permissions import PermissionRequest
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from formspec_consult.providers.errors import map_error
from formspec_consult.spec.discovery import find_root
from formspec_consult.spec.errors import ProjectError
from formspec_consult.store.agent_events import Notice


@pytest.fixture
def indonesian() -> Iterator[None]:
    i18n.use_language("id", "id_ID")
    try:
        yield
    finally:
        i18n.use_language("en")


async def said(engine: Engine, text: str) -> list[str]:
    with anyio.fail_after(30):
        return [e.message async for e in engine.run_turn(text) if isinstance(e, Notice)]


@pytest.mark.anyio
async def test_the_engine_s_notices_and_usage_errors_are_in_indonesian(project: Path, indonesian: None) -> None:
    engine = await Engine.open(EngineOptions(project=project, provider=ScriptedProvider([]), in_memory_server=True,
                                             servers=server_specs))
    try:
        assert (await said(engine, "/bogus"))[0].startswith("Perintah /bogus tidak dikenal. Perintah yang ada: /diff")
        assert await said(engine, "/reject") == ["Cara pakai: /reject <path draf> [alasan] (lihat /diff untuk path-nya)"]
        assert await said(engine, "/rewind") == ["Belum ada giliran untuk diputar balik."]
        status = (await said(engine, "/status"))[0]
        assert status.startswith("Model:") and "\nSesi:" in status and "fase Penggalian" in status
        assert "\nMCP:" in status and "berjalan (" in status and " alat)" in status
        assert "prompt tokens" not in status and "belum ada permintaan" in status
        mcp = await said(engine, "/mcp")
        assert mcp[0].startswith("MCP:") and "berjalan" in mcp[0]
        forked = await said(engine, "/fork")
        assert forked[0].startswith("Sesi ini dicabangkan (setelah giliran 0) sebagai ")
    finally:
        await engine.aclose()


def test_the_permission_question_is_in_the_owner_s_language(indonesian: None) -> None:
    request = PermissionRequest("c1", "apply_draft", {"path": "modules/shop/entities/booking.yaml"})
    assert request.summary == "Konsultan ingin menerapkan draf modules/shop/entities/booking.yaml."
    assert PermissionRequest("c2", "create_customer", {}, server="crm").action == (
        "menjalankan create_customer dari server MCP 'crm'")
    i18n.use_language("en")
    assert request.summary == "The consultant wants to apply the draft modules/shop/entities/booking.yaml."


def test_a_project_error_is_said_in_indonesian_and_given_to_the_model_in_english(
    tmp_path: Path, indonesian: None
) -> None:
    with pytest.raises(ProjectError) as caught:
        find_root(tmp_path / "nowhere")
    assert str(caught.value).startswith(f"{tmp_path / 'nowhere'} bukan proyek FormSpec: path tersebut tidak ada.")
    assert caught.value.untranslated().startswith(f"{tmp_path / 'nowhere'} is not a FormSpec project")


def test_a_provider_error_is_said_in_indonesian(indonesian: None) -> None:
    class AuthenticationError(Exception):
        status_code = 401

    error = map_error(AuthenticationError("bad key"), model="anthropic/claude", account="anthropic")
    assert str(error) == ("anthropic/claude: API key ditolak — simpan kunci yang sah dengan "
                          "`formspec-consult auth set anthropic`")


def test_cli_errors_of_the_settings_and_the_project_are_in_indonesian(tmp_path: Path) -> None:
    from formspec_consult.cli import cli

    (tmp_path / "shop" / ".formspec").mkdir(parents=True)
    (tmp_path / "shop" / "formspec-app.yaml").write_text("name: shop\n")
    (tmp_path / "shop" / ".formspec" / "consult.yaml").write_text("modle: x\n")
    runner = CliRunner()
    env = {"LANG": "id_ID.UTF-8", "FORMSPEC_LANGUAGE": "", "HOME": str(tmp_path)}
    try:
        bad_key = runner.invoke(cli, ["--project", str(tmp_path / "shop"), "-p", "halo"], env=env)
        assert bad_key.exit_code == 2, bad_key.output
        assert "kunci 'modle' tidak dikenal — maksud Anda 'model'?" in bad_key.output
        (tmp_path / "script.yaml").write_text("- Halo!\n")
        no_project = runner.invoke(cli, ["--project", str(tmp_path / "nowhere"), "--model",
                                         f"scripted:{tmp_path / 'script.yaml'}", "-p", "halo"], env=env)
        assert no_project.exit_code == 2, no_project.output
        assert "bukan proyek FormSpec" in no_project.output and "Nama usaha" in no_project.output
    finally:
        i18n.use_language("en")


def test_the_sessions_list_gives_dates_and_states_in_the_owner_s_locale(tmp_path: Path) -> None:
    import re

    from formspec_consult.cli import cli

    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "formspec-app.yaml").write_text("name: shop\n")
    (tmp_path / "script.yaml").write_text("- Halo! Usaha apa yang Anda jalankan?\n")
    runner = CliRunner()
    project = ["--project", str(tmp_path / "shop")]
    env = {"LANG": "id_ID.UTF-8", "FORMSPEC_LANGUAGE": "", "HOME": str(tmp_path)}
    try:
        turn = runner.invoke(cli, [*project, "--model", f"scripted:{tmp_path / 'script.yaml'}", "-p", "halo"], env=env)
        assert turn.exit_code == 0, turn.output
        indonesian = runner.invoke(cli, [*project, "sessions"], env=env)
        english = runner.invoke(cli, ["--lang", "en", *project, "sessions"], env=env)
    finally:
        i18n.use_language("en")
    # "siap … terakhir 2 Des 2026 18.30": the locale's month names, day-month order, 24-hour clock with a dot
    assert re.search(r" siap +  1 giliran .* terakhir \d{1,2} (Jan|Feb|Mar|Apr|Mei|Jun|Jul|Agu|Sep|Okt|Nov|Des) "
                     r"\d{4} \d{2}\.\d{2}$", indonesian.output.strip()), indonesian.output
    assert re.search(r" idle +  1 turn .* last (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d{4}, "
                     r"\d{1,2}:\d{2} [AP]M$", english.output.strip()), english.output


@pytest.mark.anyio
async def test_the_turn_list_says_a_picked_option_in_the_owner_s_words(project: Path, indonesian: None) -> None:
    provider = ScriptedProvider(["Bagaimana pelanggan dicatat?\n\nA) Dengan nama\nB) Cukup nomor antrean", "Baik."])
    engine = await Engine.open(EngineOptions(project=project, provider=provider, in_memory_server=True,
                                             servers=server_specs))
    try:
        await said(engine, "Saya punya usaha potong rambut di Bandung.")
        await said(engine, "A")
        listing = (await said(engine, "/rewind"))[0]
        assert listing.startswith("Giliran dalam percakapan ini (putar mundur dengan /rewind N")
        assert listing.splitlines()[1:] == ["  1  Saya punya usaha potong rambut di Bandung.",
                                            "  2  Anda memilih: A) Dengan nama"]  # recorded as [chosen: A) …]
    finally:
        await engine.aclose()


def test_help_lists_each_command_on_its_own_line_in_the_owner_s_language(indonesian: None) -> None:
    from formspec_consult.tui.slash import help_text

    text = help_text()
    assert "- `/language [kode]` — Tampilkan bahasa balasan, atau gantinya (mis. /language id)." in text.splitlines()
    assert "| `/" not in text  # not a table: its usage column was as wide as /rewind's, the text beside it cramped


def test_an_mcp_config_error_is_said_in_indonesian(indonesian: None) -> None:
    from formspec_consult.mcp_client.config import MCPConfigError, parse_servers

    with pytest.raises(MCPConfigError) as caught:
        parse_servers({"mcpServers": {"crm": {"url": "ftp://x", "type": "http"}}}, environ={})
    assert str(caught.value) == "mcpServers.crm.url: harus diawali http:// atau https:// (tertulis 'ftp://x')"
    assert caught.value.untranslated() == "mcpServers.crm.url: must start with http:// or https:// (got 'ftp://x')"
    with pytest.raises(MCPConfigError, match=r"variabel lingkungan CRM_TOKEN belum diatur .* \$\{CRM_TOKEN:-default\}"):
        parse_servers({"mcpServers": {"crm": {"command": "crm", "env": {"T": "${CRM_TOKEN}"}}}}, environ={})
