"""`formspec-consult rewind SESSION --to-turn N [--files|--conversation|--both]`: the command line,
over a session recorded through the real Engine, with the real local server spawned as `undo` does."""

from __future__ import annotations

from pathlib import Path

import anyio
from click.testing import CliRunner, Result

from formspec_consult.cli import cli
from formspec_consult.store.events import load_records, rebuild_history
from formspec_consult.store.locks import SessionWriter
from formspec_consult.store.manifest import DraftManifest
from formspec_consult.store.records import CommandRecord, RewindRecord, TurnFinishedRecord, UndoRecord
from tests.agent.engines import open_engine, propose, run
from tests.e2e.project import CUSTOMER, DRAFT_PATH

SUPPLIER_PATH = "modules/shop/master/supplier/entity.yaml"


def recorded_session(project: Path) -> Path:
    """A closed session: turn 1 talks, turn 2 drafts the customers (applied), turn 3 the suppliers."""

    async def record() -> Path:
        engine, _ = await open_engine(project, ["What do you sell?", propose(), "Drafted the customers.",
                                                propose(SUPPLIER_PATH, CUSTOMER.replace("customer", "supplier")),
                                                "Drafted the suppliers."])
        try:
            await run(engine, "hello")
            await run(engine, "we keep customers")
            await run(engine, f"/apply {DRAFT_PATH}")
            await run(engine, "and suppliers")
        finally:
            await engine.aclose()
        return engine.session_dir

    return anyio.run(record)


def rewind(project: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--project", str(project), "rewind", *args])


def test_rewind_undoes_later_applies_withdraws_drafts_and_logs_a_rewind_the_history_honours(project: Path) -> None:
    folder = recorded_session(project)
    records = load_records(folder / "events.jsonl")
    end_of_turn_1 = next(r.seq for r in records if isinstance(r, TurnFinishedRecord) and r.turn == 1)
    result = rewind(project, folder.name, "--to-turn", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Rewound the conversation and the files to the end of turn 1")
    assert not (project / "spec" / DRAFT_PATH).exists()
    assert {rel: r.state for rel, r in DraftManifest(folder).load().items()} == {DRAFT_PATH: "rejected"}
    after = load_records(folder / "events.jsonl")
    assert [r.to_line() for r in after[: len(records)]] == [r.to_line() for r in records]  # the log keeps all
    new = after[len(records):]
    assert isinstance(new[0], CommandRecord) and new[0].name == "rewind"
    assert any(isinstance(r, UndoRecord) for r in new) and isinstance(new[-1], RewindRecord)
    assert rebuild_history(after) == rebuild_history(records, upto_seq=end_of_turn_1)


def test_rewind_conversation_only_leaves_the_files(project: Path) -> None:
    folder = recorded_session(project)
    result = rewind(project, folder.name, "--to-turn", "1", "--conversation")
    assert result.exit_code == 0, result.output
    assert (project / "spec" / DRAFT_PATH).read_text(encoding="utf-8") == CUSTOMER
    assert (folder / "draft" / SUPPLIER_PATH).is_file()
    record = load_records(folder / "events.jsonl")[-1]
    assert isinstance(record, RewindRecord) and record.mode == "conversation" and SUPPLIER_PATH in str(record.note)


def test_a_turn_that_does_not_exist_is_refused_with_exit_2_and_nothing_written(project: Path) -> None:
    folder = recorded_session(project)
    before = (folder / "events.jsonl").read_bytes()
    result = rewind(project, folder.name, "--to-turn", "7")
    assert result.exit_code == 2
    assert "Turn 7 of session" in result.output and "turns are 1, 2, 3" in result.output
    assert (folder / "events.jsonl").read_bytes() == before


def test_a_file_changed_by_hand_is_named_exit_1_and_nothing_changes(project: Path) -> None:
    folder = recorded_session(project)
    target = project / "spec" / DRAFT_PATH
    target.write_text(CUSTOMER + "# edited by hand\n", encoding="utf-8")
    before = (folder / "events.jsonl").read_bytes(), (folder / "drafts.json").read_bytes()
    result = rewind(project, folder.name, "--to-turn", "1")
    assert result.exit_code == 1
    assert f"spec/{DRAFT_PATH} changed outside this session" in result.output
    assert ((folder / "events.jsonl").read_bytes(), (folder / "drafts.json").read_bytes()) == before
    assert target.read_text(encoding="utf-8").endswith("# edited by hand\n")


def test_a_session_open_in_another_process_is_refused_and_nothing_changes(project: Path) -> None:
    folder = recorded_session(project)
    before = (folder / "events.jsonl").read_bytes()
    holder = SessionWriter(folder)
    holder.claim()  # another formspec-consult has it open
    try:
        result = rewind(project, folder.name, "--to-turn", "1")
    finally:
        holder.release()
    assert result.exit_code == 1
    assert "is open in another formspec-consult" in result.output and "/rewind in it" in result.output
    assert (folder / "events.jsonl").read_bytes() == before
    assert (project / "spec" / DRAFT_PATH).is_file()


def test_an_unknown_session_is_exit_2(project: Path) -> None:
    recorded_session(project)
    result = rewind(project, "nope", "--to-turn", "1")
    assert result.exit_code == 2 and "There is no session 'nope'" in result.output
