"""Screen-reader mode in a real terminal (tmux, 80x24): what the terminal holds reads as plain
sentences, top to bottom, each said once — no panes, rules, spinners or redraws.

The whole history (`capture-pane -S -`) is read, not only the visible screen: a redraw would
leave a state line twice, or leave box characters behind. tmux comes from tests/setup/30-tmux.sh.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import copy_example
from tests.tui.tmux import NEEDS_TMUX, app_env, consult_binary, tmux_app, wait_for

pytestmark = [pytest.mark.slow, NEEDS_TMUX]
SCRIPT = """\
- text: "Baik, saya paham. Setiap pelanggan datang tanpa janji lalu menunggu giliran.\\n\\n\
| Data | Jenis |\\n|---|---|\\n| nama | teks |\\n| nomor antrean | angka |\\n\\n\
Bagaimana pelanggan dicatat?\\nA) Dengan nama pelanggan\\nB) Cukup nomor antrean"
- text: "Baik, kita catat nomor antreannya saja."
"""
LABELS = ("Screen reader mode", "Connected:", "You:", "Note:", "The consultant is working.", "Consultant:",
          "A table of", "Row ", "Bagaimana", "A) ", "B) ", "2 options:", "Done. Your turn.", "Session ")


def test_the_screen_reader_mode_reads_as_plain_sentences_in_a_terminal(tmp_path: Path) -> None:
    project = copy_example(tmp_path)
    script = tmp_path / "script.yaml"
    script.write_text(SCRIPT, encoding="utf-8")
    env = app_env(tmp_path, ACCESSIBLE="1")
    command = f"{consult_binary()} --model scripted:{script}"
    # kept after exit: the goodbye line is the program's last, said just before it ends
    with tmux_app("fsc-sr", command, env=env, size=(80, 24), cwd=project, keep_after_exit=True) as pane:
        wait_for(lambda: "You:" in pane.screen(), 120, "the first prompt")
        pane.send("-l", "Saya punya usaha potong rambut dengan tiga cabang, pelanggan datang langsung.")
        pane.send("Enter")
        wait_for(lambda: "Done. Your turn." in pane.screen(), 60, "the first turn to end")
        pane.send("B", "Enter")
        wait_for(lambda: pane.screen().count("Done. Your turn.") == 2, 60, "the second turn to end")
        pane.send("/quit", "Enter")
        wait_for(lambda: "is saved" in pane.screen(), 30, "the goodbye line")
        history = pane.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", pane.name).stdout
    # tmux's own "Pane is dead (status 0, …)" line (remain-on-exit) is not the program's output
    lines = [line for line in history.splitlines() if line.strip() and not line.startswith("Pane is dead")]
    history = "\n".join(lines)
    assert lines[0] == "Screen reader mode is on (via ACCESSIBLE). Connecting to the consultant."
    assert "Note: Replies in Indonesian, the language of your first message." in history
    assert "Row 1: Data is nama; Jenis is teks." in lines
    assert "2 options: type A or B to choose one." in lines
    assert "Consultant: Baik, kita catat nomor antreannya saja." in lines
    assert history.count("The consultant is working.") == 2  # said once per turn: nothing redrawn
    assert not any(ch in history for ch in "|─│┌┐└┘━⠋⠙⠹⠸●■▶▌")  # no rules, boxes or spinners
    unlabelled = [line for line in lines if not line.startswith(LABELS)]
    assert unlabelled == [], f"lines that are not plain labelled sentences: {unlabelled}"
