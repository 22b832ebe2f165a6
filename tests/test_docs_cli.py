"""`formspec-consult docs [--check]` through the real command line: the domain model's generated
part made from the specs, applied through the session's review (undoable), the owner's own text
kept; --check says stale or fresh by its exit code; bad input is refused with nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.store.events import EventLog
from tests.e2e.cli import cli_env, run_cli
from tests.e2e.project import CUSTOMER, DRAFT_PATH, make_project

pytestmark = pytest.mark.slow

ORDER = """apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: order, module: shop}
spec:
  version: v1
  characteristic: transaction
  fields:
    - {name: transaction_date, type: date, required: true}
    - {name: customer, type: relation, relation: {type: belongs_to, resource: customer}}
    - {name: status, type: enum, enum_values: [open, paid, cancelled]}
  state_machine:
    field: status
    initial: open
    states: [{name: open}, {name: paid}, {name: cancelled}]
    transitions:
      - {from: open, to: paid, via: pay}
      - {from: open, to: cancelled, via: cancel}
  actions: [{name: pay}]
"""


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    project = make_project(tmp_path / "shop")
    for rel, text in ((DRAFT_PATH, CUSTOMER), ("modules/shop/transaction/order/entity.yaml", ORDER)):
        file = project / "spec" / rel
        file.parent.mkdir(parents=True)
        file.write_text(text, encoding="utf-8")
    return project


def test_docs_makes_the_diagrams_then_check_is_fresh_and_goes_stale_when_a_spec_changes(
    shop: Path, tmp_path: Path
) -> None:
    env = cli_env(tmp_path)
    first = run_cli(["docs", "--check"], shop, env)  # no file yet: nothing can be stale, nothing written
    assert first.returncode == 0 and "does not exist yet" in first.stdout and not (shop / "docs").exists()
    made = run_cli(["docs"], shop, env)
    assert made.returncode == 0, made.stderr
    model = (shop / "docs" / "domain-model.md").read_text(encoding="utf-8")
    assert "# Domain model — Corner Shop" in model
    assert "erDiagram" in model and 'customer ||--o{ order : "customer"' in model
    assert "stateDiagram-v2" in model and "open --> paid : pay" in model and "[*] --> open" in model
    assert "formspec-consult undo" in made.stdout
    fresh = run_cli(["docs", "--check"], shop, env)
    assert fresh.returncode == 0 and "up to date" in fresh.stdout

    with (shop / "docs" / "domain-model.md").open("a", encoding="utf-8") as handle:
        handle.write("\nOur own notes: orders are paid at the counter.\n")
    order = shop / "spec" / "modules/shop/transaction/order/entity.yaml"
    order.write_text(ORDER.replace("{from: open, to: cancelled, via: cancel}",
                                   "{from: [open, paid], to: cancelled, via: cancel}"), encoding="utf-8")
    stale = run_cli(["docs", "--check"], shop, env)
    assert stale.returncode == 1 and "docs/domain-model.md is stale" in stale.stderr
    again = run_cli(["docs"], shop, env)
    assert again.returncode == 0, again.stderr
    model = (shop / "docs" / "domain-model.md").read_text(encoding="utf-8")
    assert "paid --> cancelled : cancel" in model
    assert model.endswith("\nOur own notes: orders are paid at the counter.\n")  # the owner's text is kept
    assert run_cli(["docs", "--check"], shop, env).returncode == 0

    undone = run_cli(["undo"], shop, env)  # the regeneration was an apply of the session: undone exactly
    assert undone.returncode == 0, undone.stderr
    assert "paid --> cancelled" not in (shop / "docs" / "domain-model.md").read_text(encoding="utf-8")
    (session,) = [p for p in (shop / ".formspec" / "consult").iterdir() if p.is_dir()]
    kinds = [e["type"] for e in EventLog.read(session / "events.jsonl")]
    assert kinds == ["apply", "apply", "undo"]


def test_a_hand_edit_inside_the_generated_part_is_refused_and_nothing_is_written(shop: Path, tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    assert run_cli(["docs"], shop, env).returncode == 0
    file = shop / "docs" / "domain-model.md"
    edited = file.read_text(encoding="utf-8").replace("erDiagram\n", "erDiagram\n    %% my note\n")
    file.write_text(edited, encoding="utf-8")
    for args in (["docs"], ["docs", "--check"]):
        refused = run_cli(args, shop, env)
        assert refused.returncode == 1
        assert "edited by hand between the generated-part markers" in refused.stderr
        assert "Move your own text above or below the markers" in refused.stderr
        assert file.read_text(encoding="utf-8") == edited


def test_a_project_with_no_entities_and_no_project_get_a_clear_message(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    empty = make_project(tmp_path / "empty")
    none = run_cli(["docs"], empty, env)
    assert none.returncode == 1 and "no entities yet" in none.stderr and not (empty / "docs").exists()
    assert not (empty / ".formspec").exists()  # no session was made for nothing
    outside = tmp_path / "nowhere"
    outside.mkdir()
    lost = run_cli(["docs", "--check"], outside, env)
    assert lost.returncode == 2 and "formspec-consult init" in lost.stderr
