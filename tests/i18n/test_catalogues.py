"""The message catalogues are complete and current: every marked string of the source is in
every language's catalogue, translated, with the same placeholders; nothing stale is left; and
the compiled .mo the program reads is exactly what the .po compiles to."""

from __future__ import annotations

import re

import pytest
from babel.messages.catalog import Catalog

from formspec_consult import i18n
from formspec_consult.i18n import catalogues

LANGUAGES = catalogues.translated_languages()
PLACEHOLDER = re.compile(r"\{(\w*)(?:![rsa])?(?::[^}]*)?\}")


@pytest.fixture(scope="module")
def source() -> Catalog:
    return catalogues.extract()


def _ids(catalog: Catalog) -> set[object]:
    return {(message.context, message.id) for message in catalog if message.id}


def test_indonesian_is_one_of_the_languages() -> None:
    assert "id" in LANGUAGES
    assert set(i18n.available_languages()) == {"en", *LANGUAGES}


def test_the_template_is_the_source_as_extracted(source: Catalog) -> None:
    assert _ids(catalogues.read(catalogues.TEMPLATE)) == _ids(source), "run `make catalogues`"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_of_the_source_is_in_the_catalogue_and_nothing_stale(language: str, source: Catalog) -> None:
    catalog = catalogues.read(catalogues.po_path(language))
    missing = _ids(source) - _ids(catalog)
    stale = _ids(catalog) - _ids(source)
    assert not missing, f"not in {language}.po (run `make catalogues`, then translate): {sorted(map(str, missing))[:10]}"
    assert not stale, f"in {language}.po but no longer in the source (run `make catalogues`): {sorted(map(str, stale))[:10]}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated_with_the_same_placeholders(language: str) -> None:
    catalog = catalogues.read(catalogues.po_path(language))
    problems = []
    for message in catalog:
        if not message.id:
            continue
        ids = (message.id,) if isinstance(message.id, str) else tuple(message.id)
        strings = tuple(message.string) if isinstance(message.string, (tuple, list)) else (message.string or "",)
        if message.fuzzy or not all(strings):
            problems.append(f"untranslated: {ids[0]!r}")
            continue
        wanted = set(PLACEHOLDER.findall(ids[-1])) | set(PLACEHOLDER.findall(ids[0]))
        for text in strings:
            if set(PLACEHOLDER.findall(text)) != wanted:
                problems.append(f"placeholders differ: {ids[0]!r} -> {text!r}")
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalogue_is_the_po_compiled(language: str) -> None:
    catalog = catalogues.read(catalogues.po_path(language))
    assert catalogues.mo_path(language).read_bytes() == catalogues.mo_bytes(catalog), "run `make catalogues`"


def test_a_translation_is_what_the_program_says() -> None:
    from formspec_consult.store.review_text import format_drafts

    try:
        i18n.use_language("id")
        assert format_drafts([]) == "Tidak ada draf di sesi ini."
        i18n.use_language("en")
        assert format_drafts([]) == "No drafts in this session."
    finally:
        i18n.use_language("en")
