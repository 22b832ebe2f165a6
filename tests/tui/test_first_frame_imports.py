"""The first frame needs only Textual and the app's own widgets. What is loaded by then is read in a
fresh interpreter that runs the command a person runs (`formspec-consult`, the checks before the
app included), with the app headless at 160×48, stopped at its first frame."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# Loaded when the engine opens, the side panes mount or a session is read: never before the first frame.
NOT_BEFORE_THE_FIRST_FRAME = (
    "mcp",
    "mcp_types",
    "pydantic",
    "litellm",
    "formspec_consult.store.records",
    "formspec_consult.store.agent_events",
    "formspec_consult.agent.engine.engine",
    "formspec_consult.mcp_client.config",
    "formspec_consult.tui.widgets.diff_pane",
    "formspec_consult.tui.widgets.compaction_block",
    "textual.widgets._tabs",
)

RUN_TO_THE_FIRST_FRAME = """
import sys
from pathlib import Path

from formspec_consult import cli
from formspec_consult.tui.app import ConsultApp

run_async = ConsultApp.run_async
out = Path(sys.argv.pop(1))


async def headless(self, **kwargs):
    return await run_async(self, headless=True, size=(160, 48))


async def first_frame(self):
    out.write_text("\\n".join(sorted(sys.modules)), encoding="utf-8")
    self.exit()


ConsultApp.run_async = headless
ConsultApp._after_first_frame = first_frame
sys.argv = ["formspec-consult", *sys.argv[1:]]
cli.main()
"""


def test_the_first_frame_loads_no_mcp_sdk_pydantic_engine_log_records_or_later_widgets(
    project: Path, tmp_path: Path
) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("- Hello.\n", encoding="utf-8")
    loaded = tmp_path / "modules.txt"
    done = subprocess.run(
        [sys.executable, "-c", RUN_TO_THE_FIRST_FRAME, str(loaded), "--project", str(project), "-m", f"scripted:{script}"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    modules = set(loaded.read_text(encoding="utf-8").split())
    assert "formspec_consult.tui.widgets.prompt_input" in modules  # it did run to the first frame
    assert [name for name in NOT_BEFORE_THE_FIRST_FRAME if name in modules] == []
