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
    (corpus / "warung.yaml").write_bytes("id: warung\nopening: Saya punya warung kopi di Bogor\n".encode("utf-8")
                                        + b"notes: caf\xe9 \xa9\n")
    out = tmp_path / "out"
    done = run_cli(["eval", "--offline", "--corpus", str(corpus), "--out", str(out)], tmp_path, cli_env(tmp_path))
    return {
        "exit": done.returncode,
        "message": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "",
        "traceback": "Traceback" in done.stderr,
        "nothing_run": not out.exists(),
    }
