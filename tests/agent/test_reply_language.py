"""The session's reply language through the Engine: set from the owner's first clear message (or
--lang), told to the model, recorded in the log, kept — a reply in another language is caught and
re-asked once, visibly — switched with /language, and kept by a resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from formspec_consult.agent.engine.engine import Engine
from formspec_consult.agent.language.detect import detect, prose
from formspec_consult.agent.language.lock import ReplyLanguage
from formspec_consult.store.agent_events import AgentEvent, AssistantMessage, Notice, TurnFinished
from formspec_consult.store.events import EventLog
from tests.agent.engines import open_engine, run

pytestmark = pytest.mark.anyio

OWNER_ID = "Saya punya usaha potong rambut dengan tiga cabang di Bandung, pelanggan biasanya datang langsung."
REPLY_ID = ("Baik, saya paham. Jadi setiap pelanggan datang tanpa janji lalu menunggu giliran. Apakah Anda "
            "ingin mencatat nama pelanggan, atau cukup nomor antrean saja?")
REPLY_EN = ("Got it. So every customer walks in without an appointment and waits for their turn. Do you want "
            "to record the customer's name, or just a queue number?")
# Indonesian as owners write it, full of English names: never re-asked.
REPLY_MIXED = ("Saya sudah membuat draft `modules/shop/entities/booking.yaml`: entity Booking dengan field "
               "customer_name, phone dan status (Ordered, Paid, Done). Silakan periksa diff-nya.")


def logged(engine: Engine, kind: str) -> list[dict[str, Any]]:
    return [e for e in EventLog.read(engine.session_dir / "events.jsonl") if e["type"] == kind]


def notices(events: list[AgentEvent]) -> list[str]:
    return [e.message for e in events if isinstance(e, Notice)]


async def test_a_reply_in_another_language_is_caught_and_asked_again_once_visibly(project: Path) -> None:
    engine, provider = await open_engine(project, [REPLY_EN, REPLY_ID])
    try:
        events = await run(engine, OWNER_ID)
        said = notices(events)
        assert said[0].startswith("Replies in Indonesian, the language of your first message")
        assert any("replied in English, not Indonesian" in s and "/language en" in s for s in said)
        replies = [e.text for e in events if isinstance(e, AssistantMessage)]
        assert replies == [REPLY_EN, REPLY_ID] and events[-1] == TurnFinished("done")
        assert len(provider.requests) == 2
        assert "Write every reply in Indonesian" in provider.requests[0][0]["content"]
        reask = provider.requests[1][-1]
        assert reask["role"] == "user" and "this session's language is Indonesian" in reask["content"]
        assert [(r["language"], r["source"]) for r in logged(engine, "language")] == [("id", "detected")]
        assert [(r["expected"], r["found"]) for r in logged(engine, "language_recheck")] == [("id", "en")]
        assert any("asked once" in n["message"] for n in logged(engine, "notice"))
    finally:
        await engine.aclose()


async def test_a_reply_in_the_session_language_is_not_asked_again(project: Path) -> None:
    engine, provider = await open_engine(project, [REPLY_ID, REPLY_MIXED])
    try:
        await run(engine, OWNER_ID)
        events = await run(engine, "Tolong buatkan entitas booking untuk antrean pelanggan kami.")
        assert len(provider.requests) == 2 and not logged(engine, "language_recheck")
        assert not notices(events) and events[-1] == TurnFinished("done")
    finally:
        await engine.aclose()


async def test_a_second_reply_in_the_wrong_language_stays_and_is_said_once(project: Path) -> None:
    engine, provider = await open_engine(project, [REPLY_EN, REPLY_EN, REPLY_ID])
    try:
        events = await run(engine, OWNER_ID)
        assert len(provider.requests) == 2  # asked once, not again
        assert any("answered in English again; the reply stays" in s for s in notices(events))
        assert events[-1] == TurnFinished("done")
    finally:
        await engine.aclose()


async def test_a_short_first_message_sets_nothing_and_the_next_clear_one_does(project: Path) -> None:
    engine, provider = await open_engine(project, ["Hello! What does your business do?", REPLY_ID])
    try:
        assert not notices(await run(engine, "hi"))
        assert not logged(engine, "language")
        await run(engine, OWNER_ID)
        assert [r["language"] for r in logged(engine, "language")] == ["id"]
        assert len(provider.requests) == 2
    finally:
        await engine.aclose()


async def test_resume_keeps_the_language_and_asks_again_in_it(project: Path) -> None:
    engine, _ = await open_engine(project, [REPLY_ID])
    await run(engine, OWNER_ID)
    session_id = engine.session_id
    await engine.aclose()
    resumed, provider = await open_engine(project, [REPLY_EN, REPLY_ID], resume=session_id)
    try:
        events = await run(resumed, "ok")  # too short to say anything: the recorded language holds
        assert "Write every reply in Indonesian" in provider.requests[0][0]["content"]
        assert len(provider.requests) == 2 and any("not Indonesian" in s for s in notices(events))
        assert [r["language"] for r in logged(resumed, "language")] == ["id"]  # not set again
    finally:
        await resumed.aclose()


async def test_slash_language_switches_and_the_model_is_told(project: Path) -> None:
    engine, provider = await open_engine(project, [REPLY_ID, REPLY_EN])
    try:
        await run(engine, OWNER_ID)
        switched = await run(engine, "/language en")
        assert notices(switched) == ["Replies in English from now on."]
        events = await run(engine, "Saya mau lanjut dalam bahasa Inggris saja, tolong jelaskan langkah berikutnya.")
        assert len(provider.requests) == 2 and not logged(engine, "language_recheck")
        # the phase's system prompt stays as the first request had it (a provider's cache keeps it);
        # the model is told with the next message, once
        assert provider.requests[1][0]["content"] == provider.requests[0][0]["content"]
        told = [m["content"] for m in provider.requests[1] if m["role"] == "user"]
        assert told[-1].startswith("[This session's language is now English: write every reply in English")
        assert sum("language is now" in str(m["content"]) for m in provider.requests[1]) == 1
        assert [(r["language"], r["source"]) for r in logged(engine, "language")] == [("id", "detected"),
                                                                                      ("en", "command")]
        assert [r["reason"] for r in logged(engine, "system_prompt")].count("language") == 1  # the first, before any request
        assert notices(await run(engine, "/language")) == ["Replies in English (en). To change it: /language <code>."]
        assert events[-1] == TurnFinished("done")
    finally:
        await engine.aclose()


async def test_an_unknown_language_code_says_what_to_type_and_changes_nothing(project: Path) -> None:
    engine, _ = await open_engine(project, [])
    try:
        said = notices(await run(engine, "/language klingon"))
        assert said and "Unknown language 'klingon'" in said[0] and "/language id" in said[0]
        assert not logged(engine, "language")
    finally:
        await engine.aclose()


async def test_lang_flag_sets_the_language_before_any_message(project: Path) -> None:
    engine, provider = await open_engine(project, [REPLY_ID, REPLY_EN], reply_language="en")
    try:
        events = await run(engine, OWNER_ID)  # Indonesian, but --lang en was given
        assert notices(events)[0] == "Replies in English (--lang en)."
        assert "Write every reply in English" in provider.requests[0][0]["content"]
        assert len(provider.requests) == 2  # the Indonesian reply was asked again in English
        assert [(r["language"], r["source"]) for r in logged(engine, "language")] == [("en", "flag")]
    finally:
        await engine.aclose()


# Indonesian and Malay: langid puts this short Indonesian message at 52% Malay, 39% Indonesian.
OWNER_ID_SHORT = "Saya punya usaha potong rambut."
# Malay beyond doubt (langid: 97% Malay), and a reply langid puts in Malay (94%).
OWNER_MS = "Saya mempunyai perniagaan gunting rambut, boleh tak awak bantu saya buat sistem tempahan?"
REPLY_MS = ("Baiklah, saya faham. Adakah awak mahu sistem tempahan untuk kedai gunting rambut awak, atau cukup "
            "senarai giliran sahaja?")


def locale(monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", lang)


async def test_a_short_indonesian_message_langid_calls_malay_sets_indonesian(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locale(monkeypatch, "C.UTF-8")
    found = detect(OWNER_ID_SHORT)
    assert found is not None and found.language == "ms"  # what langid says: the case this guards
    engine, provider = await open_engine(project, [REPLY_MS, REPLY_ID])
    try:
        events = await run(engine, OWNER_ID_SHORT)
        assert notices(events)[0].startswith("Replies in Indonesian, the language of your first message")
        assert "Write every reply in Indonesian" in provider.requests[0][0]["content"]
        assert [(r["language"], r["source"]) for r in logged(engine, "language")] == [("id", "detected")]
        # a reply langid puts in Malay is the session's language family: never re-asked
        assert len(provider.requests) == 1 and not logged(engine, "language_recheck")
        assert notices(events)[1:] == [] and events[-1] == TurnFinished("done")
    finally:
        await engine.aclose()


async def test_malay_is_set_in_a_malay_locale_or_for_a_message_clearly_malay(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locale(monkeypatch, "ms_MY.UTF-8")
    engine, provider = await open_engine(project, [REPLY_ID])
    try:
        said = notices(await run(engine, OWNER_ID_SHORT))
        assert said[0].startswith("Replies in Malay") and "Write every reply in Malay" in provider.requests[0][0]["content"]
        assert len(provider.requests) == 1 and not logged(engine, "language_recheck")  # Indonesian reply: kept
    finally:
        await engine.aclose()
    locale(monkeypatch, "id_ID.UTF-8")
    engine, provider = await open_engine(project, [REPLY_MS])
    try:
        said = notices(await run(engine, OWNER_MS))
        assert said[0].startswith("Replies in Malay") and len(provider.requests) == 1
        assert [r["language"] for r in logged(engine, "language")] == ["ms"]
    finally:
        await engine.aclose()


def test_code_paths_and_names_are_not_judged_as_prose() -> None:
    assert prose("see `modules/shop/x.yaml` and customer_name at https://x.org/a") .split() == ["see", "and", "at"]
    found = detect(REPLY_MIXED)
    assert found is not None and found.language in {"id", "ms"}


@pytest.mark.parametrize(
    ("reply", "caught"),
    [
        (REPLY_EN, True),
        ("好的，我明白了。每位顾客都是直接来店，然后排队等候。你想记录顾客的名字，还是只用排队号码？请告诉我更多关于你的店的情况。", True),
        (REPLY_ID, False),
        (REPLY_MIXED, False),
        ("Oke, draft Booking entity sudah ready. Next step: review diff dan apply.", False),
        ("Sure.", False),
    ],
)
def test_only_a_reply_clearly_in_another_language_is_caught(reply: str, caught: bool) -> None:
    language = ReplyLanguage("id", "detected")
    assert (language.reask(reply, 1) is not None) is caught
