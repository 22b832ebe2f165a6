"""Shared definitions and spec shapes of the platform kinds (App, Module, Config, Workflow …)."""

from __future__ import annotations

from typing import Any

from formspec_consult.spec.schemas._dsl import (
    ANY,
    BOOL,
    INT,
    MAP,
    STR,
    STR_MAP,
    STRS,
    Schema,
    arr,
    enum,
    obj,
    pattern,
    ref,
)

TRUST = enum("official", "verified", "community")
_MENU_KEYS = ("type", "label", "icon", "module", "view", "route", "when", "children")


def _menu_level(prefix: str, level: int, module_relative: bool) -> Schema:
    """One menu level: an adopt node, a group or a leaf (FormSpec's three shapes, 3 levels at most)."""
    props: dict[str, Schema] = {k: STR for k in _MENU_KEYS if k != "children"}
    props["permissions"] = STRS
    props["children"] = ({"type": "array", "minItems": 1, "items": ref(f"{prefix}{level + 1}")} if level < 3
                         else {"type": "array"})
    one_of_view_route: Schema = {"oneOf": [{"required": ["view"], "not": {"required": ["route"]}},
                                           {"required": ["route"], "not": {"required": ["view"]}}]}
    # an App's leaf names the module of its `view`; a `route` leaf is an absolute path and needs none
    # (FormSpec's own newest example, storefront at 12eb5cd8, writes route-only App menu leaves)
    if not module_relative:
        one_of_view_route = {"oneOf": [{"required": ["view", "module"], "not": {"required": ["route"]}},
                                       {"required": ["route"], "not": {"required": ["view"]}}]}
    shapes: list[Schema] = [
        {"title": "group", "required": ["label", "children"],
         "not": {"anyOf": [{"required": ["view"]}, {"required": ["route"]}]}},
        {"title": "leaf", "required": ["label"], "not": {"required": ["children"]}, **one_of_view_route},
    ]
    if not module_relative and level == 1:
        shapes.insert(0, {"title": "adopt node", "required": ["type", "module"],
                          "properties": {"type": {"const": "module"}}, "not": {"required": ["children"]}})
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False, "oneOf": shapes}
    if level == 3:
        out["not"] = {"required": ["children"]}
    return out


DEFS: dict[str, Schema] = {
    **{f"AppMenuItem{n}": _menu_level("AppMenuItem", n, False) for n in (1, 2, 3)},
    **{f"ModuleMenuItem{n}": _menu_level("ModuleMenuItem", n, True) for n in (1, 2, 3)},
    "Dependency": obj({"module": {"type": "string", "minLength": 1}, "version": STR}, "module"),
    "AiIndexDecl": obj({"category": STR, "features": STRS, "aliases": STRS, "integration_pattern": STR,
                        "skills_for_ai": STR}),
    "AppChrome": obj({"brand": enum("auto", "show", "hide"), "nav": enum("auto", "menu", "none"),
                      "auth": enum("auto", "links", "button", "none"), "footer": enum("auto", "show", "hide"),
                      "breadcrumbs": enum("auto", "show", "hide"), "theme_switcher": enum("auto", "show", "hide"),
                      "profile_route": STR, "regions": STR_MAP}),
    "AppConfirm": obj({"create": STR, "update": STR, "delete": STR}),
    "AppAuth": obj({"login_page": STR, "setup_page": STR, "change_password_page": STR, "reset_password_page": STR,
                    "oauth_callback_page": STR, "chrome_auth": STR}),
    "RegisteredViewDecl": obj({"entity": STR, "view": STR}),
    "AppInterface": obj({"service": STR, "actions": STRS}, "service"),
    "AppConsume": obj({"app": STR, "service": STR, "actions": STRS}, "app", "service"),
    "ConfigKey": obj({"type": STR, "default": ANY, "secret": BOOL}, "type"),
    "CurrencySettings": obj({"code": STR, "decimal_places": INT, "symbol": STR}),
    "Settings": obj({"currency": ref("CurrencySettings"), "locale": STR, "timezone": STR, "date_format": STR,
                     "decimal_scale": INT, "rounding": STR}),
    "SubDeliveryDecl": obj({"channel": STR, "url_from": STR, "header": STR, "sign": BOOL}, "channel"),
    "WorkflowTransitionRef": obj({"from": STR, "to": STR}, "from", "to"),
    "WorkflowTrigger": obj({"transition": ref("WorkflowTransitionRef")}),
    "StepEscalation": obj({"after": STR, "notify_roles": STRS, "reassign_roles": STRS}, "after"),
    "WorkflowStep": obj({"roles": STRS, "approvers": INT, "mode": STR, "when": STR,
                         "escalation": ref("StepEscalation")}),
    "WorkflowReject": obj({"to": STR}, "to"),
    "WorkflowEscalation": obj({"after": STR, "notify_roles": STRS}, "after"),
    "ApiRESTConfig": obj({"base_path": STR, "version": STR, "disable": STRS}),
    "ApiGRPCConfig": obj({"enabled": BOOL, "package": STR}, "enabled"),
    "WebhookKeyRef": obj({"config": STR, "secret": BOOL}, "config"),
    "WebhookSigConfig": obj({"algorithm": STR, "header": STR, "key": ref("WebhookKeyRef"), "payload": STR},
                            "algorithm", "header", "key"),
    "WebhookTokenConfig": obj({"header": STR, "key": ref("WebhookKeyRef")}, "header", "key"),
    "WebhookAuth": obj({"strategy": STR, "signature": ref("WebhookSigConfig"), "token": ref("WebhookTokenConfig")},
                       "strategy"),
    "IntegratorListen": obj({"resource": STR, "event": STR}, "resource", "event"),
    "IntegratorCall": obj({"resource": STR, "action": STR}, "resource", "action"),
    "EnvironmentPlane": obj({"url": STR}, "url"),
    "PolicyApproval": obj({"impl": arr(ref("ImplType")), "approvers": INT, "approver_roles": STRS}, "approvers"),
    "DatastorePool": obj({"max_open": INT, "max_idle": INT, "max_lifetime": STR}),
    "DatastoreConnection": obj({"host": STR, "port": INT, "database": STR, "lazy": BOOL,
                                "pool": ref("DatastorePool"), "extra": MAP}),
    "AccessPermission": enum("read", "write", "read_write"),
    "DatastorePermissionRule": obj({"scope": STR, "access": ref("AccessPermission")}, "scope", "access"),
    "DatastorePermission": obj({"default": ref("AccessPermission"), "rules": arr(ref("DatastorePermissionRule"))}),
    "DatastoreAccessFilter": obj({"workspaces": STRS, "environment": STR, "labels": MAP}),
    "DatastoreAccess": obj({"filter": ref("DatastoreAccessFilter"), "permission": ref("DatastorePermission")}),
    "SlotContract": obj({"required_props": STRS, "optional_props": STRS}),
    "SlotDecl": obj({"name": STR, "contract": ref("SlotContract")}, "name"),
    "SeedEntity": MAP,
}

SPECS: dict[str, Schema] = {
    "App": obj({
        "version": STR, "vendor": STR, "title": STR, "logo": STR,
        "root_url": pattern("^(/|/[^/]+(/[^/]+)*)$", examples=["/", "/app/rental"],
                            description="the URL path the App is served at in its workspace; / for a workspace's only App"), "modules": STRS, "datastores": STR_MAP,
        "app_renderer": enum("sidebar-nav", "topnav", "no-nav"), "access": enum("private", "public"),
        "stack_family": STR, "persist_backend": STR, "theme_ref": STR, "auth_config_ref": STR,
        "renderers": STR_MAP, "chrome": ref("AppChrome"), "menu": arr(ref("AppMenuItem1")),
        "workspaces": STRS, "auth": ref("AppAuth"), "confirm": ref("AppConfirm"),
        "page_transition": enum("none", "fade", "slide", "slide-up", "scale"),
        "registered_views": arr(ref("RegisteredViewDecl")),
        "publishes": arr(ref("AppInterface")), "consumes": arr(ref("AppConsume")),
    }, "root_url", title="App"),
    "Module": obj({
        "version": STR, "vendor": STR, "depends": arr(ref("Dependency")), "datastore": STR,
        "datastores": STR_MAP, "config": MAP, "ai_index": ref("AiIndexDecl"), "menu": arr(ref("ModuleMenuItem1")),
        # FormSpec's ModuleSpec.runtime: where the module's code runs (a closed set, checked by its loader)
        "runtime": enum("local", "typescript", "node", "php", "python", "go", "java", "dotnet", "ruby", "rust"),
    }, "version", title="Module"),
    "Workspace": obj({"display_name": STR, "description": STR, "slug": pattern("^[a-z0-9]+(-[a-z0-9]+)*$"),
                      "owner_user_id": STR, "settings": MAP}, title="Workspace"),
    "Config": obj({"keys": {"type": "object", "additionalProperties": ref("ConfigKey")},
                   "settings": ref("Settings")}, title="Config"),
    "Migration": obj({"ddl": STR, "module": STR}, "ddl", title="Migration"),
    "Subscription": obj({
        "events": STRS, "handler": ref("ImplDecl"), "store": STR, "durability": STR, "retry": ref("RetryDecl"),
        "position": enum("latest", "earliest"), "filter": STR, "transform": STR, "dead_letter": ref("DeliveryTarget"),
        "max_retry": INT, "retention": STR, "delivery": ref("SubDeliveryDecl"),
    }, "handler", title="Subscription"),
    "Workflow": obj({"entity": STR, "on": ref("WorkflowTrigger"), "steps": arr(ref("WorkflowStep")),
                     "on_reject": ref("WorkflowReject"), "escalation": ref("WorkflowEscalation")},
                    "entity", "on", title="Workflow"),
    "Api": obj({"rest": ref("ApiRESTConfig"), "grpc": ref("ApiGRPCConfig")}, title="Api"),
    "Webhook": obj({"for": STR, "method": enum("GET", "POST", "PUT", "PATCH", "DELETE"), "path": STR,
                    "auth": ref("WebhookAuth"), "idempotent": BOOL, "idempotency_key": ref("IdempotencyDecl")},
                   "for", "method", "auth", title="Webhook"),
    "Integrator": obj({"listen": ref("IntegratorListen"), "call": ref("IntegratorCall"), "compensate": STR},
                      "listen", "call", title="Integrator"),
    "Mockup": obj({"for": STR, "config_ref": STR}, "for", title="Mockup"),
    "KindDefinition": obj({"group": STR, "version": STR, "schema": ANY, "handler": ref("ImplDecl"),
                           "scope": enum("module", "app")}, "group", "version", "handler", title="KindDefinition"),
    "Environment": obj({"mode": enum("dev", "prod"), "tier": enum("standalone", "cloud", "enterprise"),
                        "resource_pool": enum("shared", "exclusive"), "key_ref": STR, "policy": STR,
                        "resource_planes": arr(ref("EnvironmentPlane"))},
                       "mode", "tier", "resource_pool", "key_ref", "policy", title="Environment"),
    "Policy": obj({"require_signing": BOOL, "require_staging_first": BOOL,
                   "require_approval": arr(ref("PolicyApproval")), "blocked": STRS, "rego": STR},
                  "require_signing", "require_staging_first", title="Policy"),
    "Datastore": obj({
        "driver": enum("sqlite", "postgres", "valkey", "redis", "s3", "minio", "nats", "memory", "fs"),
        "connection": ref("DatastoreConnection"), "credential_ref": STR,
        "serves": arr(enum("db", "cache", "lock", "queue", "pubsub", "storage", "config", "kvstore", "log")),
        "access": ref("DatastoreAccess"),
    }, "driver", "connection", title="Datastore"),
    "Renderer": obj({"implements": STR, "stack_family": STR, "trust_tier": TRUST},
                    "implements", "stack_family", "trust_tier", title="Renderer"),
    "PersistBackend": obj({"implements": STR, "trust_tier": TRUST}, "implements", "trust_tier",
                          title="PersistBackend"),
    "VisualSpecKind": obj({"tier": STR, "schema": ANY, "renderer_contract": ANY,
                           "accepts_slots": arr(ref("SlotDecl")), "implements_slot": STR}, "tier",
                          title="VisualSpecKind"),
    "Seed": obj({"entities": arr(ref("SeedEntity"))}, title="Seed"),
}
