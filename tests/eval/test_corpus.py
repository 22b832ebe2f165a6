"""The bundled corpus and bad case files: a clear error naming the file and the key, nothing run."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from formspec_consult.eval.corpus import CorpusError, bundled_corpus, load_corpus
from formspec_consult.eval.recorded import load_recording
from formspec_consult.resources import package_path
from tests.e2e.cli import cli_env, run_cli

GOOD = bundled_corpus() / "laundry-kiloan.yaml"


def test_the_bundled_corpus_has_twelve_cases_in_both_languages_across_the_templates() -> None:
    cases = load_corpus()
    templates = {p.stem for p in package_path("registry", "catalogue", "templates").glob("*.yaml")}
    assert len(cases) >= 12
    assert {c.language for c in cases} == {"en", "id"}
    assert all(c.template in templates for c in cases)
    assert len({c.template for c in cases}) >= 12
    for case in cases:  # every bundled case can run offline
        assert load_recording(case.id), case.id
    iterating = [c for c in cases if c.expected.iterate]  # change requests on an applied starter
    assert {c.language for c in iterating} == {"en", "id"}
    assert all(c.starter != "empty" and c.expected.changelog and c.expected.fields for c in iterating)


def write_case(folder: Path, change: dict[str, object] | None = None, drop: str | None = None) -> Path:
    data = yaml.safe_load(GOOD.read_text(encoding="utf-8"))
    data.update(change or {})
    if drop:
        data.pop(drop)
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / "case.yaml"
    file.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return file


@pytest.mark.parametrize(
    ("change", "drop", "key"),
    [
        (None, "owner_facts", "owner_facts: missing"),
        ({"language": "fr"}, None, "language: must be one of en, id"),
        ({"expected": {"entities": []}}, None, "expected.entities: must be a non-empty list"),
        ({"expected": {"entities": ["order"], "states": {"invoice": ["paid"]}}}, None,
         "expected.states.invoice: names no expected entity"),
        ({"expected": {"entities": ["order"], "relations": [["order", "ghost"]]}}, None, "expected.relations[0]"),
        ({"starter": "no/such/project"}, None, "starter:"),
        ({"colour": "blue"}, None, "colour: unknown key"),
        ({"expected": {"entities": ["order"], "states": {"order": ["open", "paid"]}}}, None,
         "expected.states.order: mark the one state the business calls success"),
        ({"expected": {"entities": ["order"], "states": {"order": [{"name": "a", "success": True},
                                                                    {"name": "b", "success": True}]}}}, None,
         "(2 are marked)"),
        ({"expected": {"entities": ["order"], "states": {"order": [{"name": "paid", "success": True,
                                                                     "branch": True}]}}}, None,
         "expected.states.order[0]: the success state ends the main path"),
        ({"expected": {"entities": ["order"], "states": {"order": [{"name": "paid", "success": "yes"}]}}}, None,
         "expected.states.order[0].success: must be true or false"),
        ({"expected": {"entities": ["order"], "fields": {"invoice": ["tip"]}}}, None,
         "expected.fields.invoice: names no expected entity"),
        ({"expected": {"entities": ["order"], "fields": {"order": []}}}, None,
         "expected.fields.order: must be a non-empty list of field names"),
        ({"expected": {"entities": ["order"], "changelog": "yes"}}, None, "expected.changelog: must be true or false"),
    ],
)
def test_a_bad_case_file_names_the_file_and_the_key(tmp_path: Path, change: dict[str, object] | None,
                                                    drop: str | None, key: str) -> None:
    file = write_case(tmp_path / "corpus", change, drop)
    with pytest.raises(CorpusError) as caught:
        load_corpus(tmp_path / "corpus")
    assert str(file) in str(caught.value) and key in str(caught.value)


def test_a_case_file_that_does_not_parse_is_an_error_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("id: x\nopening: [unclosed\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"broken.yaml: not valid YAML at line \d"):
        load_corpus(tmp_path)


def test_an_unknown_case_id_lists_the_known_ones() -> None:
    with pytest.raises(CorpusError, match=r"no case with id nope.*laundry-kiloan"):
        load_corpus(None, ["nope"])


@pytest.mark.slow
def test_the_command_refuses_a_bad_corpus_before_any_run_starts(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    write_case(corpus, drop="expected")
    out = tmp_path / "out"
    done = run_cli(["eval", "--offline", "--corpus", str(corpus), "--out", str(out)], tmp_path, cli_env(tmp_path))
    assert done.returncode == 2
    assert "case.yaml: expected: missing" in done.stderr
    assert not out.exists()


def test_branch_states_follow_the_cases_lifecycle_not_the_words_of_their_names(tmp_path: Path) -> None:
    # A rental ends well when the gear is returned; a delivery that is returned has failed.
    states = {"rental": ["reserved", "picked-up", {"name": "returned", "success": True}, "overdue",
                         {"name": "extended", "branch": True}],
              "delivery": ["planned", {"name": "delivered", "success": True}, "returned",
                           {"name": "recounted", "branch": False}]}
    file = write_case(tmp_path / "corpus", {"expected": {"entities": ["rental", "delivery"], "states": states}})
    (case,) = load_corpus(file.parent)
    branches = {entity: [s.name for s in named if s.branch] for entity, named in case.expected.states.items()}
    assert branches == {"rental": ["overdue", "extended"], "delivery": ["returned"]}
    assert [s.name for s in case.expected.states["rental"] if s.success] == ["returned"]
