"""Headless mode and the review commands, through the real command line (stdio MCP server)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from formspec_consult.store.events import EventLog
from formspec_consult.store.layout import MCP_REGISTRY_LOG, MCP_SERVER_LOG
from tests.e2e.cli import cli_env, run_cli, write_script
from tests.e2e.project import CUSTOMER, DRAFT_PATH

pytestmark = pytest.mark.slow


def propose_turn() -> dict[str, object]:
    return {
        "tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": CUSTOMER}}]
    }


def only_session(project: Path) -> Path:
    (folder,) = [p for p in (project / ".formspec" / "consult").iterdir() if p.is_dir()]
    return folder


def test_one_prompt_prints_the_reply_on_stdout_and_tool_calls_on_stderr(
    project: Path, tmp_path: Path
) -> None:
    script = write_script(tmp_path / "s.yaml", [propose_turn(), "I drafted the customer list."])
    result = run_cli(["-m", f"scripted:{script}", "-p", "we have customers"], project, cli_env(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "I drafted the customer list.\n"
    assert "→ propose_spec_file" in result.stderr and "✓ propose_spec_file" in result.stderr
    assert "tokens (reported)" in result.stderr.splitlines()[-1]
    assert (only_session(project) / "draft").is_dir()
    assert "I drafted the customer list." in (only_session(project) / "transcript.md").read_text(
        encoding="utf-8"
    )


def test_stdin_turns_and_json_events(project: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yaml", ["Which do you prefer?\nA) Cards\nB) Cash", "Cash it is."])
    result = run_cli(
        ["-m", f"scripted:{script}", "-p", "-", "--json"], project, cli_env(tmp_path), stdin="hello\nB\n"
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["model"].startswith("scripted:")
    starts = [line["user_text"] for line in lines if line["type"] == "turn_started"]
    assert starts == ["hello", "[chosen: B) Cash]"]
    assert [line["reason"] for line in lines if line["type"] == "turn_finished"] == ["done", "done"]
    assert lines[-1]["type"] == "status" and lines[-1]["turn"] == 2 and lines[-1]["context_tokens"] > 0


def test_without_a_model_it_says_how_to_configure_one_and_offers_the_demo(
    project: Path, tmp_path: Path
) -> None:
    result = run_cli(["-p", "hello"], project, cli_env(tmp_path))
    assert result.returncode == 2
    assert (
        "--model" in result.stderr
        and "FORMSPEC_MODEL" in result.stderr
        and "formspec-consult demo" in result.stderr
    )
    assert not (project / ".formspec" / "consult").exists() or not any(
        (project / ".formspec" / "consult").iterdir()
    )


def test_outside_a_project_it_says_so_and_writes_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    script = write_script(tmp_path / "s.yaml", ["hi"])
    result = run_cli(["-m", f"scripted:{script}", "-p", "hello"], empty, cli_env(tmp_path))
    assert result.returncode == 2 and "is not a FormSpec project" in result.stderr
    assert "formspec-consult init" in result.stderr  # what to run instead: this package has it
    assert list(empty.iterdir()) == []


def test_an_error_the_person_can_fix_is_said_in_one_line_with_exit_2_never_a_traceback(
    project: Path, tmp_path: Path
) -> None:
    # Errors of different layers (a session the store cannot find, an MCP config the client
    # refuses), each a UserError: caught by type at the composition root, said as they are.
    script = write_script(tmp_path / "s.yaml", ["hi"])
    unknown = run_cli(["-m", f"scripted:{script}", "-p", "hello", "--resume", "20990101-000000-nosuch"],
                      project, cli_env(tmp_path))
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr, unknown.stderr
    assert "20990101-000000-nosuch" in unknown.stderr
    (project / ".formspec").mkdir(exist_ok=True)
    bad = {"mcpServers": {"helper": {"type": "carrier-pigeon", "command": "true"}}}
    (project / ".formspec" / "consult.yaml").write_text(yaml.safe_dump(bad), encoding="utf-8")
    refused = run_cli(["-m", f"scripted:{script}", "-p", "hello", "--trust-project"], project, cli_env(tmp_path))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
    assert "carrier-pigeon" in refused.stderr


# Ten real command lines, each two interpreters importing the MCP SDK (the command and the local
# server it spawns): 25-30 CPU-s measured on the 2-core dev machine, so about 150 s of wall at load
# 10. The bound is a hang guard for that work, not a speed goal.
@pytest.mark.timeout(400)
def test_review_commands_diff_apply_undo_and_list_sessions(project: Path, tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    script = write_script(tmp_path / "s.yaml", [propose_turn(), "Drafted."])
    assert run_cli(["-m", f"scripted:{script}", "-p", "customers"], project, env).returncode == 0
    diff = run_cli(["diff"], project, env)
    assert diff.returncode == 0 and "+    - {name: phone, type: string}" in diff.stdout
    applied = run_cli(["apply", "--all"], project, env)
    assert applied.returncode == 0, applied.stderr
    target = project / "spec" / DRAFT_PATH
    assert target.read_text(encoding="utf-8") == CUSTOMER
    undone = run_cli(["undo"], project, env)
    assert undone.returncode == 0 and not target.exists()
    assert f"back for review (accept it again with formspec-consult apply {DRAFT_PATH})" in undone.stdout
    nothing = run_cli(["undo"], project, env)
    assert nothing.returncode == 1 and "nothing to undo" in nothing.stderr
    listing = run_cli(["sessions", "--json"], project, env)
    (row,) = [json.loads(line) for line in listing.stdout.splitlines()]
    assert row["turns"] == 1 and row["state"] == "idle" and row["model"].startswith("scripted:")
    assert row["drafts"] == 1 and row["drafts_by_state"] == {"undone": 1}
    undone_diff = run_cli(["diff"], project, env)
    assert f"=== {DRAFT_PATH} (new, undone, valid) ===" in undone_diff.stdout
    again = run_cli(["apply", DRAFT_PATH], project, env)  # the undone draft is accepted again
    assert again.returncode == 0, again.stderr
    assert target.read_text(encoding="utf-8") == CUSTOMER
    (row,) = [json.loads(line) for line in run_cli(["sessions", "--json"], project, env).stdout.splitlines()]
    assert row["drafts"] == 1 and row["drafts_by_state"] == {"applied": 1}
    assert "1 draft (1 applied)" in run_cli(["sessions"], project, env).stdout
    kinds = [e["type"] for e in EventLog.read(only_session(project) / "events.jsonl")]
    assert kinds[:1] == ["session_started"] and "tool_result" in kinds
    assert kinds[-3:] == ["apply", "undo", "apply"]  # the shell's review actions are session history too


def test_a_review_command_starts_only_the_local_server_and_no_model_layer(
    project: Path, tmp_path: Path
) -> None:
    env = cli_env(tmp_path)
    script = write_script(tmp_path / "s.yaml", [propose_turn(), "Drafted."])
    assert run_cli(["-m", f"scripted:{script}", "-p", "customers"], project, env).returncode == 0
    marker = tmp_path / "extra-server-started"
    extra = {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}
    (project / ".formspec" / "consult.yaml").write_text(
        yaml.safe_dump({"mcpServers": {"extra": extra}}), encoding="utf-8"
    )
    consult = project / ".formspec" / "consult"
    for log in (MCP_REGISTRY_LOG, MCP_SERVER_LOG):  # the consultation started both servers
        (consult / log).unlink(missing_ok=True)
    diff = run_cli(["diff"], project, {**env, "PYTHONPROFILEIMPORTTIME": "1"})
    assert diff.returncode == 0 and "+    - {name: phone, type: string}" in diff.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in diff.stderr.splitlines() if "|" in line}
    assert "formspec_consult.store.review_flow" in imported and "mcp" in imported  # the list is real
    assert not {name for name in imported if name.split(".")[0] in ("litellm", "textual", "tiktoken")}
    assert not {name for name in imported if name.startswith("formspec_consult.providers.litellm")}
    assert not marker.exists() and not (consult / MCP_REGISTRY_LOG).exists()
    assert (consult / MCP_SERVER_LOG).is_file()  # the local server, the one it needs, did start


def test_reject_of_an_unknown_draft_is_a_clear_error(project: Path, tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    script = write_script(tmp_path / "s.yaml", ["hi"])
    assert run_cli(["-m", f"scripted:{script}", "-p", "hello"], project, env).returncode == 0
    result = run_cli(["reject", "modules/shop/nothing.yaml"], project, env)
    assert result.returncode == 1 and "There is no draft for 'modules/shop/nothing.yaml'" in result.stderr


def entity(name: str, module: str) -> str:
    return (
        f"apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {{name: {name}, module: {module}}}\n"
        "spec:\n  version: v1\n  characteristic: master\n  display_field: label\n"
        "  fields:\n    - {name: label, type: string, required: true}\n"
    )


@pytest.mark.timeout(400)
def test_a_project_from_init_is_consulted_into_and_apply_without_a_path_applies_the_only_draft(
    tmp_path: Path,
) -> None:
    env = cli_env(tmp_path)
    shop = tmp_path / "toko"
    made = run_cli(["init", "Toko Sri", "--dir", str(shop)], tmp_path, env)
    assert made.returncode == 0, made.stderr
    customer, product = (f"modules/toko-sri/master/{n}/entity.yaml" for n in ("customer", "product"))
    proposals = [
        {"name": "propose_spec_file", "arguments": {"path": path, "content": entity(name, "toko-sri")}}
        for path, name in ((customer, "customer"), (product, "product"))
    ]
    script = write_script(tmp_path / "s.yaml", [{"tool_calls": proposals}, "Drafted."])
    assert run_cli(["-m", f"scripted:{script}", "-p", "we sell things"], shop, env).returncode == 0

    several = run_cli(["apply"], shop, env)  # two drafts wait: nothing is applied, both are named
    assert several.returncode == 1
    assert f"(drafts: {customer}, {product})" in several.stderr and "formspec-consult apply PATH" in several.stderr
    assert not (shop / "spec" / customer).exists() and not (shop / "spec" / product).exists()

    assert run_cli(["reject", product], shop, env).returncode == 0
    applied = run_cli(["apply"], shop, env)  # the only draft left
    assert applied.returncode == 0, applied.stderr
    assert (shop / "spec" / customer).read_text(encoding="utf-8") == entity("customer", "toko-sri")
    from formspec_consult.spec import open_project

    assert open_project(shop).validate().ok

    none_left = run_cli(["apply"], shop, env)
    assert none_left.returncode == 1 and "There is no draft to apply" in none_left.stderr
    both = run_cli(["apply", customer, "--all"], shop, env)
    assert both.returncode == 2 and "not both" in both.stderr
