"""A small real FormSpec project for the engine, headless and end-to-end tests."""

from __future__ import annotations

from pathlib import Path

APP = """apiVersion: formspec.dev/v1
kind: App
metadata: {name: shop}
spec:
  version: v1
  vendor: corner
  root_url: /shop
  title: Corner Shop
  modules: [shop]
  menu:
    - {type: module, module: shop}
"""
MODULE = """apiVersion: formspec.dev/v1
kind: Module
metadata: {name: shop, module: shop}
spec:
  version: v1
"""
CUSTOMER = """apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: customer, module: shop}
spec:
  version: v1
  characteristic: master
  display_field: name
  fields:
    - {name: name, type: string, required: true}
    - {name: phone, type: string}
"""
DRAFT_PATH = "modules/shop/master/customer/entity.yaml"


def make_project(root: Path) -> Path:
    """Write the project under `root` and return it."""
    (root / "spec" / "apps").mkdir(parents=True)
    (root / "spec" / "modules" / "shop").mkdir(parents=True)
    (root / "formspec-app.yaml").write_text("spec: spec\n", encoding="utf-8")
    (root / "spec" / "apps" / "shop.yaml").write_text(APP, encoding="utf-8")
    (root / "spec" / "modules" / "shop" / "module.yaml").write_text(MODULE, encoding="utf-8")
    return root
