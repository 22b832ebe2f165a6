"""Shared definitions for the data kinds: Entity (fields, relations, actions, events), Service."""

from __future__ import annotations

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

FIELD_TYPES = ("string", "text", "richtext", "integer", "decimal", "money", "percent", "boolean", "enum", "date",
               "datetime", "time", "uuid", "json", "file", "attachment", "relation", "child", "number")
IMPL_TYPES = ("script_ref", "script", "native", "compiled", "sidecar")
IDENT = "^[a-z][a-z0-9_]*$"
#: the rule names FormSpec's validator applies to a value (internal/validation: Core Basic §10.6 and
#: the cross-field ones); said in the schema so the outline of `fields` shows them
RULES = {"type": "array", "items": {"$ref": "#/$defs/ValidationRule"},
         "description": "names: required, positive, email, url, future, past; with a value: min, max, min_length, "
                        "max_length, pattern, precision, min_items, max_items, after, before (another field), "
                        "exists; e.g. [required, {min: 0}, 'after:start_date']"}

DEFS: dict[str, Schema] = {
    "Characteristic": enum("master", "transaction", "reference", "summary"),
    "FieldType": enum(*FIELD_TYPES),
    "OnDelete": enum("restrict", "cascade", "set_null"),
    "ImplType": enum(*IMPL_TYPES),
    "FieldClassification": enum("pii", "financial", "internal"),
    "ImplDecl": obj({"type": ref("ImplType"), "ref": STR}, "type"),
    # four spellings: "required", "after:end_date", {min_length: 1}, {name: min_length, value: 1}
    "ValidationRule": {"anyOf": [
        STR,
        obj({"name": STR, "value": ANY}, "name"),
        {"type": "object", "minProperties": 1, "maxProperties": 1},
    ]},
    "RelationDecl": obj({
        "type": enum("belongs_to", "has_many", "has_one"), "resource": STR, "foreign_key": STR,
        "on_delete": ref("OnDelete"), "snapshot": arr(ref("SnapshotField")),
    }, "type", "resource"),
    "SnapshotField": obj({"from": STR, "as": STR}, "from"),
    "ChildDecl": obj({"entity": STR, "storage": STR, "sequence_field": STR, "fields": arr(ref("Field")),
                      "picker": MAP}, "storage"),
    "ComputedDecl": obj({"formula": STR}, "formula"),
    "AutoFillDecl": obj({"from": STR, "field": STR}, "from", "field"),
    "NaturalKeyPrefix": obj({"config": STR, "default": STR, "value": STR}),
    "NaturalKeyRuleDecl": obj({"strategy": STR, "format": STR, "prefix": ref("NaturalKeyPrefix"), "reset": STR,
                               "scope_field": STR}, "strategy"),
    "StorageTransform": obj({"name": STR, "width": INT, "height": INT, "fit": STR}, "name"),
    "StorageSpec": obj({
        "allowed_types": STRS, "max_size_mb": INT, "max_count": INT, "visibility": STR, "signed_url_ttl": STR,
        "cdn": BOOL, "transform": arr(ref("StorageTransform")), "one_time": BOOL, "ttl": STR,
        "chunk_size_mb": INT, "max_download_mb": INT,
    }),
    "UnitDecl": obj({"base": {"type": "string", "minLength": 1}, "convertible": STRS,
                     "factors": {"type": "object", "additionalProperties": {"type": "number"}}}, "base"),
    "Field": obj({
        "name": pattern(IDENT, minLength=1, maxLength=128), "type": ref("FieldType"), "title": STR,
        "description": STR, "default": ANY, "required": BOOL, "immutable": BOOL, "read_only": BOOL,
        "unique": BOOL, "index": BOOL, "natural_key": BOOL, "natural_key_rule": ref("NaturalKeyRuleDecl"),
        "natural_key_entry": enum("auto_generated", "user_entry", "auto_generated_if_empty"),
        "audited": BOOL, "enum_values": STRS, "rules": RULES,
        "relation": ref("RelationDecl"), "child": ref("ChildDecl"), "computed": ref("ComputedDecl"),
        "precision": INT, "scale": INT, "visible_when": STR, "readonly_when": STR, "required_when": STR,
        "auto_fill": ref("AutoFillDecl"), "tree": BOOL, "classification": ref("FieldClassification"),
        "required_permission": STR, "exclude": STRS, "encrypted": BOOL, "masked": BOOL,
        "storage": ref("StorageSpec"), "renamed_from": STR, "removed": BOOL, "accept_data_loss": BOOL,
        "reason": STR, "currency": STR, "decimal_places": INT, "unit": ref("UnitDecl"), "options": arr(MAP),
        "multiple": BOOL,
    }, "name", "type", title="Field"),
    # actions
    "ActionUIHint": obj({"button_label": STR, "style": enum("primary", "secondary", "danger"), "icon": STR,
                         "confirm": STR, "show_when": STR}),
    "IdempotencyDecl": obj({"from": STR, "field": STR}, "from"),
    "UsesDbDecl": obj({"read": STRS, "write": STRS}),
    "UsesConfigDecl": obj({"read": STRS, "write": STRS}),
    "KvstoreUseDecl": obj({"scope": STR, "access": STR, "module": STR}),
    "UsesDecl": obj({"resources": STRS, "db": ref("UsesDbDecl"), "config": ref("UsesConfigDecl"),
                     "kvstore": arr(ref("KvstoreUseDecl")), "secrets": STRS, "primitives": STRS,
                     "datastores": STR_MAP}),
    "ParamValidation": obj({"field": STR, "rules": arr(ref("ValidationRule"))}, "field"),
    "ParamInput": obj({
        "name": pattern(IDENT, minLength=1, maxLength=128), "type": ref("FieldType"), "label": STR,
        "placeholder": STR, "help": STR, "widget": STR, "required": BOOL, "default": ANY, "enum_values": STRS,
        "options": arr(MAP), "multiple": BOOL, "rules": RULES, "visible_when": STR,
        "readonly_when": STR, "required_when": STR, "compute": STR, "persist": BOOL,
    }, "name"),
    "InputSet": obj({"name": pattern(IDENT, minLength=1, maxLength=128), "inputs": arr(ref("ParamInput"))}, "name"),
    "ParamsDecl": obj({"validate": arr(ref("ParamValidation")), "inputs": arr(ref("ParamInput")),
                       "inputs_from": STRS, "render": obj({"mode": STR})}),
    "ConditionDecl": obj({"script": STR, "message": STR, "field": STR, "expression": STR}),
    "RetryDecl": obj({"max": INT, "backoff": STR, "initial_delay_ms": INT}),
    "CallbackDecl": obj({"channel": STR, "url_from": STR, "header": STR, "sign": BOOL, "retry": ref("RetryDecl")},
                        "channel"),
    "RateLimitSpec": obj({"max": INT, "per": STR, "scope": STR, "strategy": STR}, "max", "per"),
    "Action": obj({
        "name": STR, "description": STR, "required_permission": STR, "idempotent": BOOL,
        "idempotency_key": ref("IdempotencyDecl"), "audit": BOOL, "disabled": BOOL, "call": STR, "track": BOOL,
        "callback": ref("CallbackDecl"), "emits": STR, "expose": STRS, "impl": ref("ImplDecl"),
        "uses": ref("UsesDecl"), "params": ref("ParamsDecl"), "conditions": arr(ref("ConditionDecl")),
        "ui": ref("ActionUIHint"), "rate_limit": ref("RateLimitSpec"), "public": BOOL,
    }, "name"),
    # state machine
    "StateDecl": obj({"name": STR, "label": STR, "description": STR}, "name", "label"),
    "GuardDecl": obj({"expression": STR, "message": STR}, "expression"),
    # a transition is an action source since FormSpec's L3 (it carries what an action carries), may
    # `emit` one declared event, gate on `require_permission` and hold an `approval` chain
    "TransitionDecl": obj({"from": {"anyOf": [STR, STRS]}, "to": STR, "via": STR, "guard": ref("GuardDecl"),
                           "params": ref("ParamsDecl"), "conditions": arr(ref("ConditionDecl")),
                           "description": STR, "impl": ref("ImplDecl"), "audit": BOOL, "emit": STR, "emits": STR,
                           "idempotent": BOOL, "idempotency_key": ref("IdempotencyDecl"), "ui": ref("ActionUIHint"),
                           "uses": ref("UsesDecl"), "expose": STRS, "rate_limit": ref("RateLimitSpec"),
                           "require_permission": STR, "approval": ref("ApprovalSpec")},
                          "to", "via"),
    # open objects: FormSpec's ApprovalSpec/ApprovalStep carry more than the keys its validators read
    "ApprovalSpec": {"type": "object", "properties": {"steps": arr(ref("ApprovalStep"))}},
    "ApprovalStep": {"type": "object", "properties": {
        "name": STR, "title": STR, "roles": STRS, "permission": STR, "mode": enum("all", "any", "sequential"),
        "approvers": INT, "display_fields": STRS, "escalation": {"type": "object", "properties": {
            "after": STR, "reassign": STR}}}},
    "StateMachine": obj({"field": STR, "initial": STR, "states": arr(ref("StateDecl")),
                         "transitions": arr(ref("TransitionDecl"))}, "field", "initial"),
    # events and hooks
    "PublishDecl": obj({"durable": BOOL}),
    "PayloadDecl": obj({"fields": STRS}),
    "DeliveryTarget": obj({"scope": STR, "resource": STR, "action": STR}),
    "EventDeliveryDecl": obj({"channel": STR, "target": ref("DeliveryTarget"), "job": STR, "retry": ref("RetryDecl"),
                              "dead_letter": ref("DeliveryTarget"), "idempotency_key": STR, "handler": STR,
                              "notification": MAP}, "channel"),
    "EventDecl": obj({"name": STR, "description": STR, "type": STR, "publish": ref("PublishDecl"),
                      "payload": ref("PayloadDecl"), "deliver": arr(ref("EventDeliveryDecl"))}, "name"),
    "DeliveryDecl": obj({"event": STR, "reliable_event": BOOL, "websocket": BOOL, "channel": STR}, "event"),
    "HookDecl": obj({"on": enum("before", "after", "on_error", "before_deliver", "after_deliver"), "action": STR,
                     "event": STR, "impl": ref("ImplDecl"), "priority": INT, "uses": ref("UsesDecl")},
                    "on", "impl"),
    # storage and policies
    "IndexDecl": obj({"fields": STRS, "unique": BOOL, "where": STR}),
    "RawDDLDecl": obj({"name": pattern("^[a-z][a-z0-9_-]*$", minLength=1), "ddl": STR, "ddl_by": STR_MAP,
                       "reason": STR}, "name"),
    "PersistSpec": obj({"table": STR, "soft_delete": BOOL, "category": STR, "indexes": arr(ref("IndexDecl")),
                        "raw_ddl": arr(ref("RawDDLDecl"))}),
    "EntityAuth": obj({"required": BOOL, "strategies": STRS}, "required"),
    "ExposeConfig": obj({"type": enum("rest", "grpc", "ws"), "enabled": BOOL, "actions": STRS}, "type"),
    "ExtendStorage": obj({"target": STR, "namespace": STR, "validate": STR}, "target", "namespace"),
    "BackdatePolicy": obj({"max_days_back": INT, "override_permission": STR}),
    "ForwardDatePolicy": obj({"max_days_forward": INT, "override_permission": STR}),
    "SoftDeactivateDecl": obj({"enabled": BOOL}),
    "CacheSpec": obj({"ttl": STR}, "ttl"),
    "ScopeDecl": obj({"dimension": pattern(IDENT), "field": STR, "required": BOOL}, "dimension", "field"),
    "AssignmentDecl": obj({"dimension": pattern(IDENT), "field": STR, "principal_field": STR},
                          "dimension", "field", "principal_field"),
    "InvariantDecl": obj({"unique": {"type": "array", "items": STR, "minItems": 1}, "message": STR}),
    "SummarySource": obj({"entity": STR, "alias": STR, "filter": STR_MAP}, "entity"),
    "RebuildSpec": obj({"strategy": STR, "window": STR, "since": STR}),
}

ENTITY_SPEC = obj({
    "version": STR, "plural": STR, "characteristic": ref("Characteristic"), "auth": ref("EntityAuth"),
    "persist": ref("PersistSpec"), "fields": arr(ref("Field")), "actions": arr(ref("Action")),
    "state_machine": ref("StateMachine"), "events": arr(ref("EventDecl")), "deliver": arr(ref("DeliveryDecl")),
    "indexes": arr(ref("IndexDecl")), "row_scope": arr(ref("FilterSpec")), "scope": ref("ScopeDecl"),
    "assignments": arr(ref("AssignmentDecl")), "maintained_by": STR, "invariants": arr(ref("InvariantDecl")),
    "sources": arr(ref("SummarySource")), "join_key": STR, "rebuild": ref("RebuildSpec"),
    "extend_storage": ref("ExtendStorage"), "expose": arr(ref("ExposeConfig")),
    "backdate_policy": ref("BackdatePolicy"), "forward_date_policy": ref("ForwardDatePolicy"),
    "hooks": arr(ref("HookDecl")), "rate_limit": ref("RateLimitSpec"), "soft_deactivate": ref("SoftDeactivateDecl"),
    "cache": ref("CacheSpec"), "lifecycle": enum("two_step_autosave", "two_step_manual", "plain_crud"),
    "display_field": STR, "input_sets": arr(ref("InputSet")),
}, "version", title="Entity")

SERVICE_SPEC = obj({"version": STR, "actions": arr(ref("Action")), "auth": ref("EntityAuth")}, "version",
                   title="Service")
