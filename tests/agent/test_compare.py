"""`/compare [ID]` and `formspec-consult compare A [B]`: a fork's drafts beside its source's —
entities, fields, states — through the Engine and the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from formspec_consult.cli import cli
from formspec_consult.store.agent_events import Notice
from tests.agent.engines import open_engine, propose, run
from tests.e2e.project import CUSTOMER, DRAFT_PATH, make_project

pytestmark = pytest.mark.anyio

SUPPLIER_PATH = "modules/shop/master/supplier/entity.yaml"
SUPPLIER = CUSTOMER.replace("customer", "supplier").replace(
    "    - {name: phone, type: string}\n",
    "    - {name: status, type: enum, enum_values: [new, approved]}\n"
    "  state_machine: {field: status, initial: new, transitions: [{from: new, to: approved, via: approve}]}\n")
CUSTOMER_V2 = CUSTOMER + "    - {name: email, type: string}\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    return make_project(tmp_path / "shop")


async def fork_that_diverged(project: Path) -> tuple[str, str]:
    """A source drafting the customers; its fork drafting them with an email, and suppliers."""
    source, _ = await open_engine(project, [propose(), "Drafted the customers."])
    try:
        await run(source, "customers")
    finally:
        await source.aclose()
    fork, _ = await open_engine(project, [propose(DRAFT_PATH, CUSTOMER_V2), "With email.",
                                          propose(SUPPLIER_PATH, SUPPLIER), "And suppliers."],
                                resume=source.session_id, fork=True)
    try:
        await run(fork, "add an email")
        await run(fork, "and suppliers")
    finally:
        await fork.aclose()
    return source.session_id, fork.session_id


async def test_slash_compare_in_a_fork_shows_its_drafts_beside_its_sources(project: Path) -> None:
    source_id, fork_id = await fork_that_diverged(project)
    engine, _ = await open_engine(project, [], resume=fork_id)
    try:
        said = next(e.message for e in await run(engine, "/compare") if isinstance(e, Notice))
        refused = next(e.message for e in await run(engine, "/compare nope") if isinstance(e, Notice))
    finally:
        await engine.aclose()
    assert f"A: {fork_id}, forked from {source_id} at turn 1" in said and f"B: {source_id}" in said
    assert "### shop/customer (A and B)" in said
    assert "| fields | name (string), phone (string), +email (string) | name (string), phone (string) |" in said
    assert "### shop/supplier (A only)" in said
    assert "| states | new, approved | — |" in said
    assert "There is no session 'nope'" in refused


def test_compare_on_the_command_line_and_its_bad_input(project: Path) -> None:
    import anyio

    source_id, fork_id = anyio.run(fork_that_diverged, project)
    runner = CliRunner()
    result = runner.invoke(cli, ["--project", str(project), "compare", source_id, fork_id])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"A: {source_id}  \nB: {fork_id}, forked from {source_id} at turn 1")
    assert "| fields | name (string), phone (string) | name (string), phone (string), +email (string) |" in result.output
    not_a_fork = runner.invoke(cli, ["--project", str(project), "compare", source_id])
    assert not_a_fork.exit_code == 2 and f"Session {source_id} is not a fork" in not_a_fork.output
    unknown = runner.invoke(cli, ["--project", str(project), "compare", fork_id, "nope"])
    assert unknown.exit_code == 2 and "There is no session 'nope'" in unknown.output
