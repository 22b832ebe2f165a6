"""Tool calls, the status bar, compaction, diff review (accept, reject, undo, accept all)."""

from __future__ import annotations

from typing import Any, cast

import pytest
from textual.widgets import Collapsible, OptionList

from formspec_consult.store.agent_events import (
    AssistantMessage,
    CompactionDone,
    DraftsChanged,
    Notice,
    ToolCallFinished,
    ToolCallStarted,
    UsageUpdated,
)
from formspec_consult.store.records import CompactionMethod
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.conversation import ConversationView
from formspec_consult.tui.widgets.diff_pane import DiffPane
from formspec_consult.tui.widgets.prompt_input import PromptInput
from formspec_consult.tui.widgets.status_bar import StatusBar
from formspec_consult.tui.widgets.tool_calls import ToolCallsPane
from tests.tui.conftest import SIZE, notices, wait_until, widget_text
from tests.tui.fakes import FakeDraft, FakeEngine, Hold, factory_for
from tests.tui.test_conversation_flow import send

pytestmark = pytest.mark.anyio

DIFF = "--- a/modules/shop/entities/booking.yaml\n+++ b/modules/shop/entities/booking.yaml\n@@ -1 +1,2 @@\n kind: Entity\n+name: Booking\n"


def drafts() -> list[FakeDraft]:
    return [
        FakeDraft("modules/shop/entities/booking.yaml", "modified", True, [], DIFF),
        FakeDraft("modules/shop/entities/customer.yaml", "new", False, ["fields[1].phone: unknown type 'phone'"], "+kind: Entity\n"),
        FakeDraft("modules/shop/app.yaml", "new", True, [], "+kind: App\n"),
    ]


async def test_a_tool_call_shows_running_then_ok_with_duration_and_a_collapsed_result() -> None:
    engine = FakeEngine([[
        ToolCallStarted("c1", "formspec-local", "validate_spec", {"yaml": "kind: Entity\nname: Booking"}),
        Hold(),
        ToolCallFinished("c1", "formspec-local", "validate_spec", True, '{"valid": true}', 1234.0),
        AssistantMessage("Valid."),
    ]])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "check it")
        await wait_until(pilot, lambda: app.query(ToolCallsPane))  # mounted after the first frame
        pane = app.query_one(ToolCallsPane)
        await wait_until(pilot, lambda: pane.entry("c1") is not None and engine.holding)
        entry = pane.entry("c1")
        assert entry is not None and entry.status == "running"
        assert app.query_one(StatusBar).info.state == "running validate_spec…"
        engine.release()
        await wait_until(pilot, lambda: entry.status == "ok")
        assert entry.duration_ms == 1234.0 and entry.result == '{"valid": true}'
        assert entry.collapsed
        header = widget_text(entry.query_one("CollapsibleTitle"))
        assert "✓ validate_spec ok 1.23s formspec-local yaml=kind:" in header
        assert "yaml=kind: Entity⏎name: Booki" in entry.header().plain
        entry.collapsed = False
        await pilot.pause()
        body = widget_text(entry.query_one(".tool-body"))
        assert "yaml: |-\n  kind: Entity\n  name: Booking" in "\n".join(line.rstrip() for line in body.splitlines())
        assert '{"valid": true}' in body  # the YAML argument reads as YAML
        assert "formspec-local: running (18 tools)" in str(pane.query_one("#mcp-state").render())


async def test_usage_and_compaction_update_the_status_bar_and_show_the_summary() -> None:
    summary = "## Goal\nBarbershop bookings\n## Decisions\n- B) Bookings and walk-ins"
    engine = FakeEngine([[
        UsageUpdated(context_tokens=81000, threshold_tokens=90000, window_tokens=120000, reported=True, session_cost=0.0421),
        CompactionDone(summary=summary, replaced_messages=40, tokens_before=81000, tokens_after=9000),
        UsageUpdated(context_tokens=9000, threshold_tokens=90000, window_tokens=120000, reported=True,
                     session_cost=0.05, compactions=1),
        AssistantMessage("Carrying on."),
    ]])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/compact keep the booking rules")
        await wait_until(pilot, lambda: app.query_one(StatusBar).info.compactions == 1 and engine.sent)
        await wait_until(pilot, lambda: app.query_one(StatusBar).info.state == "ready")
        assert engine.sent == ["/compact keep the booking rules"]  # engine commands go to the engine
        text = str(app.query_one(StatusBar).render())
        assert "1 compaction" in text and "$0.0500" in text and "reported" in text
        assert "context 9.0k reported · 10% of 90.0k to compaction · window 120.0k" in text
        assert any("History compacted" in n for n in notices(app))
        block = next(b for b in app.query_one(ConversationView).blocks if getattr(b, "role", "") == "compaction")
        assert isinstance(block, Collapsible) and "40 messages" in block.title and block.collapsed
        block.collapsed = False
        await wait_until(pilot, lambda: block.query("Markdown"))
        assert "Barbershop bookings" in widget_text(block.query_one("MarkdownParagraph"))


async def test_drafts_appear_with_badges_and_problems_and_the_diff_is_highlighted() -> None:
    engine = FakeEngine(drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query(DiffPane))  # mounted after the first frame
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: len(pane.drafts) == 3)
        assert [d.badges for d in pane.drafts] == [("new",), ("modified",), ("new", "invalid")]
        listing = pane.query_one(OptionList)
        assert "[invalid]" in str(listing.get_option_at_index(2).prompt)
        pane.select("modules/shop/entities/customer.yaml")
        await pilot.pause()
        shown = widget_text(pane.query_one("#diff-view"))
        assert "The gate refused this draft" in shown and "fields[1].phone: unknown type 'phone'" in shown
        pane.select("modules/shop/entities/booking.yaml")
        await pilot.pause()
        assert "+name: Booking" in widget_text(pane.query_one("#diff-view"))


async def test_accept_then_undo_through_the_diff_pane_keys() -> None:
    engine = FakeEngine(drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query(DiffPane))  # mounted after the first frame
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: len(pane.drafts) == 3)
        await pilot.press("ctrl+r")  # enter the pane on purpose: its review keys act
        await pilot.press("down")  # to the booking draft
        booking = "modules/shop/entities/booking.yaml"
        assert pane.selected is not None and pane.selected.path == booking
        await pilot.press("a")
        await wait_until(pilot, lambda: [d.path for d in pane.drafts if not d.settled] == [
            "modules/shop/app.yaml", "modules/shop/entities/customer.yaml"])
        # The applied draft stays listed, below the live ones, selected, with its diff still readable.
        assert pane.selected is not None and (pane.selected.path, pane.selected.badges) == (booking, ("applied",))
        assert "Applied to the project" in widget_text(pane.query_one("#diff-view"))
        assert engine.applied == [booking]
        assert any(n.startswith("Applied modules/shop/entities/booking.yaml") for n in notices(app))
        await pilot.press("ctrl+r", "a")  # accepting it again is refused by the pane, not sent
        assert any("is applied already" in n for n in notices(app)) and engine.applied == [booking]
        await pilot.press("ctrl+r", "u")
        await wait_until(pilot, lambda: len([d for d in pane.drafts if not d.settled]) == 3)
        assert engine.applied == [] and ("undo_apply", {}) in engine.tool_calls


async def test_accepting_an_invalid_draft_is_refused_and_says_why() -> None:
    engine = FakeEngine(drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query(DiffPane))  # mounted after the first frame
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: len(pane.drafts) == 3)
        await pilot.press("ctrl+r")  # enter the pane on purpose: its review keys act
        pane.select("modules/shop/entities/customer.yaml")
        await pilot.press("a")
        await wait_until(pilot, lambda: any(n.startswith("Not applied") for n in notices(app)))
        message = next(n for n in notices(app) if n.startswith("Not applied"))
        assert "fields[1].phone: unknown type 'phone'" in message and "Ask the consultant to fix the draft" in message
        assert engine.applied == [] and len(pane.drafts) == 3


async def test_accept_all_applies_the_valid_drafts_and_leaves_the_invalid_one() -> None:
    engine = FakeEngine(drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query(DiffPane))  # mounted after the first frame
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: len(pane.drafts) == 3)
        await pilot.press("ctrl+r")  # enter the pane on purpose: its review keys act
        await pilot.press("A")
        await wait_until(pilot, lambda: len([d for d in pane.drafts if not d.settled]) == 1)
        assert sorted((d.path, d.status) for d in pane.drafts if d.settled) == [
            ("modules/shop/app.yaml", "applied"), ("modules/shop/entities/booking.yaml", "applied")]
        assert sorted(engine.applied) == ["modules/shop/app.yaml", "modules/shop/entities/booking.yaml"]
        assert "Accepted 2 drafts; 1 invalid draft left for review." in notices(app)


async def test_slash_commands_reject_apply_and_undo_drafts() -> None:
    engine = FakeEngine(drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query(DiffPane))  # mounted after the first frame
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: len(pane.drafts) == 3)
        await send(pilot, "/reject modules/shop/app.yaml")
        await wait_until(pilot, lambda: [(d.path, d.badges) for d in pane.drafts if d.settled] == [
            ("modules/shop/app.yaml", ("rejected",))])
        await send(pilot, "/apply modules/shop/entities/booking.yaml")
        await wait_until(pilot, lambda: engine.applied == ["modules/shop/entities/booking.yaml"])
        await send(pilot, "/undo")
        await wait_until(pilot, lambda: engine.applied == [])
        assert engine.sent == []  # handled by the app, not sent to the model


async def test_a_missing_argument_or_unknown_command_keeps_the_input_and_says_what_to_type() -> None:
    engine = FakeEngine()
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "/reject")
        assert "Usage: /reject <draft path> [reason] (see /diff for the paths)" in notices(app)
        assert app.query_one("#prompt", PromptInput).value == "/reject"
        app.query_one("#prompt", PromptInput).value = ""
        await send(pilot, "/frobnicate")
        assert any(n.startswith("Unknown command /frobnicate. Commands: /diff /apply") for n in notices(app))
        assert app.query_one("#prompt", PromptInput).value == "/frobnicate"
        app.query_one("#prompt", PromptInput).value = ""
        await send(pilot, "/apply one.yaml two.yaml")
        assert "Usage: /apply <draft path> or /apply --all" in notices(app)
        assert not [name for name, _ in engine.tool_calls if name == "apply_draft"]  # nothing was applied


async def test_the_app_reads_a_command_line_with_the_engines_grammar() -> None:
    engine = FakeEngine(drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.query(DiffPane))  # mounted after the first frame
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: len(pane.drafts) == 3)
        await send(pilot, '/reject "modules/shop/app.yaml"')  # quoted, as the engine and headless read it
        await wait_until(pilot, lambda: [d.path for d in pane.drafts if d.settled] == ["modules/shop/app.yaml"])
        await send(pilot, "/mcp restart registry")  # one server, as `/mcp restart [server]` says
        await wait_until(pilot, lambda: "MCP server registry restarted." in notices(app))
        assert engine.restarts == 1 and engine.sent == []


async def test_drafts_changed_events_refresh_the_pane() -> None:
    engine = FakeEngine([[DraftsChanged(paths=("modules/shop/app.yaml",)), AssistantMessage("Drafted.")]])
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.engine is not None)
        engine.drafts["modules/shop/app.yaml"] = FakeDraft("modules/shop/app.yaml", diff="+kind: App\n")
        await send(pilot, "draft the app")
        await wait_until(pilot, lambda: app.query(DiffPane))  # mounted after the first frame
        pane = app.query_one(DiffPane)
        await wait_until(pilot, lambda: [d.path for d in pane.drafts] == ["modules/shop/app.yaml"])


async def test_a_failing_local_server_is_a_notification_not_a_crash() -> None:
    app = ConsultApp(factory_for(FakeEngine(drafts=drafts(), fail_tools=True)))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any("local server is not responding" in n for n in notices(app)))
        await send(pilot, "/undo")
        await wait_until(pilot, lambda: sum("Undoing failed" in n for n in notices(app)) == 1)
        assert app.is_running


async def test_brackets_from_servers_and_models_are_shown_as_text_in_every_pane() -> None:
    odd = "[bold]x[/bold] [/] [link=y]"
    engine = FakeEngine(
        [[
            ToolCallStarted("c1", "srv[1]", "validate_spec", {"path": f"spec.fields[1].{odd}"}),
            ToolCallFinished("c1", "srv[1]", "validate_spec", False, f"ERROR: {odd}", 3.0),
            Notice("warning", f"server said {odd}"),
            # a method the log's reader passes on as a plain string (a newer writer's: store/records.py)
            CompactionDone(f"summary {odd}", 4, 900, 300, cast(CompactionMethod, f"summarised{odd}")),
        ]],
        drafts=[FakeDraft(f"modules/{odd}.yaml", "new", False, [f"fields[0].type: {odd}"], f"+name: {odd}\n")],
        model=f"model{odd}",
    )
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: app.query(DiffPane) and app.query_one(DiffPane).drafts)
        await send(pilot, "go")
        tools = app.query_one(ToolCallsPane)
        await wait_until(pilot, lambda: (entry := tools.entry("c1")) is not None and entry.status == "error")
        await wait_until(pilot, lambda: app.query_one(StatusBar).info.state == "ready")
        entry = tools.entry("c1")
        assert entry is not None
        title = widget_text(entry.query_one("CollapsibleTitle"))
        assert "srv[1]" in title and "path=spec.fields[1].[bold]x[/…" in title  # cut mid-tag, still text
        assert not any("failed" in n for n in notices(app))
        pane = app.query_one(DiffPane)
        assert "fields[0].type: [bold]x[/bold] [/] [link=y]" in widget_text(pane.query_one("#diff-view"))
        assert "[/]" in widget_text(pane.query_one("#draft-list"))
        assert f"model{odd}" in widget_text(app.query_one(StatusBar))
        blocks = app.query_one(ConversationView).blocks
        assert f"server said {odd}" in "\n".join(widget_text(b) for b in blocks)
        compaction = next(b for b in blocks if getattr(b, "role", "") == "compaction")
        assert f"History compacted (summarised{odd})" in widget_text(compaction.query_one("CollapsibleTitle"))


class DriftedEngine(FakeEngine):
    """A stand-in whose list_drafts rows lack the review state, and whose apply answer lacks its file."""

    def _answer(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        answer = super()._answer(name, arguments)
        if name == "list_drafts" and self.fail_listing:
            for row in answer["drafts"]:
                del row["state"]
        if name == "apply_draft":
            del answer["file"]
        return answer

    fail_listing = True


async def test_a_review_answer_lacking_a_field_is_shown_as_an_error_naming_it_and_the_app_keeps_running() -> None:
    engine = DriftedEngine(drafts=drafts())
    app = ConsultApp(factory_for(engine))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any("lacks 'state'" in n for n in notices(app)))
        message = next(n for n in notices(app) if "lacks 'state'" in n)
        assert message.startswith("Listing the drafts failed: The list_drafts result at drafts[0] lacks 'state'")
        assert "same formspec-consult version" in message  # what to do
        pane = app.query_one(DiffPane)
        assert pane.drafts == ()  # nothing guessed from a wrong answer
        engine.fail_listing = False
        app.refresh_drafts()
        await wait_until(pilot, lambda: len(pane.drafts) == 3)
        await pilot.press("ctrl+r")  # enter the pane on purpose: its review keys act
        pane.select("modules/shop/entities/booking.yaml")
        await pilot.press("a")
        await wait_until(pilot, lambda: any("lacks 'file'" in n for n in notices(app)))
        assert app.is_running
