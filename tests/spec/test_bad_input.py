"""The bad-input matrix: every malformed draft gets a clear, coded error and nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.spec import Project

from .conftest import snapshot

DRAFT = "spec/modules/shop/master/draft/entity.yaml"
OK_HEAD = "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: draft, module: shop}\n"
BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefg", "bcdefgh", strict=True))

APP_HEAD = ("apiVersion: formspec.dev/v1\nkind: App\nmetadata: {name: second}\nspec:\n"
            "  version: '1'\n  vendor: x\n  root_url: /\n  menu:\n")

# (id, text, expected code, fragment of the message, expected line or None)
CASES = [
    ("unclosed-flow", "apiVersion: [unclosed\n", "FS-YAML-SYNTAX", "not valid YAML", 2),
    ("bad-indent", "apiVersion: formspec.dev/v1\n kind: Entity\n", "FS-YAML-SYNTAX", "not valid YAML", 2),
    ("tab-indent", "spec:\n\tversion: v1\n", "FS-YAML-SYNTAX", "not valid YAML", 2),
    ("dup-top-key", OK_HEAD + "kind: Form\nspec: {version: v1}\n", "FS-YAML-DUPLICATE-KEY", "duplicate key 'kind'", 4),
    ("dup-nested-key", OK_HEAD + "spec:\n  version: v1\n  fields:\n    - name: a\n      type: string\n"
     "      name: b\n", "FS-YAML-DUPLICATE-KEY", "duplicate key 'name'", 9),
    ("alias-bomb", BOMB, "FS-YAML-ALIAS", "alias", None),
    ("recursive-alias", "a: &a\n  b: *a\n", "FS-YAML-ALIAS", "recursive alias", None),
    ("python-tag", OK_HEAD + "spec: !!python/object:os.system {}\n", "FS-YAML-TAG", "unsupported YAML tag", 4),
    ("custom-tag", OK_HEAD + "spec: {version: !env VERSION}\n", "FS-YAML-TAG", "unsupported YAML tag", 4),
    ("deep-nesting", "a: " + "[" * 500 + "]" * 500 + "\n", "FS-YAML-DEPTH", "nesting deeper than 64", 1),
    ("complex-key", "? [a, b]\n: 1\n", "FS-YAML-COMPLEX-KEY", "plain strings", 1),
    ("too-large", OK_HEAD + "spec:\n  version: v1\n  description: '" + "x" * (1024 * 1024) + "'\n",
     "FS-FILE-TOO-LARGE", "the limit is 1,048,576 bytes", None),
    ("lone-surrogate", OK_HEAD + "spec: {version: \udcff}\n", "FS-FILE-ENCODING", "not valid Unicode", None),
    ("scalar-doc", "just some prose\n", "FS-DOC-NOT-MAPPING", "must be a mapping, not a string", 1),
    ("list-doc", "- apiVersion: formspec.dev/v1\n- kind: Entity\n", "FS-DOC-NOT-MAPPING", "not a list", 1),
    ("missing-spec", OK_HEAD, "FS-ENVELOPE-MISSING-KEY", "missing top-level key `spec`", 1),
    ("missing-apiversion", "kind: Entity\nmetadata: {name: draft}\nspec: {version: v1}\n",
     "FS-ENVELOPE-MISSING-KEY", "`apiVersion`", 1),
    ("unknown-top-key", OK_HEAD + "spec: {version: v1}\nstatus: {}\n", "FS-ENVELOPE-UNKNOWN-KEY", "`status`", 5),
    ("bad-apiversion", "apiVersion: formspec.dev/v2\nkind: Entity\nmetadata: {name: d}\nspec: {version: v1}\n",
     "FS-API-VERSION", "unsupported apiVersion 'formspec.dev/v2'", 1),
    ("unknown-kind", "apiVersion: formspec.dev/v1\nkind: Entiti\nmetadata: {name: d}\nspec: {}\n",
     "FS-KIND-UNKNOWN", "unknown kind 'Entiti'", 2),
    ("kind-case", "apiVersion: formspec.dev/v1\nkind: entity\nmetadata: {name: d}\nspec: {version: v1}\n",
     "FS-KIND-CASE", "must be written 'Entity'", 2),
    ("metadata-list", "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: [draft]\nspec: {version: v1}\n",
     "FS-METADATA-NOT-MAPPING", "`metadata` must be a mapping", 3),
    ("metadata-extra-key", "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata:\n  name: d\n  version: 2\n"
     "spec: {version: v1}\n", "FS-METADATA-UNKNOWN-KEY", "unknown metadata key `version`", 5),
    ("metadata-no-name", "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {module: shop}\nspec: {version: v1}\n",
     "FS-METADATA-NAME", "metadata.name is required", 3),
    ("metadata-bad-name", "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: 'Bad Name!'}\n"
     "spec: {version: v1}\n", "FS-METADATA-NAME", "invalid metadata.name", 3),
    ("metadata-bad-module", "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: d, module: 'a b'}\n"
     "spec: {version: v1}\n", "FS-METADATA-MODULE", "invalid metadata.module", 3),
    ("spec-list", OK_HEAD + "spec: [version]\n", "FS-SPEC-NOT-MAPPING", "`spec` must be a mapping", 4),
    ("field-type", OK_HEAD + "spec:\n  version: v1\n  fields:\n    - {name: a, type: strng}\n",
     "FS-SCHEMA", "spec/fields/0/type", 7),
    ("field-name-pattern", OK_HEAD + "spec:\n  version: v1\n  fields:\n    - {name: Full Name, type: string}\n",
     "FS-SCHEMA", "spec/fields/0/name", 7),
    ("entity-no-version", OK_HEAD + "spec: {plural: drafts}\n", "FS-SCHEMA", "'version' is a required property", 4),
    ("relation-target", OK_HEAD + "spec:\n  version: v1\n  fields:\n    - name: c\n      type: relation\n"
     "      relation: {type: belongs_to, target: shop.customer}\n", "FS-SCHEMA", "spec/fields/0/relation", 9),
    ("module-depends-on", "apiVersion: formspec.dev/v1\nkind: Module\nmetadata: {name: extra}\n"
     "spec:\n  version: '1'\n  depends_on: [shop]\n", "FS-MODULE-DEPENDS-ON", "not `depends_on`", 6),
    ("app-leaf-view-and-route", "apiVersion: formspec.dev/v1\nkind: App\nmetadata: {name: second}\nspec:\n"
     "  version: '1'\n  vendor: x\n  root_url: /\n  menu:\n    - {label: A, module: shop, view: a, route: /a}\n",
     "FS-SCHEMA", "spec/menu/0: a menu leaf needs exactly one of `view` or `route`", 9),
    ("app-menu-four-levels", "apiVersion: formspec.dev/v1\nkind: App\nmetadata: {name: second}\nspec:\n"
     "  version: '1'\n  vendor: x\n  root_url: /\n  menu:\n    - label: L1\n      children:\n"
     "        - label: L2\n          children:\n            - label: L3\n              children:\n"
     "                - {label: L4, module: shop, view: a}\n", "FS-SCHEMA", "menus nest at most 3 levels", 13),
    ("app-group-with-view", APP_HEAD + "    - {label: G, view: x, children: [{type: module, module: shop}]}\n",
     "FS-SCHEMA", "a group {label, children} cannot also have a view or route", 9),
    ("app-adopt-without-module", APP_HEAD + "    - {type: module}\n", "FS-SCHEMA",
     "an adopt node (type: module) needs `module`", 9),
    ("app-leaf-without-module", APP_HEAD + "    - {label: Sales, view: sale}\n", "FS-SCHEMA",
     "a menu leaf with a `view` needs the `module`", 9),
    ("workspace-bad-slug", "apiVersion: formspec.dev/v1\nkind: Workspace\nmetadata: {name: other}\n"
     "spec: {slug: Other_Place}\n", "FS-SCHEMA", "does not match", 4),
    ("second-doc-broken", OK_HEAD + "spec: {version: v1}\n---\napiVersion: formspec.dev/v1\nkind: Form\n"
     "metadata: {name: f, module: shop}\nspec: {entity: draft}\nextra: 1\n", "FS-ENVELOPE-UNKNOWN-KEY", "`extra`", 10),
    ("enum-without-values", OK_HEAD + "spec:\n  version: v1\n  fields:\n    - {name: s, type: enum}\n",
     "FS-ENUM-VALUES", "has no enum_values", 7),
]


@pytest.mark.parametrize(("text", "code", "fragment", "line"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_draft_gets_a_coded_error_with_a_hint_and_the_tree_is_untouched(
        shop: Project, shop_dir: Path, text: str, code: str, fragment: str, line: int | None) -> None:
    before = snapshot(shop_dir)
    result = shop.validate(overlay={DRAFT: text})
    assert not result.ok
    matching = [p for p in result.problems if p.code == code]
    assert matching, f"expected {code}, got {[(p.code, p.message) for p in result.problems]}"
    problem = matching[0]
    assert fragment in problem.message
    assert problem.source == DRAFT
    assert problem.hint, "every problem tells the user what to do"
    if line is not None:
        assert problem.line == line
        assert problem.column is not None and problem.column >= 1, "positioned errors carry a column too"
    assert snapshot(shop_dir) == before
    assert not (shop_dir / DRAFT).exists()


def test_the_matrix_covers_at_least_thirty_distinct_bad_inputs() -> None:
    assert len({c[0] for c in CASES}) >= 30
    assert len({c[2] for c in CASES}) >= 20


def test_invalid_utf8_on_disk_is_reported_with_line_and_column(shop: Project, shop_dir: Path) -> None:
    path = shop_dir / "spec" / "modules" / "shop" / "latin1.yaml"
    path.write_bytes(b"apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: caf\xe9}\n")
    problem = next(p for p in shop.validate().problems if p.code == "FS-FILE-ENCODING")
    assert (problem.line, problem.column) == (3, 21)
    assert "0xe9" in problem.message and "UTF-8" in problem.hint


def test_oversized_file_on_disk_is_refused_before_parsing(shop: Project, shop_dir: Path) -> None:
    path = shop_dir / "spec" / "modules" / "shop" / "huge.yaml"
    path.write_bytes(b"# " + b"x" * (2 * 1024 * 1024) + b"\n")
    problem = next(p for p in shop.validate().problems if p.code == "FS-FILE-TOO-LARGE")
    assert "2,097,155 bytes" in problem.message and "Split" in problem.hint


def test_an_empty_file_is_only_a_warning(shop: Project) -> None:
    result = shop.validate(overlay={DRAFT: "# nothing yet\n"})
    assert result.ok
    assert [w.code for w in result.warnings] == ["FS-DOC-EMPTY"]


def test_legacy_api_version_is_accepted_with_a_warning(shop: Project) -> None:
    text = OK_HEAD.replace("formspec.dev/v1", "forma.dev/v1alpha1") + "spec: {version: v1}\n"
    result = shop.validate(overlay={DRAFT: text})
    assert result.ok
    assert [w.code for w in result.warnings] == ["FS-API-VERSION-LEGACY"]


def test_deprecated_document_kind_is_treated_as_entity_with_a_warning(shop: Project) -> None:
    text = OK_HEAD.replace("kind: Entity", "kind: Document") + "spec: {version: v1}\n"
    result = shop.validate(overlay={DRAFT: text})
    assert result.ok
    assert "FS-KIND-DEPRECATED" in [w.code for w in result.warnings]
    assert shop.naming_conflicts("draft", module="shop", kind="Entity")["available"]
