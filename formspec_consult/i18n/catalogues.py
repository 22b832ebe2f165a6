"""Build the message catalogues with Babel: extract, update, compile (``make catalogues``).

    python -m formspec_consult.i18n.catalogues            # extract, update every .po, compile .mo
    python -m formspec_consult.i18n.catalogues init xx    # start the catalogue of language xx

The strings are found by Babel's Python extractor in the whole package, under the keywords of
``formspec_consult.i18n`` (``_``, ``gettext``, ``ngettext``, ``pgettext``, ``N_``). The template is
``locale/formspec_consult.pot``; each language's ``.po`` is updated from it (entries no longer in
the source are dropped, new ones added untranslated) and compiled to the ``.mo`` the program
reads. Locations carry file names but no line numbers, so moving code does not touch the files.
The tests (tests/i18n) use the same functions: what they call complete is what this writes.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from formspec_consult.i18n import DOMAIN, LOCALE_DIR, SOURCE_LANGUAGE

PACKAGE_DIR = LOCALE_DIR.parents[1]
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "pgettext": ((1, "c"), 2)}
PROJECT = "formspec-consult"


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(language: str) -> Path:
    return po_path(language).with_suffix(".mo")


def translated_languages() -> list[str]:
    """The languages that have a .po catalogue (English, the source, has none)."""
    return sorted(p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def extract() -> Catalog:
    """Every marked string of the package, as a template catalogue."""
    template = Catalog(project=PROJECT, domain=DOMAIN, charset="utf-8", fuzzy=False)
    if TEMPLATE.is_file():  # the date of the first extraction: re-running changes nothing
        template.creation_date = read(TEMPLATE).creation_date
    for filename, lineno, message, comments, context in extract_from_dir(
        str(PACKAGE_DIR), method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=("i18n:",),
        strip_comment_tags=True,
    ):
        text = message if isinstance(message, str) else message[0]
        flags = ("python-brace-format",) if "{" in text else ()
        template.add(message, None, [(f"{PACKAGE_DIR.name}/{filename}", lineno)], auto_comments=comments,
                     context=context, flags=flags)
    return template


def read(path: Path) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle)


def po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=100, sort_output=True, include_lineno=False, ignore_obsolete=True)
    return out.getvalue()


def mo_bytes(catalog: Catalog) -> bytes:
    """The compiled catalogue, exactly as `update` writes it (fuzzy entries left out)."""
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def updated(language: str, template: Catalog) -> Catalog:
    """`language`'s catalogue brought up to `template`: new messages added, gone ones dropped."""
    catalog = read(po_path(language))
    catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
    catalog.obsolete.clear()
    return catalog


def update() -> list[str]:
    """Extract, write the template, update and compile every language; the files written."""
    template = extract()
    written = []
    for path, data in [(TEMPLATE, po_bytes(template))] + [
        item for language in translated_languages() for item in _outputs(language, template)
    ]:
        if not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)
            written.append(str(path.relative_to(PACKAGE_DIR.parent)))
    return written


def _outputs(language: str, template: Catalog) -> list[tuple[Path, bytes]]:
    catalog = updated(language, template)
    return [(po_path(language), po_bytes(catalog)), (mo_path(language), mo_bytes(catalog))]


def init(language: str) -> Path:
    """Start `language`'s catalogue from the template (every entry untranslated)."""
    if language == SOURCE_LANGUAGE:
        raise SystemExit(f"{SOURCE_LANGUAGE} is the language the messages are written in; it needs no catalogue")
    path = po_path(language)
    if path.exists():
        raise SystemExit(f"{path} exists already; run without arguments to update it")
    template = extract()
    catalog = Catalog(locale=language, project=PROJECT, domain=DOMAIN, charset="utf-8", fuzzy=False,
                      header_comment=f"# The {language} messages of formspec-consult (see docs/translating.md).")
    catalog.update(template, no_fuzzy_matching=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(po_bytes(catalog))
    mo_path(language).write_bytes(mo_bytes(catalog))
    return path


def main(argv: list[str]) -> int:
    if argv[:1] == ["init"] and len(argv) == 2:
        print(f"created {init(argv[1])}; translate it, then run `make catalogues`")
        return 0
    if argv:
        print(__doc__)
        return 2
    written = update()
    print("\n".join(written) if written else "catalogues up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
