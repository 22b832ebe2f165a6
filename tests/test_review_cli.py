"""The review commands a person runs without the TUI: reject with a reason (more follow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.store.events import EventLog
from formspec_consult.store.records import ApplyRecord, EditRecord, RejectRecord
from tests.e2e.cli import cli_env, run_cli, write_script
from tests.e2e.project import DRAFT_PATH
from tests.test_headless import propose_turn


def session_log(project: Path) -> Path:
    [log] = (project / ".formspec" / "consult").glob("*/events.jsonl")
    return log


def test_reject_with_a_reason_says_so_and_logs_the_reason_for_the_consultant(project: Path, tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    script = write_script(tmp_path / "s.yaml", [propose_turn(), "Drafted."])
    assert run_cli(["-m", f"scripted:{script}", "-p", "customers"], project, env).returncode == 0
    result = run_cli(["reject", DRAFT_PATH, "--reason", "we do not store phone numbers"], project, env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"Rejected {DRAFT_PATH}; 0 drafts left.",
                                          'The consultant is told why on its next turn: "we do not store phone numbers".']
    rejects = [r for r in EventLog.records(session_log(project)) if isinstance(r, RejectRecord)]
    assert [(r.path, r.reason) for r in rejects] == [(DRAFT_PATH, "we do not store phone numbers")]


def test_a_reason_too_long_to_tell_is_refused_and_the_draft_stays(project: Path, tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    script = write_script(tmp_path / "s.yaml", [propose_turn(), "Drafted."])
    assert run_cli(["-m", f"scripted:{script}", "-p", "customers"], project, env).returncode == 0
    result = run_cli(["reject", DRAFT_PATH, "--reason", "x" * 2001], project, env)
    assert result.returncode == 1 and "say it in at most 2,000" in result.stderr
    assert not [r for r in EventLog.records(session_log(project)) if isinstance(r, RejectRecord)]
    listed = run_cli(["diff"], project, env)
    assert DRAFT_PATH in listed.stdout


def test_edit_opens_the_draft_in_the_editor_and_the_saved_version_becomes_the_draft(
        project: Path, tmp_path: Path) -> None:
    import sys

    script = tmp_path / "editor.py"
    script.write_text("import sys\nfrom pathlib import Path\nf = Path(sys.argv[1])\n"
                      "f.write_text(f.read_text().replace('type: string}', 'type: text}'))\n", encoding="utf-8")
    env = {**cli_env(tmp_path), "VISUAL": f"{sys.executable} {script}"}
    turns = write_script(tmp_path / "s.yaml", [propose_turn(), "Drafted."])
    assert run_cli(["-m", f"scripted:{turns}", "-p", "customers"], project, env).returncode == 0
    result = run_cli(["edit", DRAFT_PATH], project, env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"Your edit of {DRAFT_PATH} is now the draft; it passes validation."
    diff = run_cli(["diff"], project, env)
    assert "+    - {name: phone, type: text}" in diff.stdout
    assert [r.path for r in EventLog.records(session_log(project)) if isinstance(r, EditRecord)] == [DRAFT_PATH]


@pytest.mark.timeout(600)
def test_apply_lists_a_drafts_blocks_and_applies_only_the_chosen_ones(project: Path, tmp_path: Path) -> None:
    from tests.e2e.project import CUSTOMER

    env = cli_env(tmp_path)
    first = write_script(tmp_path / "a.yaml", [propose_turn(), "Drafted."])
    assert run_cli(["-m", f"scripted:{first}", "-p", "customers"], project, env).returncode == 0
    assert run_cli(["apply"], project, env).returncode == 0
    more = CUSTOMER.replace("    - {name: phone, type: string}\n",
                            "    - {name: phone, type: string, required: true}\n    - {name: email, type: string}\n")
    turn = {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": DRAFT_PATH, "content": more}}]}
    second = write_script(tmp_path / "b.yaml", [turn, "Drafted again."])
    assert run_cli(["-m", f"scripted:{second}", "--continue", "-p", "add email"], project, env).returncode == 0
    listed = run_cli(["apply", DRAFT_PATH, "--list-blocks"], project, env)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[0] == " 1  spec.fields[phone]  (changed)"
    assert " 2  spec.fields[email]  (added)" in listed.stdout
    assert "      +    - {name: email, type: string}" in listed.stdout
    done = run_cli(["apply", DRAFT_PATH, "--only", "email", "--reason", "phone stays optional"], project, env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Applied 1 of 2 blocks of {DRAFT_PATH} (spec.fields[email]); the rest went back")
    text = (project / "spec" / DRAFT_PATH).read_text(encoding="utf-8")
    assert "{name: email, type: string}" in text and "{name: phone, type: string}\n" in text
    bad = run_cli(["apply", DRAFT_PATH, "--only", "1", "--all"], project, env)
    assert bad.returncode == 2 and "leave out --all" in bad.stderr


def three_drafts_turn() -> dict[str, object]:
    """One turn proposing two new entities the gate passes and a module change it refuses."""
    from tests.e2e.project import CUSTOMER, MODULE

    files = [(DRAFT_PATH, CUSTOMER), ("modules/shop/master/supplier/entity.yaml", CUSTOMER.replace("customer", "supplier")),
             ("modules/shop/module.yaml", MODULE + "  title: Shop\n")]
    return {"tool_calls": [{"name": "propose_spec_file", "arguments": {"path": path, "content": content}}
                           for path, content in files]}


@pytest.mark.timeout(600)
def test_changes_lists_the_turns_drafts_and_accepts_and_rejects_them_as_one_set(project: Path, tmp_path: Path) -> None:
    import json

    env = cli_env(tmp_path)
    script = write_script(tmp_path / "s.yaml", [three_drafts_turn(), "Drafted three files."])
    assert run_cli(["-m", f"scripted:{script}", "-p", "customers and suppliers"], project, env).returncode == 0
    listed = run_cli(["changes"], project, env)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        'Turn 1 ("customers and suppliers") proposed 3 files:',
        f"  new       +10 -0  {DRAFT_PATH}  [pending, valid]",
        "  new       +10 -0  modules/shop/master/supplier/entity.yaml  [pending, valid]",
        "  modified  +1 -0   modules/shop/module.yaml                  [pending, 1 problem]",
        "3 drafts to decide on; 1 is refused by the gate and stays for review when you accept.",
    ]
    as_json = json.loads(run_cli(["changes", "--json"], project, env).stdout)
    assert [(f["path"], f["status"], f["added"], f["removed"], f["valid"]) for f in as_json["files"]] == [
        (DRAFT_PATH, "new", 10, 0, True), ("modules/shop/master/supplier/entity.yaml", "new", 10, 0, True),
        ("modules/shop/module.yaml", "modified", 1, 0, False)]
    accepted = run_cli(["changes", "--accept"], project, env)
    assert accepted.returncode == 0, accepted.stderr
    assert accepted.stdout.startswith("Accepted turn 1: applied 2 drafts")
    assert "Left for review (refused by the gate): modules/shop/module.yaml." in accepted.stdout
    kinds = [(r.type, r.path) for r in EventLog.records(session_log(project))
             if isinstance(r, (ApplyRecord, RejectRecord))]
    assert kinds == [("apply", DRAFT_PATH), ("apply", "modules/shop/master/supplier/entity.yaml")]  # one each
    assert run_cli(["undo"], project, env).returncode == 0  # one undo: the last apply only
    assert not (project / "spec" / "modules/shop/master/supplier/entity.yaml").exists()
    assert (project / "spec" / DRAFT_PATH).exists()
    rejected = run_cli(["changes", "--reject", "--reason", "suppliers later"], project, env)
    assert rejected.returncode == 0, rejected.stderr
    rejects = [(r.path, r.reason) for r in EventLog.records(session_log(project)) if isinstance(r, RejectRecord)]
    assert rejects == [("modules/shop/master/supplier/entity.yaml", "suppliers later"),
                       ("modules/shop/module.yaml", "suppliers later")]
    after = run_cli(["changes"], project, env).stdout
    assert "Nothing of this turn is left to decide" in after and "[applied]" in after and "[rejected]" in after
    headless = run_cli(["-m", f"scripted:{script}", "--continue", "-p", "/changes"], project, env)
    assert headless.returncode == 0, headless.stderr
    assert 'Turn 1 ("customers and suppliers") proposed 3 files:' in headless.stdout + headless.stderr
    wrong = run_cli(["changes", "--turn", "7"], project, env)
    assert wrong.returncode == 1 and "Turn 7 proposed no drafts; the turns that did: 1." in wrong.stderr


def test_validate_checks_the_whole_project_with_the_pending_drafts_and_exits_1_on_problems(
        project: Path, tmp_path: Path) -> None:
    import json

    env = cli_env(tmp_path)
    clean = run_cli(["validate"], project, env)  # no session yet: the project as it is, nothing written
    assert clean.returncode == 0, clean.stderr
    assert clean.stdout.splitlines()[-1] == "Valid: no problems."
    assert not [p for p in (project / ".formspec" / "consult").glob("*") if p.is_dir()]

    from tests.e2e.project import CUSTOMER

    broken = {"tool_calls": [{"name": "propose_spec_file", "arguments": {
        "path": DRAFT_PATH, "content": CUSTOMER.replace("type: string}", "type: strin}", 1)}}]}
    script = write_script(tmp_path / "s.yaml", [broken, "Drafted."])
    assert run_cli(["-m", f"scripted:{script}", "-p", "customers"], project, env).returncode == 0
    result = run_cli(["validate"], project, env)
    assert result.returncode == 1
    assert "pending draft" in result.stdout.splitlines()[0]
    assert f"  {DRAFT_PATH}:" in result.stdout and "(draft): FS-SCHEMA" in result.stdout
    assert "Did you mean `string`?" in result.stdout and "1 problem: fix it, then validate again." in result.stderr
    as_json = run_cli(["validate", "--json"], project, env)
    assert as_json.returncode == 1
    answer = json.loads(as_json.stdout)
    assert answer["ok"] is False and answer["drafts"] == 1
    assert [(p["file"], p["draft"]) for p in answer["problems"]] == [(DRAFT_PATH, True)]
