"""Scoring on hand-made transcripts whose right scores are known."""

from __future__ import annotations

import json
from typing import Any

from formspec_consult.eval.corpus import Expected, Named
from formspec_consult.eval.scoring import ApplyOutcome, EntityFacts, IterateState, cost, norm, score_case
from formspec_consult.store.records import (
    EventRecord,
    PhaseRecord,
    ResponseRecord,
    SideReplyRecord,
    ToolCallRecord,
    ToolResultRecord,
    TurnStartedRecord,
    UsageRecord,
    record_from_json,
)

EXPECTED = Expected(
    entities=(Named("laundry-order", ("cucian", "order")), Named("customer", ("pelanggan",)), Named("courier")),
    states={"laundry-order": (Named("received", ("diterima",)), Named("ready"), Named("cancelled", branch=True),
                              Named("lost", branch=True))},
    relations=(("laundry-order", "customer"), ("laundry-order", "courier")),
    modules=("whatsapp-notifications", "delivery-tracking"),
)
ORDER = EntityFacts.of("cucian", "laundry", {
    "plural": "cucian",
    "state_machine": {"field": "status", "initial": "diterima",
                      "states": [{"name": "diterima"}, {"name": "ready"}, {"name": "dibatalkan"}]},
    "fields": [{"name": "pelanggan", "type": "relation", "relation": {"type": "belongs_to", "resource": "laundry.pelanggan"}}],
})
CUSTOMER = EntityFacts.of("pelanggan", "laundry", {"plural": "pelanggan", "fields": [{"name": "name", "type": "string"}]})
ENTITY_YAML = "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: cucian}\nspec: {version: v1}\n"


class Log:
    """Builds an event log the way the engine writes one."""

    def __init__(self) -> None:
        self.events: list[EventRecord] = []
        self.n = 0

    def say(self, text: str) -> Log:
        self.events.append(ResponseRecord(text=text))
        return self

    def tool(self, name: str, arguments: dict[str, Any], result: Any, ok: bool = True) -> Log:
        self.n += 1
        call_id = f"c{self.n}"
        self.events.append(ToolCallRecord(call_id=call_id, name=name, arguments=arguments))
        text = result if isinstance(result, str) else json.dumps(result)
        self.events.append(ToolResultRecord(call_id=call_id, name=name, ok=ok, result=text))
        return self

    def propose(self, path: str, blocking: int, findings: int = 0) -> Log:
        return self.tool("propose_spec_file", {"path": path, "content": ENTITY_YAML},
                         {"blocking_problems": blocking, "findings": [{"code": "FSV-X"}] * findings})


def skills_for_kind(kind: str) -> set[str]:
    return {"entity-authoring"} if kind == "Entity" else set()


def test_alias_aware_coverage_counts_main_and_branch_states_apart() -> None:
    log = Log().say("Siap.").tool("read_skill", {"name": "entity-authoring"}, "# skill").propose("a.yaml", 0)
    outcome = ApplyOutcome(drafts={"a.yaml": True}, applied=["a.yaml"], project_valid=True)
    score = score_case(log.events, [ORDER, CUSTOMER], set(), EXPECTED, outcome, skills_for_kind)
    cover = score["coverage"]
    assert cover["entities"] == 0.667  # order (alias cucian) and customer (alias pelanggan), no courier
    assert cover["entities_matched"] == {"laundry-order": "cucian", "customer": "pelanggan", "courier": None}
    assert cover["states"] == 1.0  # diterima (alias of received) and ready
    assert cover["branch_states"] == 0.0  # dibatalkan is not an alias given for cancelled; lost missing
    assert cover["missing_states"] == {"laundry-order": ["cancelled", "lost"]}
    assert cover["relations"] == 0.5 and cover["missing_relations"] == [["laundry-order", "courier"]]


def test_validity_is_the_gates_verdict_with_refusals_on_the_way() -> None:
    log = Log().propose("a.yaml", 2).propose("a.yaml", 0, findings=1).propose("b.yaml", 1)
    outcome = ApplyOutcome(drafts={"a.yaml": True, "b.yaml": False}, applied=["a.yaml"],
                           refused=[{"path": "b.yaml", "error": "1 blocking problem(s)"}], project_valid=True)
    valid = score_case(log.events, [], set(), EXPECTED, outcome, skills_for_kind)["validity"]
    assert (valid["drafts"], valid["drafts_passing"], valid["all_drafts_pass"]) == (2, 1, False)
    assert valid["gate_refusals"] == 2 and valid["apply_refusals"] == 1
    assert valid["findings_on_last_drafts"] == 1
    assert valid["score"] == 0.5  # not every draft passes; the project validates after applying


def test_no_drafts_scores_zero_validity() -> None:
    valid = score_case(Log().say("Hello").events, [], set(), EXPECTED, ApplyOutcome(), skills_for_kind)["validity"]
    assert valid["score"] == 0.0 and valid["project_valid"] is None


def test_discipline_catches_yaml_in_chat_and_a_draft_before_its_skill() -> None:
    pasted = "Here it is:\n```yaml\napiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: x}\n```"
    log = Log().say(pasted).propose("a.yaml", 0).tool("read_skill", {"name": "entity-authoring"}, "# skill")
    manners = score_case(log.events, [], set(), EXPECTED, ApplyOutcome(), skills_for_kind)["discipline"]
    assert manners == {"yaml_pasted_in_chat": 1, "skill_read_before_first_draft": {"Entity": False}, "score": 0.0}
    prose = Log().say("The kind: field says what it is; apiVersion: too.").tool(
        "read_skill", {"name": "Entity-Authoring"}, "# skill").propose("a.yaml", 0)
    assert score_case(prose.events, [], set(), EXPECTED, ApplyOutcome(), skills_for_kind)["discipline"]["score"] == 1.0


def test_module_reuse_counts_depends_lookups_and_proposals() -> None:
    log = Log().tool("get_module_detail", {"name": "delivery-tracking"}, {"name": "delivery-tracking"})
    reuse = score_case(log.events, [], set(), EXPECTED, ApplyOutcome(), skills_for_kind)["modules"]
    assert reuse == {"score": 0.5, "evidence": {"whatsapp-notifications": None, "delivery-tracking": "looked up"}}
    log.say("I suggest the WhatsApp-Notifications module for pickup messages.")
    reuse = score_case(log.events, [], {"delivery-tracking"}, EXPECTED, ApplyOutcome(), skills_for_kind)["modules"]
    assert reuse["evidence"] == {"whatsapp-notifications": "proposed", "delivery-tracking": "depends"}


def test_the_case_score_is_the_mean_of_the_parts() -> None:
    log = Log().tool("read_skill", {"name": "entity-authoring"}, "# skill").propose("a.yaml", 0)
    outcome = ApplyOutcome(drafts={"a.yaml": True}, applied=["a.yaml"], project_valid=True)
    score = score_case(log.events, [ORDER, CUSTOMER], set(), EXPECTED, outcome, skills_for_kind)
    # validity 1, entities .667, states 1, branch 0, relations .5, modules 0, discipline 1
    assert score["score"] == round((1 + 0.667 + 1 + 0 + 0.5 + 0 + 1) / 7, 3)


def test_cost_sums_usage_and_the_verify_pass() -> None:
    events = [
        TurnStartedRecord(turn=1), UsageRecord(prompt_tokens=100, completion_tokens=10, cached_tokens=80, cost=0.01),
        UsageRecord(prompt_tokens=120, completion_tokens=5, cached_tokens=0, cost=None),
        SideReplyRecord(purpose="verify", prompt="verify-draft@1", prompt_tokens=50, completion_tokens=7, cost=0.002),
        SideReplyRecord(purpose="compaction", text="not a verify request"),
    ]
    assert cost(events, 1.234) == {"prompt_tokens": 270, "cached_tokens": 80, "completion_tokens": 22,
                                   "cost": 0.012, "requests": 3, "turns": 1, "seconds": 1.23}
    # an older verify reply written before its usage keys existed counts as a request without tokens
    older = record_from_json({"v": 1, "seq": 9, "ts": "t", "type": "side_reply", "purpose": "verify", "text": "ok"})
    assert cost([*events, older], 0)["requests"] == 4


def test_names_compare_without_case_separators_or_plural() -> None:
    assert norm("Laundry-Orders") == norm("laundry_order") == "laundryorder"
    assert norm("categories") == "category" and norm("class") == "class"


RENTAL_EXPECTED = Expected(
    entities=(Named("rental"),),
    states={"rental": (Named("reserved"), Named("picked-up", ("out",)), Named("returned", success=True),
                       Named("overdue", branch=True), Named("cancelled", branch=True))},
)


def rental(transitions: list[dict[str, Any]]) -> EntityFacts:
    names = ["reserved", "out", "overdue", "returned", "cancelled"]
    return EntityFacts.of("rental", "sewa", {"state_machine": {
        "field": "status", "initial": "reserved", "states": [{"name": n} for n in names],
        "transitions": transitions}})


def test_returned_ends_a_rental_well_and_overdue_counts_as_a_branch_only_off_the_main_path() -> None:
    outcome = ApplyOutcome(drafts={"a.yaml": True}, applied=["a.yaml"], project_valid=True)
    good = rental([{"from": "reserved", "to": "out"}, {"from": "out", "to": "returned"},
                   {"from": "out", "to": "overdue"}, {"from": "overdue", "to": "returned"},
                   {"from": "reserved", "to": "cancelled"}])
    cover = score_case([], [good], set(), RENTAL_EXPECTED, outcome, skills_for_kind)["coverage"]
    assert cover["states"] == 1.0 and cover["branch_states"] == 1.0
    assert cover["lifecycles"]["rental"] == {"initial": "reserved", "success": "returned",
                                             "main_path": ["reserved", "out", "returned"],
                                             "branches": ["overdue", "cancelled"]}
    # Every rental made to pass through overdue: the state is there, but it is no branch.
    forced = rental([{"from": "reserved", "to": "out"}, {"from": "out", "to": "overdue"},
                     {"from": "overdue", "to": "returned"}, {"from": "*", "to": "cancelled"}])
    cover = score_case([], [forced], set(), RENTAL_EXPECTED, outcome, skills_for_kind)["coverage"]
    assert cover["branch_states"] == 0.5 and cover["misplaced_states"] == {"rental": ["overdue"]}
    assert cover["states"] == 1.0 and not cover["missing_states"]


def test_a_main_state_no_way_to_success_passes_through_is_not_counted() -> None:
    outcome = ApplyOutcome(drafts={"a.yaml": True}, applied=["a.yaml"], project_valid=True)
    stuck = rental([{"from": "reserved", "to": "returned"}, {"from": "reserved", "to": "out"},
                    {"from": "reserved", "to": "cancelled"}])  # "out" leads nowhere
    cover = score_case([], [stuck], set(), RENTAL_EXPECTED, outcome, skills_for_kind)["coverage"]
    assert cover["states"] == 0.667 and cover["misplaced_states"] == {"rental": ["picked-up", "overdue"]}


def test_without_transitions_the_states_present_are_counted_as_before() -> None:
    outcome = ApplyOutcome(drafts={"a.yaml": True}, applied=["a.yaml"], project_valid=True)
    cover = score_case([], [rental([])], set(), RENTAL_EXPECTED, outcome, skills_for_kind)["coverage"]
    assert cover["states"] == 1.0 and cover["branch_states"] == 1.0 and cover["lifecycles"] == {}


TIPS = Expected(entities=(Named("sale"), Named("customer")), relations=(("sale", "customer"),),
                fields={"sale": (Named("tip", ("gratuity",)),)}, changelog=True)
SALE_PATH = "modules/sales/sale.yaml"


def sale(*fields: str) -> EntityFacts:
    return EntityFacts.of("sale", "sales", {"fields": [{"name": "customer", "type": "relation", "relation": {
        "type": "belongs_to", "resource": "shop.customer"}}, *({"name": f, "type": "money"} for f in fields)]})


def test_an_iterate_case_scores_the_phase_what_is_kept_the_fields_added_and_the_dated_changelog() -> None:
    log = Log().tool("read_skill", {"name": "entity-authoring"}, "# skill").propose(SALE_PATH, 0)
    log.events.insert(0, PhaseRecord(phase="iterate", reason="designed"))
    outcome = ApplyOutcome(drafts={SALE_PATH: True, "docs/changelog.md": True},
                           applied=[SALE_PATH, "docs/changelog.md"], project_valid=True)
    before = "# Changelog\n\n## 2026-11-01 — start\n"
    state = IterateState(("sale", "customer"), before, before + f"\n## 2026-12-02 — tips\n\nFiles: {SALE_PATH}\n")
    customer = EntityFacts.of("customer", "shop", {})
    good = score_case(log.events, [sale("gratuity"), customer], set(), TIPS, outcome, skills_for_kind, state)
    assert good["iterate"] == {"entered_iterate": True, "kept": 1.0, "lost_entities": [], "fields": 1.0,
                               "missing_fields": {}, "changelog": True, "score": 1.0}
    assert good["score"] == 1.0
    # no phase event, the customer lost, no tip, and a changelog rewritten without a dated entry naming the file
    bad = score_case(log.events[1:], [sale()], set(), TIPS, outcome, skills_for_kind,
                     IterateState(("sale", "customer"), before, "# Changelog\n\nTips added.\n"))
    assert bad["iterate"]["score"] == round((0 + 0.5 + 0 + 0) / 4, 3)
    assert bad["iterate"]["lost_entities"] == ["customer"] and bad["iterate"]["missing_fields"] == {"sale": ["tip"]}
    assert "iterate" not in score_case(log.events, [customer], set(), EXPECTED, outcome, skills_for_kind)
