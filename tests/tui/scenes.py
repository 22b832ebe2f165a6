"""Scripted scenes shared by the snapshot tests (and handy for looking at the app by hand)."""

from __future__ import annotations

from formspec_consult.store.agent_events import (
    AgentEvent,
    AssistantDelta,
    AssistantMessage,
    ToolCallFinished,
    ToolCallStarted,
    UsageUpdated,
)
from tests.tui.fakes import FakeDraft, FakeEngine

OPTIONS = ("A) Walk-ins only", "B) Bookings and walk-ins", "C) Bookings only")
BOOKING_DIFF = (
    "--- a/modules/shop/transaction/booking/entity.yaml\n"
    "+++ b/modules/shop/transaction/booking/entity.yaml\n"
    "@@ -5,4 +5,6 @@\n"
    "   characteristic: transaction\n"
    "   fields:\n"
    "     - {name: customer, type: ref, ref: customer}\n"
    "-    - {name: time, type: datetime}\n"
    "+    - {name: starts_at, type: datetime, required: true}\n"
    "+    - {name: barber, type: ref, ref: barber}\n"
)


def first_turn() -> list[AgentEvent]:
    """Discovery: a template lookup, a refused draft, usage, and a question with options."""
    return [
        ToolCallStarted("c1", "registry", "list_business_templates", {}),
        ToolCallFinished("c1", "registry", "list_business_templates", True, '{"templates": [{"id": "barbershop"}]}', 231.0),
        ToolCallStarted("c2", "formspec", "propose_spec_file",
                        {"path": "modules/shop/master/customer/entity.yaml", "content": "kind: Entity"}),
        ToolCallFinished("c2", "formspec", "propose_spec_file", False, '{"error": "fields: required"}', 12.5),
        UsageUpdated(context_tokens=12500, threshold_tokens=90000, window_tokens=120000, reported=True,
                     session_cost=0.0123),
        AssistantDelta("A **barbershop**, then. "),
        AssistantMessage("A **barbershop**, then. How do customers come in?\n\n" + "\n".join(OPTIONS), options=OPTIONS),
    ]


def review_drafts() -> list[FakeDraft]:
    return [
        FakeDraft("modules/shop/transaction/booking/entity.yaml", "modified", True, [], BOOKING_DIFF),
        FakeDraft("modules/shop/master/barber/entity.yaml", "new", False,
                  ["spec.fields[1].type: 'phone' is not a field type (use string)"],
                  "--- /dev/null\n+++ b/modules/shop/master/barber/entity.yaml\n@@ -0,0 +1,3 @@\n+kind: Entity\n"
                  "+metadata: {name: barber, module: shop}\n+spec: {fields: [{name: phone, type: phone}]}\n"),
    ]


def barbershop_engine() -> FakeEngine:
    return FakeEngine([first_turn()], drafts=review_drafts(), session_id="20261130-0900-demo", model="openai/gpt-4o")


APPOINTMENT = """\
apiVersion: formspec.dev/v1
kind: Entity
metadata:
  name: appointment
  module: booking
spec:
  characteristic: transaction
  fields:
    - {name: starts_at, type: datetime, required: true}
    - name: customer
      type: relation
      required: true
      relation: {type: belongs_to, resource: shop.customer}
    - name: barber
      type: relation
      relation: {type: belongs_to, resource: shop.barber}
    - {name: status, type: enum, enum_values: [booked, checked_in, done, no_show, cancelled]}
  state_machine:
    field: status
    initial: booked
    states:
      - {name: booked, label: Booked}
      - {name: checked_in, label: Checked in}
      - {name: done, label: Done}
      - {name: no_show, label: No-show}
      - {name: cancelled, label: Cancelled}
    transitions:
      - {from: booked, to: checked_in, via: check_in}
      - {from: checked_in, to: done, via: complete}
      - {from: booked, to: no_show, via: mark_no_show}
      - {from: [booked, checked_in], to: cancelled, via: cancel}
"""


def new_file_diff(path: str, text: str) -> str:
    lines = text.splitlines()
    return f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)


def appointment_engine() -> FakeEngine:
    """A session with one new Entity draft that has a lifecycle (for the owner's preview)."""
    path = "modules/booking/transaction/appointment/entity.yaml"
    drafts = [FakeDraft(path, "new", True, [], new_file_diff(path, APPOINTMENT)), *review_drafts()]
    return FakeEngine([first_turn()], drafts=drafts, session_id="20261130-0900-demo", model="openai/gpt-4o")


# A lifecycle written with the unhappy way out of each state first: the main path must still run
# requested → approved → picked up → completed, never through a rejection or a dead end.
RENTAL = """apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: rental, module: hire}
spec:
  characteristic: transaction
  fields:
    - {name: customer, type: relation, required: true, relation: {type: many_to_one, resource: crm.customer}}
    - {name: pickup_on, type: date, required: true}
    - {name: status, type: string}
  state_machine:
    field: status
    initial: requested
    states:
      - {name: requested, label: Requested}
      - {name: on_hold, label: On hold}
      - {name: rejected, label: Rejected}
      - {name: approved, label: Approved}
      - {name: picked_up, label: Picked up}
      - {name: overdue, label: Overdue}
      - {name: completed, label: Completed}
      - {name: lost, label: Lost}
    transitions:
      - {from: requested, to: on_hold, via: hold}
      - {from: requested, to: rejected, via: reject}
      - {from: requested, to: approved, via: approve}
      - {from: approved, to: picked_up, via: pick_up}
      - {from: picked_up, to: overdue, via: mark_overdue}
      - {from: overdue, to: lost, via: write_off}
      - {from: overdue, to: completed, via: return_late}
      - {from: picked_up, to: completed, via: give_back}
"""
RENTAL_PATH = "modules/hire/transaction/rental/entity.yaml"


def rental_engine() -> FakeEngine:
    """A session whose Entity draft's lifecycle lists the unhappy ways first."""
    drafts = [FakeDraft(RENTAL_PATH, "new", True, [], new_file_diff(RENTAL_PATH, RENTAL))]
    return FakeEngine([first_turn()], drafts=drafts, session_id="20261130-0900-demo", model="openai/gpt-4o")
