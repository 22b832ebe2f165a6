"""Command-line faults of issue 20, through the real `formspec-consult` process."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from tests.e2e.cli import REPO, cli_env, run_cli, write_script
from tests.e2e.project import make_project
from tests.integrity.scenarios import Observed, scenario

FAKE_SERVER = REPO / "tests" / "mcp_client" / "fake_server.py"


@scenario
def eval_case_file_not_utf8(request: pytest.FixtureRequest) -> Observed:
    """`eval --offline --corpus` on a folder with one bundled case and one case file of Latin-1 bytes."""
    from formspec_consult.eval.corpus import bundled_corpus

    tmp_path: Path = request.getfixturevalue("tmp_path")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    first = sorted(bundled_corpus().glob("*.yaml"))[0]
    shutil.copy(first, corpus / first.name)
    (corpus / "warung.yaml").write_bytes(b"id: warung\nopening: Saya punya warung kopi di Bogor\n"
                                        + b"notes: caf\xe9 \xa9\n")
    out = tmp_path / "out"
    done = run_cli(["eval", "--offline", "--corpus", str(corpus), "--out", str(out)], tmp_path, cli_env(tmp_path))
    return {
        "exit": done.returncode,
        "message": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "",
        "traceback": "Traceback" in done.stderr,
        "nothing_run": not out.exists(),
    }


@scenario
def replay_check_with_the_main_project_option(request: pytest.FixtureRequest) -> Observed:
    """`formspec-consult --project DIR replay ID --check`, run from another folder."""
    from formspec_consult.replay.sources import bundled_sessions
    from tests.helpers import copy_example

    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = copy_example(tmp_path / "shop")
    session = "20261202-090000-rply"
    shutil.copytree(bundled_sessions() / "barbershop-queue", project / ".formspec" / "consult" / session)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = run_cli(["--project", str(project), "replay", session, "--check"], elsewhere, cli_env(tmp_path),
                   timeout=300)
    explicit = run_cli(["replay", session, "--check", "--project", str(project)], elsewhere, cli_env(tmp_path),
                       timeout=300)
    return {"no_session_error": "No session" in done.stderr, "stderr": done.stderr.strip()[-300:],
            # whatever the check finds, it is what `replay --project DIR` finds in the same project
            "same_as_replay_project": (done.returncode, done.stdout) == (explicit.returncode, explicit.stdout),
            "explicit_found_it": "No session" not in explicit.stderr}


@scenario
def skill_install_over_the_persons_edits(request: pytest.FixtureRequest) -> Observed:
    """`skill install` run again after the person edited SKILL.md and added a file of their own."""
    from tests.helpers import copy_example

    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = copy_example(tmp_path / "shop")
    env = cli_env(tmp_path)
    first = run_cli(["skill", "install", "--project", str(project)], project, env)
    folder = project / ".claude" / "skills" / "formspec-consult"
    edited = (folder / "SKILL.md").read_bytes() + b"\nAlways ask about Sundays.\n"
    (folder / "SKILL.md").write_bytes(edited)
    (folder / "mine.md").write_bytes(b"my own notes\n")
    again = run_cli(["skill", "install", "--project", str(project)], project, env)
    kept = (folder / "SKILL.md").read_bytes() == edited and (folder / "mine.md").is_file()
    forced = run_cli(["skill", "install", "--force", "--project", str(project)], project, env)
    backups = list(folder.parent.glob(".formspec-consult-backup-*"))
    return {
        "first_exit": first.returncode,
        "again_exit": again.returncode,
        "again_says": again.stderr.strip(),
        "kept_without_force": kept,
        "force_exit": forced.returncode,
        "backup_has_every_byte": len(backups) == 1 and (backups[0] / "SKILL.md").read_bytes() == edited
        and (backups[0] / "mine.md").read_bytes() == b"my own notes\n",
        "force_says_where": str(backups[0]) in forced.stdout if backups else False,
    }


@scenario
def third_party_server_prints_a_banner(request: pytest.FixtureRequest) -> Observed:
    """A headless `-p` turn with a third-party stdio server (the person's own config) that prints a
    line on stdout that is not JSON-RPC before it serves; the model calls that server's tool."""
    tmp_path: Path = request.getfixturevalue("tmp_path")
    project = make_project(tmp_path / "project")
    env = cli_env(tmp_path)
    config = tmp_path / "xdg-config" / "formspec-consult" / "config.yaml"
    config.parent.mkdir(parents=True)
    server = {"command": sys.executable, "args": [str(FAKE_SERVER), "helper", "--banner"],
              "env": {"PYTHONPATH": str(REPO)}}
    config.write_text(yaml.safe_dump({"mcpServers": {"helper": server}}), encoding="utf-8")
    script = write_script(tmp_path / "s.yaml", [
        {"tool_calls": [{"name": "echo", "arguments": {"text": "still here"}}]}, "Done."])
    done = run_cli(["-m", f"scripted:{script}", "-p", "use the helper", "--json"], project, env, timeout=180)
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    finished = [e for e in events if e.get("type") == "tool_call_finished" and e.get("name") == "echo"]
    logs = sorted((project / ".formspec" / "consult").glob("mcp-helper*.log"))
    log_text = "".join(p.read_text(encoding="utf-8") for p in logs)
    return {
        "exit": done.returncode,
        "tool_answered": finished[0].get("result", "") if finished else "",
        "traceback": "Traceback" in done.stderr,
        "banner_on_terminal": "not JSON" in done.stderr or "Failed to parse" in done.stderr,
        "banner_in_server_log": "Failed to parse JSONRPC message" in log_text,
        "log_lines_for_it": log_text.count("Failed to parse JSONRPC message"),
    }
