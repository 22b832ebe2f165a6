"""Command-line faults of issue 20, through the real `formspec-consult` process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.cli import cli_env, run_cli
from tests.integrity.scenarios import Observed, scenario


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
