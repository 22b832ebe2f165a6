"""Small context windows (local servers): the output reserve is in proportion to the window, and a
window the fixed prompt cannot fit is refused at start with the numbers and what to change —
never by sending requests the server must reject. Through the real command line, litellm and the
fake OpenAI-compatible server on loopback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.cli import cli_env, run_cli
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply
from tests.helpers import group_of


@pytest.fixture
def fake(fake_openai: FakeOpenAIServer) -> FakeOpenAIServer:
    return fake_openai  # the shared fixture (tests/fakes/fixtures.py): started, stopped (stalls released)


def _args(fake: FakeOpenAIServer, window: int) -> list[str]:
    return ["--model", "fake", "--base-url", fake.url, "--context-window", str(window), "--allow-unvalidated",
            "-p", "hello"]


def test_a_window_the_fixed_prompt_cannot_fit_is_refused_at_start_with_advice_that_works(
    fake: FakeOpenAIServer, project: Path, tmp_path: Path
) -> None:
    refused = run_cli(_args(fake, 4096), project, cli_env(tmp_path))
    assert refused.returncode == 2, refused.stderr
    said = refused.stderr
    assert "the fixed prompt does not fit the 4,096-token context window" in said
    assert re.search(r"system prompt \([\d,]+ tokens\) and the tool declarations \([\d,]+\)", said)
    assert "1,024 are reserved for the answer" in said  # a quarter of 4,096, not 4,096
    assert "reserved_output" in said and "--n_ctx" in said
    assert fake.requests == []  # nothing was sent for the server to reject
    suggested = int(group_of(r"--context-window (\d+)", said))

    fake.queue(FakeReply(text="Hello! What does your business do?"))
    accepted = run_cli(_args(fake, suggested), project, cli_env(tmp_path))
    assert accepted.returncode == 0, accepted.stderr
    assert "What does your business do?" in accepted.stdout


def test_an_8k_window_reserves_a_quarter_for_the_answer_not_4096(
    fake: FakeOpenAIServer, project: Path, tmp_path: Path
) -> None:
    fake.queue(FakeReply(text="Hi."))
    done = run_cli(_args(fake, 8192), project, cli_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert fake.requests[0].body["max_tokens"] == 2048


def test_an_explicit_reserved_output_is_honoured_in_a_small_window(
    fake: FakeOpenAIServer, project: Path, tmp_path: Path
) -> None:
    fake.queue(FakeReply(text="Hi."))
    done = run_cli(_args(fake, 8192), project, cli_env(tmp_path, FORMSPEC_RESERVED_OUTPUT="3000"))
    assert done.returncode == 0, done.stderr
    assert fake.requests[0].body["max_tokens"] == 3000
