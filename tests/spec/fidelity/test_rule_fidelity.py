"""Rule half of the fidelity corpus: FormSpec's engine and cross-document rules, case by case.

Each case in `rule_cases/` is a small project in our own words, laid over `_base.yaml`: the
constructs FormSpec accepts must validate, and each rule FormSpec enforces must fail with its
own stable code and nothing else, with a message and a hint.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from formspec_consult.spec import open_project
from formspec_consult.spec.codes import PROBLEM_CODES


@dataclass(frozen=True)
class Case:
    """One case file: `about` (what FormSpec does), `expect` (`ok` or the code), `files` (path → text)."""

    name: str
    about: str
    expect: str
    files: dict[str, str]
    extra: dict[str, Any]


def load_cases(folder: Path) -> list[Case]:
    """Every `*.yaml` case under `folder`, in name order (files starting with `_` are not cases)."""
    cases = []
    for path in sorted(folder.glob("*.yaml")):
        if path.name.startswith("_"):
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        rest = {k: v for k, v in data.items() if k not in ("about", "expect", "files")}
        cases.append(Case(path.stem, data["about"], str(data["expect"]), dict(data.get("files") or {}), rest))
    return cases


def write_project(root: Path, files: dict[str, str]) -> Path:
    """Write `files` under `root` and return `root`."""
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


CASES_DIR = Path(__file__).parent / "rule_cases"
CASES = load_cases(CASES_DIR)
BASE: dict[str, str] = yaml.safe_load((CASES_DIR / "_base.yaml").read_text(encoding="utf-8"))["files"]


def project_files(case: Case) -> dict[str, str]:
    """The case's files laid over the base project (unless the case opts out with `base: false`)."""
    return {**BASE, **case.files} if case.extra.get("base", True) else dict(case.files)


def test_the_base_project_validates_cleanly(tmp_path: Path) -> None:
    result = open_project(write_project(tmp_path, BASE)).validate()
    assert result.ok, [(p.code, p.source, p.message) for p in result.problems]
    assert not result.warnings, [(w.code, w.message) for w in result.warnings]


def _param(case: Case) -> object:
    """A case whose construct our built-in schemas still reject is marked with the schema gap."""
    pending = case.extra.get("pending_schema")
    marks = [pytest.mark.xfail(reason=f"built-in schema gap: {pending}", strict=True)] if pending else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_rule_case(case: Case, tmp_path: Path) -> None:
    result = open_project(write_project(tmp_path, project_files(case))).validate()
    found = [(p.code, p.source, p.line, p.message) for p in result.problems]
    if case.expect == "ok":
        assert result.ok, f"{case.about}\n{found}"
    else:
        # `also_schema: true`: FormSpec's schema refuses the same break (e.g. a required key), so
        # the schema layer may report it too; nothing else may be reported
        allowed = {case.expect, "FS-SCHEMA"} if case.extra.get("also_schema") else {case.expect}
        codes = {p.code for p in result.problems}
        assert case.expect in codes and codes <= allowed, f"{case.about}\n{found}"
        for problem in result.problems:
            assert problem.message and problem.hint, problem
            assert problem.line is not None, problem
    warned = case.extra.get("warns")
    if warned:
        assert warned in {w.code for w in result.warnings}, [(w.code, w.message) for w in result.warnings]
    quiet = case.extra.get("quiet")
    if quiet:  # a construct FormSpec reads as meant: the gate must not even warn
        assert quiet not in {w.code for w in result.warnings}, [(w.code, w.message) for w in result.warnings]


def test_the_corpus_covers_every_rule_it_names() -> None:
    expected = {c.expect for c in CASES if c.expect != "ok"}
    assert expected <= set(PROBLEM_CODES), expected - set(PROBLEM_CODES)
    assert len(CASES) >= 30
    assert sum(c.expect == "ok" for c in CASES) >= 10


def test_every_engine_rule_of_formspec_has_a_case_that_breaks_it() -> None:
    rules = {"FS-EVENT-TYPE-MISSING", "FS-EVENT-TYPE-MISMATCH", "FS-EVENT-DURABLE", "FS-EVENT-TARGET",
             "FS-EVENT-TARGET-IDEMPOTENT", "FS-HOOK-ACTION", "FS-HOOK-SHAPE", "FS-MENU-VIEW", "FS-EXPR-FIELD",
             "FS-EXPR-GRAMMAR", "FS-AGGREGATE-FN", "FS-AGGREGATE-FIELD", "FS-AGGREGATE-NUMERIC",
             "FS-EXTEND-NAMESPACE", "FS-EXTEND-TARGET-FORMAT", "FS-EXTEND-REQUIRED", "FS-INTEGRATOR-CANCEL",
             "FS-INTEGRATOR-TARGET", "FS-INTEGRATOR-IDEMPOTENT", "FS-RELATION-CATEGORY", "FS-USES-RESOURCE",
             "FS-DATASTORE-BINDING", "FS-PAGE-BLOCKS-TABS", "FS-PAGE-CUSTOM", "FS-FORM-TARGET",
             "FS-APP-PERSIST-BACKEND", "FS-FIELD-RENAMED-FROM"}
    assert rules - {c.expect for c in CASES} == set()
