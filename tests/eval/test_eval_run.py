"""`formspec-consult eval` as a user runs it: offline twice with identical scores, a crashing case
reported while the run goes on, `compare`, and a non-offline case driven by fake models."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from formspec_consult.eval.corpus import bundled_corpus
from formspec_consult.prompting.prompts import load_prompt
from tests.e2e.cli import cli_env, run_cli
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

PROMPT = f"consultant-{load_prompt('consultant').version}"  # run ids name the prompt version

pytestmark = pytest.mark.slow
SUBSET = ["laundry-kiloan", "cafe-table-orders"]  # one Indonesian, one English case


def offline(tmp_path: Path, out: Path, *extra: str) -> dict[str, Any]:
    args = ["eval", "--offline", "--out", str(out), *extra]
    done = run_cli(args, tmp_path, cli_env(tmp_path), timeout=240)
    assert done.returncode in (0, 1), done.stderr
    reports = sorted((out / "reports").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    report: dict[str, Any] = json.loads(reports[-1].read_text(encoding="utf-8"))
    return report | {"_stderr": done.stderr}


def scores(report: dict[str, Any]) -> dict[str, Any]:
    return {c["id"]: c["score"] for c in report["cases"]}


def test_offline_runs_twice_with_identical_scores_and_writes_every_artefact(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cases = [arg for case in SUBSET for arg in ("--case", case)]
    first = offline(tmp_path, out, *cases)
    second = offline(tmp_path, out, *cases)
    assert first["run_id"] != second["run_id"]
    assert scores(first) == scores(second)
    assert [c["status"] for c in first["cases"]] == ["ok", "ok"]
    laundry = scores(first)["laundry-kiloan"]
    assert laundry["validity"]["all_drafts_pass"] and laundry["validity"]["project_valid"]
    assert scores(first)["cafe-table-orders"]["coverage"]["branch_states"] == 0.0  # the recorded miss
    assert first["run_id"].endswith(f"__{PROMPT}__offline__recorded") and first["verify"] == "deterministic"
    case_dir = out / "runs" / first["run_id"] / "laundry-kiloan"
    for name in ("system-prompt.md", "transcript.md", "events.jsonl", "score.json"):
        assert (case_dir / name).is_file(), name
    prompts = (case_dir / "system-prompt.md").read_text(encoding="utf-8")
    # every prompt the consultant was given: the first, and the Draft phase's (no template index)
    assert "# System prompt 1 — from the start on" in prompts and "# System prompt 2 — from event " in prompts
    # (a prompt rewritten for the reply language may come between them)
    first_prompt, later = prompts.split("# System prompt 2")
    assert "FormSpec consultant" in later and "get_business_template" in first_prompt
    assert "get_business_template" not in later.split("# System prompt ")[-1]
    assert (case_dir / "drafts" / "modules" / "laundry" / "transaction" / "laundry_order" / "entity.yaml").is_file()
    assert "laundry-kiloan" in first["_stderr"] and "total" in first["_stderr"]  # progress and summary table

    done = run_cli(["eval", "compare", first["run_id"], second["run_id"], "--out", str(out), "--json"],
                   tmp_path, cli_env(tmp_path))
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["cases"]
    assert [r["case"] for r in rows] == sorted(SUBSET)
    assert all(r["score"]["delta"] == 0 for r in rows)
    missing = run_cli(["eval", "compare", "nope", second["run_id"], "--out", str(out)], tmp_path, cli_env(tmp_path))
    assert missing.returncode == 2 and "no report 'nope'" in missing.stderr


def test_a_crashing_case_is_reported_failed_and_the_run_goes_on(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "recorded").mkdir(parents=True)
    shutil.copy(bundled_corpus() / "laundry-kiloan.yaml", corpus)
    shutil.copy(bundled_corpus() / "recorded" / "laundry-kiloan.yaml", corpus / "recorded")
    broken = yaml.safe_load((bundled_corpus() / "laundry-kiloan.yaml").read_text(encoding="utf-8"))
    broken["id"] = "aaa-crashes"
    (corpus / "aaa-crashes.yaml").write_text(yaml.safe_dump(broken, allow_unicode=True), encoding="utf-8")
    (corpus / "recorded" / "aaa-crashes.yaml").write_text(
        "- error: {message: the model provider fell over}\n", encoding="utf-8")
    report = offline(tmp_path, tmp_path / "out", "--corpus", str(corpus))
    crashed, good = report["cases"]
    assert crashed["id"] == "aaa-crashes" and crashed["status"] == "failed"
    assert "the model provider fell over" in crashed["error"]
    assert good["status"] == "ok" and good["score"]["score"] > 0.5
    assert report["totals"]["failed"] == 1


def test_verify_llm_is_refused_offline_with_what_to_use_instead(tmp_path: Path) -> None:
    done = run_cli(["eval", "--offline", "--verify", "llm", "--out", str(tmp_path / "out")], tmp_path,
                   cli_env(tmp_path))
    assert done.returncode == 2 and "--verify deterministic or off" in done.stderr
    assert not (tmp_path / "out").exists()


ORDER = {"name": "laundry_order", "module": "laundry"}


def _propose(path: str, content: str) -> dict[str, Any]:
    return {"name": "propose_spec_file", "arguments": {"path": path, "content": content}}


def test_a_case_runs_end_to_end_on_a_real_model_path_with_fake_models_for_consultant_and_owner(
    tmp_path: Path,
) -> None:
    from formspec_consult.eval.recorded import render_entity, render_module

    module = render_module({"name": "laundry", "label": "Laundry"})
    customer = render_entity({"name": "customer", "module": "laundry", "characteristic": "master",
                              "fields": [{"name": "name", "type": "string", "required": True}]})
    order = render_entity({**ORDER, "characteristic": "transaction",
                           "fields": [{"name": "customer", "type": "relation",
                                       "relation": {"type": "belongs_to", "resource": "laundry.customer"}}],
                           "states": ["received", "washing", "ready", "collected"],
                           "transitions": [["received", "washing", "wash"], ["washing", "ready", "finish"],
                                           ["ready", "collected", "hand_over"]]})
    consultant = FakeOpenAIServer([
        FakeReply(text="Apakah harga dihitung per kilo?\nA) Per kilo\nB) Per potong",
                  usage={"prompt_tokens": 900, "completion_tokens": 20, "cached_tokens": 0}),
        FakeReply(tool_calls=[{"name": "read_skill", "arguments": {"name": "entity-authoring"}}],
                  usage={"prompt_tokens": 1000, "completion_tokens": 10, "cached_tokens": 800}),
        FakeReply(tool_calls=[
            _propose("modules/laundry/module.yaml", module),
            _propose("modules/laundry/master/customer/entity.yaml", customer),
            _propose("modules/laundry/transaction/laundry_order/entity.yaml", order),
        ], usage={"prompt_tokens": 1500, "completion_tokens": 300, "cached_tokens": 900}),
        FakeReply(text="Draf sudah ditulis dan siap untuk Anda tinjau.",
                  usage={"prompt_tokens": 2500, "completion_tokens": 12, "cached_tokens": 1400}),
    ]).start()
    owner = FakeOpenAIServer([FakeReply(text="A"), FakeReply(text="DONE")]).start()
    try:
        env = cli_env(tmp_path, FORMSPEC_CONTEXT_WINDOW="64000", FORMSPEC_ALLOW_UNVALIDATED="true")
        out = tmp_path / "out"
        done = run_cli(["eval", "--case", "laundry-kiloan", "--model", "openai/fake", "--base-url", consultant.url,
                        "--owner-model", "openai/fake-owner", "--owner-base-url", owner.url, "--max-turns", "4",
                        "--out", str(out)], tmp_path, env, timeout=240)
        assert done.returncode == 0, done.stderr
    finally:
        consultant.stop()
        owner.stop()
    (path,) = (out / "reports").glob("*.json")
    report = json.loads(path.read_text(encoding="utf-8"))
    assert report["run_id"].endswith(f"__{PROMPT}__openai__fake") and report["owner"] == "model"
    (case,) = report["cases"]
    assert case["status"] == "ok", case.get("error")
    score = case["score"]
    assert score["validity"]["all_drafts_pass"] and score["validity"]["project_valid"]
    assert score["coverage"]["entities_matched"]["laundry-order"] == "laundry_order"
    assert score["coverage"]["branch_states"] == 0.0 and score["coverage"]["states"] == 1.0
    assert score["validity"]["findings_on_last_drafts"] >= 1  # no cancelled branch: the verifiers said so
    assert case["cost"]["prompt_tokens"] == 5900 and case["cost"]["cached_tokens"] == 3100
    assert case["cost"]["turns"] == 2
    # The consultant got the tools and the engine's system prompt; the owner its facts, no tools.
    assert all(r.body.get("tools") for r in consultant.requests)
    assert "FormSpec consultant" in consultant.requests[0].body["messages"][0]["content"]
    first_owner = owner.requests[0].body
    assert not first_owner.get("tools") and "Harga per kilo" in first_owner["messages"][0]["content"]
    assert first_owner["model"] == "fake-owner"
    assert "[chosen: A) Per kilo]" in json.dumps(consultant.requests[1].body["messages"])


def test_a_live_consultant_is_scored_with_the_scripted_owner_and_the_sessions_model_flags(tmp_path: Path) -> None:
    from formspec_consult.eval.recorded import render_entity, render_module

    module = render_module({"name": "laundry", "label": "Laundry"})
    customer = render_entity({"name": "customer", "module": "laundry", "characteristic": "master",
                              "fields": [{"name": "name", "type": "string", "required": True}]})
    consultant = FakeOpenAIServer([
        FakeReply(text="Apakah harga dihitung per kilo?\nA) Per potong\nB) Per kilo cucian"),
        FakeReply(tool_calls=[_propose("modules/laundry/module.yaml", module),
                              _propose("modules/laundry/master/customer/entity.yaml", customer)]),
        FakeReply(text="Draf sudah ditulis dan siap untuk Anda tinjau."),
    ]).start()
    env = cli_env(tmp_path)  # no FORMSPEC_CONTEXT_WINDOW / FORMSPEC_ALLOW_UNVALIDATED: the flags say it
    out = tmp_path / "out"
    live = ["eval", "--case", "laundry-kiloan", "--model", "openai/fake", "--base-url", consultant.url,
            "--owner", "scripted", "--max-turns", "4", "--out", str(out)]
    try:
        refused = run_cli(live, tmp_path, env, timeout=240)  # a model litellm does not know needs a window
        assert refused.returncode == 2 and "--context-window" in refused.stderr, refused.stderr
        assert not out.exists() and not consultant.requests
        done = run_cli([*live, "--context-window", "64000", "--allow-unvalidated"], tmp_path, env, timeout=240)
        assert done.returncode == 0, done.stderr
    finally:
        consultant.stop()
    (path,) = (out / "reports").glob("*.json")
    report = json.loads(path.read_text(encoding="utf-8"))
    assert report["owner"] == "scripted" and report["owner_model"] is None and report["model"] == "openai/fake"
    (case,) = report["cases"]
    assert case["status"] == "ok", case.get("error")
    assert case["owner_tokens"] is None  # no second model was asked anything
    # The scripted owner picked the option its facts match (the case prices per kilo), then stopped
    # once the drafts passed the gate.
    assert [t["owner"] for t in case["turns"]] == [load_case("laundry-kiloan")["opening"], "B"]
    assert "[chosen: B) Per kilo cucian]" in json.dumps(consultant.requests[1].body["messages"])
    assert case["score"]["validity"]["all_drafts_pass"] and case["apply"]["applied"]
    assert len(consultant.requests) == 3


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--owner", "scripted", "--owner-model", "openai/other"], "--owner-model and --owner-base-url are for"),
        (["--offline", "--owner", "model"], "--offline has no owner model"),
        (["--context-window", "0"], "Invalid value for '--context-window'"),
        (["--owner", "someone"], "Invalid value for '--owner'"),
    ],
)
def test_eval_options_that_cannot_work_together_are_refused_before_anything_runs(
    tmp_path: Path, extra: list[str], says: str
) -> None:
    out = tmp_path / "out"
    done = run_cli(["eval", "--case", "laundry-kiloan", "--model", "openai/fake", "--base-url",
                    "http://127.0.0.1:9/v1", "--out", str(out), *extra], tmp_path, cli_env(tmp_path), timeout=120)
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert not out.exists()


def load_case(case_id: str) -> dict[str, Any]:
    return dict(yaml.safe_load((bundled_corpus() / f"{case_id}.yaml").read_text(encoding="utf-8")))


@pytest.mark.anyio
async def test_one_consultant_provider_instance_serves_every_case_of_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from formspec_consult.commands.wiring import server_specs
    from formspec_consult.eval.corpus import load_corpus
    from formspec_consult.eval.report import console
    from formspec_consult.eval.runner import EvalConfig, Prepared, Runner
    from formspec_consult.providers import ScriptedProvider

    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    cases = load_corpus(None, SUBSET)
    consultant = ScriptedProvider(["What do you sell?", "What do you sell?"])
    owner = ScriptedProvider(["DONE", "DONE"])
    quiet = console(stderr=True)
    quiet.quiet = True
    config = EvalConfig(model="scripted", out=tmp_path / "out", in_process=True, console=quiet, servers=server_specs)
    report = await Runner(config, Prepared(cases, {}, consultant, owner, "scripted", "scripted")).run()
    assert [c["status"] for c in report["cases"]] == ["ok", "ok"]
    systems = {r[0]["content"] for r in consultant.requests}
    assert len(consultant.requests) == 2 and len(systems) == 2  # two sessions, one provider instance
    assert [len(r) for r in owner.requests] == [4, 4]  # each owner: system, greeting, opening, consultant
