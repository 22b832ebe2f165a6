"""Every suggestion a verifier can give is something the gate accepts: each finding's advice is
applied as written (the YAML snippets of its hint, where the hint says to put them) to a fixture
that triggers it; the project is validated again — no new gate problem — and the finding is gone."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from formspec_consult.spec import Project, open_project
from formspec_consult.spec.verify import VERIFIER_CODES, verify_overlay
from tests.helpers import copy_example
from tests.helpers import lifecycle_entity as entity

ORDER = "spec/modules/shop/transaction/order/entity.yaml"
LINE = "spec/modules/shop/transaction/order_line/entity.yaml"
PLAIN = """apiVersion: formspec.dev/v1
kind: Entity
metadata: {{name: {name}, module: shop}}
spec:
  version: v1
  characteristic: {characteristic}
  fields:
    - {{name: transaction_date, type: date, required: true}}
{fields}"""

# (code, files of the fixture) — at least one fixture per code; some codes have several shapes
FIXTURES: list[tuple[str, dict[str, str]]] = [
    ("FSV-LIFECYCLE-NO-BRANCH", {ORDER: entity(
        ["booked", "picked_up", "returned"], [("booked", "picked_up", "pick_up"), ("picked_up", "returned", "give_back")])}),
    ("FSV-LIFECYCLE-NO-BRANCH", {ORDER: entity(
        ["received", "washing", "ready", "collected"],
        [("received", "washing", "wash"), ("washing", "ready", "finish"), ("ready", "collected", "hand_over")])}),
    ("FSV-STATE-DEAD-END", {ORDER: entity(
        ["open", "waiting_parts", "done", "cancelled"],
        [("open", "waiting_parts", "order_parts"), ("open", "done", "finish"), ("open", "cancelled", "drop")])}),
    ("FSV-STATE-DEAD-END", {ORDER: entity(  # a waiting state declared last goes back where it came from
        ["open", "done", "cancelled", "on_hold"],
        [("open", "on_hold", "hold"), ("open", "done", "finish"), ("open", "cancelled", "drop")])}),
    ("FSV-STATE-DEAD-END", {ORDER: entity(  # Indonesian: waiting for parts, then done (selesai), or batal
        ["baru", "menunggu_sparepart", "selesai", "batal"],
        [("baru", "menunggu_sparepart", "pesan_sparepart"), ("baru", "selesai", "selesaikan"),
         ("baru", "batal", "batalkan")])}),
    ("FSV-STATE-UNREACHABLE", {ORDER: entity(
        ["open", "done", "cancelled", "reopened"],
        [("open", "done", "finish"), ("open", "cancelled", "drop"), ("reopened", "done", "finish")])}),
    ("FSV-DUE-NO-OVERDUE", {ORDER: entity(
        ["issued", "paid", "void"], [("issued", "paid", "pay"), ("issued", "void", "void_it")],
        "    - {name: due_date, type: date}\n")}),
    ("FSV-TRANSACTION-NO-LIFECYCLE", {ORDER: PLAIN.format(name="order", characteristic="transaction", fields="")}),
    ("FSV-AMOUNT-NO-LOWER-BOUND", {ORDER: PLAIN.format(name="order", characteristic="master",
                                                        fields="    - {name: total, type: money}\n")}),
    ("FSV-AMOUNT-NO-LOWER-BOUND", {ORDER: PLAIN.format(name="order", characteristic="master",
                                                        fields="    - {name: berat_kg, type: decimal}\n")}),
    ("FSV-RELATION-NO-INVERSE", {
        ORDER: PLAIN.format(name="order", characteristic="master", fields=(
            "    - name: lines\n      type: relation\n      relation: {type: has_many, resource: shop.order_line}\n")),
        LINE: PLAIN.format(name="order_line", characteristic="master", fields="    - {name: qty, type: integer}\n"),
    }),
]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return open_project(copy_example(tmp_path))


def gate(project: Project, files: dict[str, str]) -> set[tuple[str, str, str]]:
    return {(p.code, p.source, p.message) for p in project.validate(overlay=dict(files)).problems}


def findings(project: Project, files: dict[str, str]) -> list[dict[str, Any]]:
    return verify_overlay(project, dict(files), list(files))


def field(spec: dict[str, Any], name: str) -> dict[str, Any]:
    return next(f for f in spec["fields"] if f["name"] == name)


def at(spec: dict[str, Any], dotted: str) -> tuple[dict[str, Any], str]:
    """(the mapping holding the last key of `dotted`, that key), creating mappings on the way."""
    *parents, last = dotted.split(".")
    node = spec
    for key in parents:
        node = node.setdefault(key, {})
    return node, last


def apply(files: dict[str, str], finding: dict[str, Any], hint: str) -> dict[str, str]:
    """`files` with every instruction of `hint` carried out in the finding's document (or the one it names)."""
    docs = {rel: yaml.safe_load(text) for rel, text in files.items()}
    by_name = {doc["metadata"]["name"]: rel for rel, doc in docs.items()}
    own = finding["source"]
    done = 0
    for snippet, place, owner in re.findall(r"(?:[Aa]dd|and) `([^`]+)` to (?:the )?`spec\.([\w.]+)`(?: of '(\w+)')?", hint):
        node, key = at(docs[by_name[owner] if owner else own]["spec"], place)
        node.setdefault(key, []).append(yaml.safe_load(snippet))
        done += 1
    for snippet, key, name in re.findall(r"[Aa]dd `([^`]+)` to the `(\w+)` of field `(\w+)`", hint):
        field(docs[own]["spec"], name).setdefault(key, []).append(yaml.safe_load(snippet))
        done += 1
    for place, snippet in re.findall(r"set `spec\.([\w.]+)` to `([^`]+)`", hint):
        node, key = at(docs[own]["spec"], place)
        node[key] = yaml.safe_load(snippet)
        done += 1
    assert done, f"the advice names nothing to write: {hint}"
    return {rel: yaml.safe_dump(doc, sort_keys=False, allow_unicode=True) for rel, doc in docs.items()}


def suggestions(hint: str) -> list[str]:
    """The hint as written, and once per alternative it offers (`X` instead)."""
    out = [hint]
    first = re.search(r"`([^`]+)`", hint)
    for alternative in re.findall(r"\(`([^`]+)` instead", hint):
        assert first is not None
        out.append(hint.replace(first.group(0), f"`{alternative}`", 1))
    return out


@pytest.mark.parametrize(("code", "files"), FIXTURES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(FIXTURES)])
def test_each_suggestion_of_a_finding_applied_as_written_passes_the_gate_and_clears_the_finding(
    project: Project, code: str, files: dict[str, str]
) -> None:
    before = gate(project, files)
    assert not before, f"the fixture itself must be valid: {before}"
    found = [f for f in findings(project, files) if f["code"] == code]
    assert found, f"the fixture does not trigger {code}"
    for one in found:
        for hint in suggestions(one["hint"]):
            fixed = apply(files, one, hint)
            assert gate(project, fixed) == set(), (hint, gate(project, fixed))
            left = [f for f in findings(project, fixed) if f["code"] == code and f["message"] == one["message"]]
            assert not left, (hint, left)


def test_every_verifier_code_has_a_fixture_here() -> None:
    assert {code for code, _ in FIXTURES} == set(VERIFIER_CODES)


def test_a_rental_that_ends_returned_still_needs_a_cancelled_branch_but_two_ways_to_end_are_one(
    project: Project,
) -> None:
    rental = entity(["booked", "picked_up", "returned"], [("booked", "picked_up", "pick_up"),
                                                         ("picked_up", "returned", "give_back")])
    assert [f["code"] for f in findings(project, {ORDER: rental})] == ["FSV-LIFECYCLE-NO-BRANCH"]
    forked = entity(["booked", "picked_up", "returned", "no_pickup"],
                    [("booked", "picked_up", "pick_up"), ("picked_up", "returned", "give_back"),
                     ("booked", "no_pickup", "expire")])
    assert "FSV-LIFECYCLE-NO-BRANCH" not in [f["code"] for f in findings(project, {ORDER: forked})]


@pytest.mark.parametrize(("states", "transitions"), [
    # the eval's recorded drafts: goods received, a motorbike picked up, a walk-in who left
    (["ordered", "received", "cancelled"], [("ordered", "received", "receive"), ("ordered", "cancelled", "cancel")]),
    (["received", "in_service", "ready", "picked_up", "cancelled"],
     [("received", "in_service", "start"), ("in_service", "ready", "finish"), ("ready", "picked_up", "hand_over"),
      ("received", "cancelled", "cancel")]),
    (["waiting", "called", "served", "left"],
     [("waiting", "called", "call"), ("called", "served", "serve"), ("waiting", "left", "mark_left")]),
    # Indonesian and English end words, wherever they are declared
    (["baru", "selesai", "dibatalkan", "ditolak"],
     [("baru", "selesai", "selesaikan"), ("baru", "dibatalkan", "batalkan"), ("baru", "ditolak", "tolak")]),
    (["tagihan", "lunas", "batal"], [("tagihan", "lunas", "bayar"), ("tagihan", "batal", "batalkan")]),
    (["booked", "no_show", "done", "cancelled"],
     [("booked", "no_show", "miss"), ("booked", "done", "finish"), ("booked", "cancelled", "cancel")]),
])
def test_a_state_that_reads_as_an_end_or_ends_the_declared_flow_is_no_dead_end(
    project: Project, states: list[str], transitions: list[tuple[str, str, str]]
) -> None:
    codes = [f["code"] for f in findings(project, {ORDER: entity(states, transitions)})]
    assert "FSV-STATE-DEAD-END" not in codes


def test_dead_end_advice_leads_on_through_the_flow_never_into_an_unplanned_ending_or_out_of_an_end(
    project: Project,
) -> None:
    stuck = entity(["open", "waiting_parts", "cancelled", "done"],
                   [("open", "waiting_parts", "order_parts"), ("open", "done", "finish"), ("open", "cancelled", "drop")])
    [found] = [f for f in findings(project, {ORDER: stuck}) if f["code"] == "FSV-STATE-DEAD-END"]
    assert "`{from: waiting_parts, to: done, via: finish}`" in found["hint"]  # the flow's next step, its own action
    late = entity(["issued", "overdue", "paid", "void"],
                  [("issued", "overdue", "mark_overdue"), ("issued", "paid", "pay"), ("issued", "void", "void_it")])
    [overdue] = [f for f in findings(project, {ORDER: late}) if f["code"] == "FSV-STATE-DEAD-END"]
    assert "`{from: overdue, to: paid, via: pay}`" in overdue["hint"]  # a late bill is still paid
