"""Headless runs keep the person in control: model-called writes are refused unless allowed, a
refused draft never reads as "ok", and `-p a --continue` answers the resumed session's options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.cli import cli_env, run_cli, write_script
from tests.e2e.project import CUSTOMER, DRAFT_PATH

pytestmark = pytest.mark.slow

BAD_CUSTOMER = CUSTOMER.replace("type: string}", "type: phone}")


def _calls(*calls: tuple[str, dict[str, object]]) -> dict[str, object]:
    return {"tool_calls": [{"name": name, "arguments": arguments} for name, arguments in calls]}


def _propose_then_apply(tmp_path: Path) -> Path:
    return write_script(tmp_path / "s.yaml", [
        _calls(("propose_spec_file", {"path": DRAFT_PATH, "content": CUSTOMER})),
        _calls(("apply_draft", {"file": DRAFT_PATH})),
        "Done.",
    ])


def test_a_model_called_apply_is_refused_headless_with_a_result_that_says_who_reviews(
        project: Path, tmp_path: Path) -> None:
    result = run_cli(["-m", f"scripted:{_propose_then_apply(tmp_path)}", "-p", "draft it", "--json"],
                     project, cli_env(tmp_path))
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    (applied,) = [e for e in events if e["type"] == "tool_call_finished" and e["name"] == "apply_draft"]
    assert applied["ok"] is False and "permission denied" in applied["result"] and "/diff" in applied["result"]
    assert not (project / "spec" / DRAFT_PATH).exists()  # the project is untouched


def test_allow_tool_lets_the_model_apply_headless(project: Path, tmp_path: Path) -> None:
    result = run_cli(["-m", f"scripted:{_propose_then_apply(tmp_path)}", "-p", "draft it",
                      "--allow-tool", "apply_draft"], project, cli_env(tmp_path))
    assert result.returncode == 0, result.stderr
    assert (project / "spec" / DRAFT_PATH).read_text(encoding="utf-8") == CUSTOMER


def test_a_draft_the_gate_refused_reads_as_refused_in_text_json_and_transcript(project: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yaml", [
        _calls(("propose_spec_file", {"path": DRAFT_PATH, "content": BAD_CUSTOMER})), "It needs a fix."] * 2)
    text = run_cli(["-m", f"scripted:{script}", "-p", "draft it"], project, cli_env(tmp_path))
    assert text.returncode == 0, text.stderr
    assert "✗ propose_spec_file refused by the validation gate" in text.stderr
    assert "✓ propose_spec_file" not in text.stderr
    as_json = run_cli(["-m", f"scripted:{script}", "-p", "draft it", "--json"], project, cli_env(tmp_path))
    finished = [json.loads(line) for line in as_json.stdout.splitlines()
                if json.loads(line)["type"] == "tool_call_finished"]
    assert [(e["status"], e["ok"]) for e in finished] == [("refused", False)]
    transcripts = list((project / ".formspec" / "consult").glob("*/transcript.md"))
    assert transcripts and all("refused by the validation gate" in t.read_text(encoding="utf-8") for t in transcripts)


def test_an_apply_reads_as_ok_while_another_file_of_the_project_has_a_problem(project: Path, tmp_path: Path) -> None:
    # apply_draft's answer carries the whole project's validation; a problem in a file the draft
    # did not touch does not make the apply that happened read as refused.
    broken = project / "spec" / "modules" / "shop" / "master" / "supplier" / "entity.yaml"
    broken.parent.mkdir(parents=True)
    broken.write_text(BAD_CUSTOMER.replace("customer", "supplier"), encoding="utf-8")
    result = run_cli(["-m", f"scripted:{_propose_then_apply(tmp_path)}", "-p", "draft it", "--json",
                      "--allow-tool", "apply_draft"], project, cli_env(tmp_path))
    assert result.returncode == 0, result.stderr
    finished = {e["name"]: e for e in map(json.loads, result.stdout.splitlines()) if e["type"] == "tool_call_finished"}
    assert json.loads(finished["apply_draft"]["result"])["validation"]["ok"] is False  # the project has a problem
    assert finished["propose_spec_file"]["status"] == "ok" and finished["apply_draft"]["status"] == "ok"
    assert (project / "spec" / DRAFT_PATH).read_text(encoding="utf-8") == CUSTOMER
    (transcript,) = (project / ".formspec" / "consult").glob("*/transcript.md")
    assert "refused by the validation gate" not in transcript.read_text(encoding="utf-8")


def test_a_bare_letter_after_continue_sends_the_chosen_option(project: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yaml", ["Which do you prefer?\nA) Cards\nB) Cash", "Cards it is."])
    first = run_cli(["-m", f"scripted:{script}", "-p", "hello"], project, cli_env(tmp_path))
    assert first.returncode == 0, first.stderr
    script2 = write_script(tmp_path / "s2.yaml", ["Cards it is."])
    again = run_cli(["-m", f"scripted:{script2}", "-p", "a", "--continue", "--json"], project, cli_env(tmp_path))
    assert again.returncode == 0, again.stderr
    starts = [json.loads(line)["user_text"] for line in again.stdout.splitlines()
              if json.loads(line)["type"] == "turn_started"]
    assert starts == ["[chosen: A) Cards]"]


def test_a_refused_apply_tells_the_person_about_force_in_their_terms(project: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yaml", [
        _calls(("propose_spec_file", {"path": DRAFT_PATH, "content": BAD_CUSTOMER})), "It needs a fix."])
    assert run_cli(["-m", f"scripted:{script}", "-p", "draft it"], project, cli_env(tmp_path)).returncode == 0
    refused = run_cli(["apply", DRAFT_PATH], project, cli_env(tmp_path))
    assert refused.returncode == 1
    assert "--force" in refused.stderr and "force: true" not in refused.stderr
    assert "propose_spec_file" not in refused.stderr and "Ask the consultant to fix the draft" in refused.stderr


def test_the_words_for_the_model_become_the_persons_in_the_app_too() -> None:
    from formspec_consult.store.wording import for_person

    model = ("x.yaml fails validation (1 problem(s); first: bad). Fix the draft with propose_spec_file, "
             "or pass force: true to apply it anyway.")
    said = for_person(model, "tui", "x.yaml")
    assert "formspec-consult apply x.yaml --force" in said and "force: true" not in said
    assert "propose_spec_file" not in for_person("Propose it first with propose_spec_file.")
