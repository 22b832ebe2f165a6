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
    with pytest.raises(MCPConfigError, match=r"needs 'command'.*or 'url'"):
        parse_servers({"mcpServers": {"x": {"args": []}}}, {})


def test_a_broken_config_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(MCPConfigError, match="is not valid JSON"):
        load_servers_file(path, {})


def test_the_child_environment_keeps_path_and_drops_api_keys() -> None:
    env = safe_environment({"OWN": "1"}, {"PATH": "/bin", "OPENAI_API_KEY": "sk-x", "LANG": "C.UTF-8"})
    assert env == {"PATH": "/bin", "LANG": "C.UTF-8", "OWN": "1"}


def test_env_colon_variables_are_expanded_like_plain_ones() -> None:
    (spec,) = parse_servers(
        {"mcpServers": {"x": {"url": "https://${env:HOST}/mcp", "headers": {"Authorization": "Bearer ${env:T}"}}}},
        {"HOST": "example.org", "T": "t0k"},
    )
    assert spec.url == "https://example.org/mcp" and dict(spec.headers) == {"Authorization": "Bearer t0k"}
    with pytest.raises(MCPConfigError, match=r"mcpServers\.y\.command: environment variable GONE is not set"):
        parse_servers({"mcpServers": {"y": {"command": "${env:GONE}"}}}, {})


def test_a_disabled_server_is_left_out_even_when_its_variables_are_unset() -> None:
    specs = parse_servers(
        {"mcpServers": {"off": {"command": "${NOT_SET}", "disabled": True}, "on": {"command": "srv", "disabled": False}}},
        {},
    )
    assert [spec.name for spec in specs] == ["on"]
    with pytest.raises(MCPConfigError, match=r"mcpServers\.off\.disabled: expected true or false"):
        parse_servers({"mcpServers": {"off": {"command": "srv", "disabled": "yes"}}}, {})


def test_type_sse_selects_the_legacy_transport_and_http_spellings_select_streamable_http() -> None:
    sse, http, plain = parse_servers(
        {
            "mcpServers": {
                "old": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
                "new": {"type": "streamableHttp", "url": "http://127.0.0.1:1/mcp"},
                "bare": {"url": "http://127.0.0.1:1/mcp"},
            }
        },
        {},
    )
    assert (sse.transport, http.transport, plain.transport) == ("sse", "http", "http")


def test_an_unknown_type_or_a_type_without_its_endpoint_is_refused_with_what_to_write() -> None:
    with pytest.raises(MCPConfigError, match=r"mcpServers\.x\.type: unknown transport 'websocket'; use stdio, http"):
        parse_servers({"mcpServers": {"x": {"type": "websocket", "url": "ws://h"}}}, {})
    with pytest.raises(MCPConfigError, match=r"mcpServers\.x: type 'sse' needs a 'url'"):
        parse_servers({"mcpServers": {"x": {"type": "sse", "command": "srv"}}}, {})


def test_servers_without_their_own_timeout_take_the_session_tool_timeout() -> None:
    own, inherited = parse_servers(
        {"mcpServers": {"own": {"command": "srv", "timeout": 5}, "inherited": {"command": "srv"}}},
        {},
        default_timeout=300.0,
    )
    assert (own.timeout, inherited.timeout) == (5.0, 300.0)
    with pytest.raises(MCPConfigError, match=r"mcpServers\.x\.timeout: expected a number of seconds above 0"):
        parse_servers({"mcpServers": {"x": {"command": "srv", "timeout": "soon"}}}, {})
