"""The app started outside a FormSpec project says so and offers this package's own `init`."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.commands.launch import engine_factory_for
from formspec_consult.tui.app import ConsultApp
from formspec_consult.tui.widgets.conversation import ConversationView
from formspec_consult.tui.widgets.status_bar import StatusBar
from tests.helpers import HeldWarmUp
from tests.tui.conftest import SIZE, wait_until

pytestmark = pytest.mark.anyio


async def test_the_app_in_an_empty_folder_offers_formspec_consult_init_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", f"sqlite:///{tmp_path / 'registry.db'}")
    empty = tmp_path / "empty"
    empty.mkdir()
    provider = HeldWarmUp(["never said"])
    provider.release.set()
    app = ConsultApp(engine_factory_for({"project": str(empty)}, provider=provider, in_memory_server=True, preload=()))
    async with app.run_test(size=SIZE) as pilot:
        bar = app.query_one(StatusBar)
        await wait_until(pilot, lambda: bar.info.state == "not started", timeout=60)
        said = [getattr(b, "text", "") for b in app.query_one(ConversationView).blocks]
        assert any("is not a FormSpec project" in t and "formspec-consult init" in t for t in said)
        assert not any("`formspec init`" in t for t in said)
    assert list(empty.iterdir()) == [] and not provider.requests
