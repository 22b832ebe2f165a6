"""The deterministic verifiers (spec/verify): what a valid draft may still miss about the business."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import formspec_consult
from formspec_consult.spec import Project, open_project
from formspec_consult.spec.verify import VERIFIER_CODES, verify_overlay
from tests.helpers import copy_example
from tests.helpers import lifecycle_entity as entity

ORDER = "spec/modules/shop/transaction/order/entity.yaml"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return open_project(copy_example(tmp_path))


def codes(project: Project, text: str, rel: str = ORDER) -> list[str]:
    return [f["code"] for f in verify_overlay(project, {rel: text}, [rel])]


def test_a_transaction_lifecycle_without_a_cancelled_branch_is_a_finding(project: Project) -> None:
    linear = entity(["received", "washing", "ready", "collected"],
                    [("received", "washing", "wash"), ("washing", "ready", "finish"), ("ready", "collected", "hand_over")])
    found = verify_overlay(project, {ORDER: linear}, [ORDER])
    assert [f["code"] for f in found] == ["FSV-LIFECYCLE-NO-BRANCH"]
    assert found[0]["entity"] == "order" and found[0]["source"] == ORDER and found[0]["line"] > 1
    assert "cancelled" in found[0]["hint"]


def test_an_indonesian_branch_state_counts_as_a_branch(project: Project) -> None:
    text = entity(["diterima", "dicuci", "selesai", "dibatalkan"],
                  [("diterima", "dicuci", "cuci"), ("dicuci", "selesai", "selesaikan"), ("diterima", "dibatalkan", "batalkan")])
    assert codes(project, text) == []


def test_a_state_with_no_way_out_that_is_not_an_end_state_is_a_finding(project: Project) -> None:
    text = entity(["open", "waiting_parts", "done", "cancelled"],
                  [("open", "waiting_parts", "order_parts"), ("open", "done", "finish"), ("open", "cancelled", "drop")])
    found = verify_overlay(project, {ORDER: text}, [ORDER])
    assert [(f["code"], "waiting_parts" in f["message"]) for f in found] == [("FSV-STATE-DEAD-END", True)]


def test_a_state_nothing_leads_to_is_unreachable(project: Project) -> None:
    text = entity(["open", "done", "cancelled", "reopened"],
                  [("open", "done", "finish"), ("open", "cancelled", "drop"), ("reopened", "done", "finish")])
    assert codes(project, text) == ["FSV-STATE-UNREACHABLE"]


def test_a_transaction_without_a_state_machine_and_money_without_a_lower_bound(project: Project) -> None:
    text = """apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: order, module: shop}
spec:
  version: v1
  characteristic: transaction
  fields:
    - {name: transaction_date, type: date}
    - {name: total, type: money}
    - {name: deposit, type: money, min: 0}
    - {name: tip, type: decimal, rules: [positive]}
    - {name: berat_kg, type: decimal}
"""
    found = verify_overlay(project, {ORDER: text}, [ORDER])
    assert [f["code"] for f in found] == ["FSV-TRANSACTION-NO-LIFECYCLE", "FSV-AMOUNT-NO-LOWER-BOUND",
                                          "FSV-AMOUNT-NO-LOWER-BOUND"]
    assert "'total'" in found[1]["message"] and "'berat_kg'" in found[2]["message"]


def test_a_due_date_without_an_overdue_state_is_a_finding(project: Project) -> None:
    fields = "    - {name: due_date, type: date}\n"
    text = entity(["issued", "paid", "void"], [("issued", "paid", "pay"), ("issued", "void", "void_it")], fields)
    assert codes(project, text) == ["FSV-DUE-NO-OVERDUE"]
    overdue = entity(["issued", "overdue", "paid", "void"],
                     [("issued", "paid", "pay"), ("issued", "overdue", "lapse"), ("overdue", "paid", "pay"),
                      ("issued", "void", "void_it")], fields)
    assert codes(project, overdue) == []


def test_a_has_many_whose_target_has_no_belongs_to_back_is_a_finding(project: Project) -> None:
    line_rel = "spec/modules/shop/transaction/order_line/entity.yaml"
    lines_field = "    - {name: lines, type: relation, relation: {type: has_many, resource: shop.order_line}}\n"
    order = entity(["open", "done", "cancelled"], [("open", "done", "finish"), ("open", "cancelled", "drop")],
                   lines_field)
    bare_line = """apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: order_line, module: shop}
spec:
  version: v1
  characteristic: master
  fields:
    - {name: label, type: string}
"""
    assert codes(project, order) == []  # the target does not exist: validation's job, not ours
    found = verify_overlay(project, {ORDER: order, line_rel: bare_line}, [ORDER])
    assert [f["code"] for f in found] == ["FSV-RELATION-NO-INVERSE"]
    linked = bare_line + "    - {name: order, type: relation, relation: {type: belongs_to, resource: shop.order}}\n"
    assert verify_overlay(project, {ORDER: order, line_rel: linked}, [ORDER]) == []


def test_findings_are_reported_only_for_the_files_asked_about(project: Project) -> None:
    linear = entity(["new", "done"], [("new", "done", "finish")])
    assert verify_overlay(project, {ORDER: linear}, ["spec/modules/shop/master/service/entity.yaml"]) != []
    assert all(f["source"] != ORDER for f in verify_overlay(project, {ORDER: linear}, []))


def test_every_code_a_verifier_emits_is_in_the_catalogue() -> None:
    folder = Path(formspec_consult.__file__).parent / "spec" / "verify"
    used = {code for file in folder.glob("*.py") for code in re.findall(r'"(FSV-[A-Z-]+)"', file.read_text())}
    assert used == set(VERIFIER_CODES)


def test_the_verifiers_import_nothing_of_ours_outside_spec() -> None:
    folder = Path(formspec_consult.__file__).parent / "spec" / "verify"
    for file in folder.glob("*.py"):
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("formspec_consult"):
                assert node.module.startswith("formspec_consult.spec"), f"{file.name} imports {node.module}"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("formspec_consult") or alias.name.startswith("formspec_consult.spec")
