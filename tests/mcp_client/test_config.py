"""The mcpServers JSON config: shapes, ${VAR} expansion, named errors, a minimal environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.mcp_client.config import (
    MCPConfigError,
    load_servers_file,
    parse_servers,
    safe_environment,
)


def test_stdio_and_url_servers_are_parsed_with_variables_expanded() -> None:
    config = {
        "mcpServers": {
            "files": {
                "command": "${TOOLS}/srv",
                "args": ["--root", "${ROOT:-/srv}"],
                "env": {"K": "${TOKEN}"},
            },
            "remote": {"url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
        }
    }
    files, remote = parse_servers(config, {"TOOLS": "/opt", "TOKEN": "t0k", "HOST": "example.org"})
    assert (files.command, files.args, dict(files.env)) == ("/opt/srv", ("--root", "/srv"), {"K": "t0k"})
    assert files.transport == "stdio"
    assert remote.url == "https://example.org/mcp"
    assert dict(remote.headers) == {"Authorization": "Bearer t0k"}
    assert remote.transport == "http"


def test_a_missing_variable_is_an_error_naming_the_variable_and_the_server() -> None:
    with pytest.raises(
        MCPConfigError, match=r"mcpServers\.x\.env\.K: environment variable SECRET is not set"
    ):
        parse_servers({"mcpServers": {"x": {"command": "srv", "env": {"K": "${SECRET}"}}}}, {})


def test_an_empty_variable_takes_the_default_like_the_shell() -> None:
    (spec,) = parse_servers({"mcpServers": {"x": {"command": "${CMD:-srv}"}}}, {"CMD": ""})
    assert spec.command == "srv"


def test_a_server_without_command_or_url_is_refused_with_what_to_write() -> None:
    with pytest.raises(MCPConfigError, match="needs 'command'.*or 'url'"):
        parse_servers({"mcpServers": {"x": {"args": []}}}, {})


def test_a_broken_config_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(MCPConfigError, match="is not valid JSON"):
        load_servers_file(path, {})


def test_the_child_environment_keeps_path_and_drops_api_keys() -> None:
    env = safe_environment({"OWN": "1"}, {"PATH": "/bin", "OPENAI_API_KEY": "sk-x", "LANG": "C.UTF-8"})
    assert env == {"PATH": "/bin", "LANG": "C.UTF-8", "OWN": "1"}
