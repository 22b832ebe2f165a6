"""Shared definitions and spec shapes of the presentation kinds (Page, Form, Table, Dashboard …)."""

from __future__ import annotations

from formspec_consult.spec.schemas._dsl import (
                                                ANY,
                                                BOOL,
                                                INT,
                                                MAP,
                                                NUM,
                                                STR,
                                                STR_MAP,
                                                STRS,
                                                Schema,
                                                arr,
                                                enum,
                                                obj,
                                                ref,
)

#: closed sets from FormSpec's pkg/spec (widget.go, frontend.go); the generated schema enums carry them
FORM_WIDGETS = ("input", "textarea", "richtext", "number", "decimalinput", "select", "switch", "radio-group",
                "combobox", "password", "slider", "tags", "select-multi-tag", "uuid", "json", "fileinput",
                "relation-picker", "datepicker", "datetimeinput", "child-grid", "grants-editor", "hidden", "qrcode",
                "moneyinput", "timeinput")
CELL_WIDGETS = ("badge", "boolean", "image", "qrcode")
CELL_FORMATS = ("currency", "number", "date", "relative", "percent")
REPORT_AGGREGATES = ("sum", "avg", "count", "min", "max")
REPORT_FORMATS = ("currency", "date", "datetime", "percentage")
REPORT_PARAM_TYPES = ("text", "date", "datetime", "select", "relation")
PRINT_FORMATS = ("pdf", "thermal", "dotmatrix", "html")
AUTH_ACTIONS = ("login", "register", "change_password", "forgot_password", "reset_password")
CONTEXT_SOURCES = ("session", "entity", "api", "const", "expr", "config")
FILTER_OPS = ("eq", "neq", "gt", "gte", "lt", "lte", "between", "in", "nin", "like", "ilike", "null", "notnull",
              "descendant_of", "child_of", "root")
RENDER_MODES = ("modal", "drawer", "separate_page")

DEFS: dict[str, Schema] = {
    "FilterSpec": obj({
        "field": STR, "label": STR, "type": enum("text", "select", "date", "date_range"), "op": enum(*FILTER_OPS),
        "default": STR, "value": STR, "show_all": BOOL, "all_label": STR,
        # row_scope entries (an Entity's server-side filters) say where their value comes from
        "from": STR, "attr": STR, "param": STR, "via": STR, "via_field": STR,
    }, "field"),
    "ContextDecl": obj({"name": STR, "source": enum(*CONTEXT_SOURCES), "entity": STR, "id": STR, "call": STR,
                        "config": STR, "params": MAP, "value": ANY, "expr": STR, "realtime": BOOL, "fallback": ANY},
                       "name", "source"),
    "BlockBinds": obj({"source": STR, "param": STR}, "source", "param"),
    "BlockRef": obj({"ref": STR, "asset": STR, "id": STR, "mode": STR, "param": MAP, "props": MAP,
                     "binds": ref("BlockBinds")}),
    "SectionCTA": obj({"label": STR, "href": STR, "variant": enum("primary", "secondary", "ghost")}, "label", "href"),
    "SectionItem": obj({"title": STR, "text": STR, "icon": STR, "image": STR, "cta": ref("SectionCTA")}),
    "SectionBlock": obj({
        "type": enum("hero", "feature_grid", "card", "carousel", "cta"), "title": STR, "subtitle": STR,
        "image": STR, "variant": STR, "cta": ref("SectionCTA"), "items": arr(ref("SectionItem")), "columns": INT,
        "align": enum("left", "center", "right"), "autoplay": BOOL, "interval_ms": INT,
    }, "type"),
    "PageBlock": obj({"form": ref("BlockRef"), "table": ref("BlockRef"), "component": ref("BlockRef"),
                      "widget": ref("BlockRef"), "html": STR, "section": ref("SectionBlock")}),
    "PageTab": obj({"label": STR, "form": ref("BlockRef"), "table": ref("BlockRef"), "component": ref("BlockRef")},
                   "label"),
    "PageLayout": obj({"columns": INT, "mode": enum("", "split")}),
    "PageBinds": obj({"entities": STRS, "actions": STRS, "subscribe": STRS}),
    "FormField": obj({"field": STR, "label": STR, "placeholder": STR, "help": STR, "widget": enum(*FORM_WIDGETS),
                      "read_only": BOOL, "readonly_when": STR, "required_when": STR, "visible_when": STR,
                      "compute": STR, "default_from": STR}, "field"),
    "FormSection": obj({"title": STR, "description": STR, "columns": INT, "visible_when": STR,
                        "fields": arr(ref("FormField"))}, "title"),
    "FormAction": obj({"action": STR, "label": STR, "style": STR, "confirm": STR}, "action"),
    "FormSubmit": obj({"label": STR, "call": STR, "redirect": STR, "message": STR}),
    "FormConfirm": obj({"create": STR, "update": STR, "delete": STR}),
    "FormRenderDecl": obj({"mode": enum(*RENDER_MODES), "picker_panel": enum("", "inline", "aside")}, "mode"),
    "TableColumn": obj({"field": STR, "label": STR, "sortable": BOOL, "width": STR,
                        "align": enum("", "left", "center", "right"), "link": STR, "format": enum(*CELL_FORMATS),
                        "widget": enum(*CELL_WIDGETS)}, "field"),
    "TableAction": obj({"action": STR, "label": STR, "icon": STR, "confirm_msg": STR}, "action", "label"),
    "WidgetLayout": obj({"x": INT, "y": INT, "w": INT, "h": INT}, "x", "y", "w", "h"),
    "DashboardWidget": obj({"ref": STR, "layout": ref("WidgetLayout"), "config": MAP}, "ref", "layout"),
    "ReportSource": obj({"entity": STR, "filter": STR_MAP}, "entity"),
    "ReportParam": obj({"field": STR, "label": STR, "type": enum(*REPORT_PARAM_TYPES), "required": BOOL, "default": ANY},
                       "field", "label", "type"),
    "ReportGroup": obj({"field": STR, "label": STR}, "field"),
    "ReportColumn": obj({"field": STR, "label": STR, "aggregate": enum(*REPORT_AGGREGATES),
                         "format": enum(*REPORT_FORMATS), "widget": enum(*CELL_WIDGETS)}, "field", "label"),
    "ReportTotal": obj({"label": STR, "field": STR, "fn": STR}, "label", "field", "fn"),
    "WizardSummaryItem": obj({"label": STR, "field": STR}, "label", "field"),
    "WizardOnComplete": obj({"restart": BOOL, "redirect": STR, "banner": arr(ref("WizardSummaryItem"))}),
    "WizardStep": obj({
        "title": STR, "description": STR, "form": STR, "on_enter": STR, "on_next": STR, "on_prev": STR,
        "required": STRS, "depends_on": STR, "entity": STR, "layout": STR, "search_fields": STRS,
        "allow_create": BOOL, "fields": arr(ref("FormField")), "summary": arr(ref("WizardSummaryItem")),
        "component": STR,
    }, "title"),
    "KanbanColumn": obj({"status": STR, "label": STR, "color": STR}, "status", "label"),
    "KanbanCard": obj({"title": STR, "subtitle": STR, "badge": STR, "assignee": STR, "fields": STRS,
                       "component": STR}, "title"),
    "PrintCustomPaper": obj({"width": NUM, "height": NUM, "unit": STR}, "width", "height", "unit"),
    "PrintPaper": obj({"size": STR, "margin": STR, "custom": ref("PrintCustomPaper")}),
    "PrintOutput": obj({"format": enum(*PRINT_FORMATS), "paper": ref("PrintPaper")}, "format"),
    "PrintHeader": obj({"logo": BOOL, "title": STR, "subtitle": STR}),
    "PrintChildTable": obj({"field": STR, "columns": STRS}, "field"),
    "PrintTotals": obj({"field": STR, "format": STR}, "field"),
    "PrintQrcode": obj({"payload": {"type": "string", "minLength": 1}, "label": STR, "absolute": BOOL,
                        "size_mm": {"type": "integer", "minimum": 0}}, "payload"),
    "PrintBodyItem": obj({"fields": STRS, "separator": STR, "child_table": ref("PrintChildTable"),
                          "totals": ref("PrintTotals"), "qrcode": ref("PrintQrcode")}),
    "PrintFooter": obj({"text": STR}),
    "TimelineDisplay": obj({"title_field": STR, "subtitle_field": STR, "content_field": STR, "icon_field": STR,
                            "component": STR}),
}

PUBLIC = {"public": BOOL}

SPECS: dict[str, Schema] = {
    "Page": obj({**PUBLIC, "route": STR, "title": STR, "title_visible": BOOL, "icon": STR, "description": STR,
                 "permissions": STRS, "blocks": arr(ref("PageBlock")), "tabs": arr(ref("PageTab")),
                 "layout": ref("PageLayout"), "mode": enum("", "custom"), "asset": STR, "binds": ref("PageBinds"),
                 "context": arr(ref("ContextDecl")), "renderer": STR}, "route", "title", title="Page"),
    "Form": obj({**PUBLIC, "entity": STR, "mode": enum("create", "edit", "view"),
                 "sections": arr(ref("FormSection")), "actions": arr(ref("FormAction")), "submit": ref("FormSubmit"),
                 "render": ref("FormRenderDecl"), "context": arr(ref("ContextDecl")),
                 "auth_action": enum(*AUTH_ACTIONS), "confirm": ref("FormConfirm")},
                title="Form"),  # a Form binds `entity` or an `auth_action` (login, register, …)
    "Table": obj({**PUBLIC, "entity": STR, "columns": arr(ref("TableColumn")), "default_sort": STR,
                  "page_size": INT, "search": BOOL, "realtime": BOOL, "row_actions": arr(ref("TableAction")),
                  "bulk_actions": arr(ref("TableAction")), "filters": arr(ref("FilterSpec")),
                  "fixed_filters": arr(ref("FilterSpec")), "inline_edit": BOOL, "batch_edit": STRS},
                 "entity", title="Table"),
    "Dashboard": obj({**PUBLIC, "title": STR, "description": STR, "customizable": BOOL, "defaults": STRS,
                      "refresh": INT, "realtime": BOOL, "widgets": arr(ref("DashboardWidget"))}, "title",
                     title="Dashboard"),
    "Widget": obj({**PUBLIC, "title": STR, "type": enum("metric", "chart", "table", "list"), "entity": STR,
                   "query": STR, "refresh_secs": INT, "size": ref("WidgetLayout"), "config": MAP}, "title", "type",
                  title="Widget"),
    "Report": obj({**PUBLIC, "title": STR, "entity": STR, "required_permission": STR,
                   "parameters": arr(ref("ReportParam")), "columns": arr(ref("ReportColumn")),
                   "groups": arr(ref("ReportGroup")), "totals": arr(ref("ReportTotal")), "export": STRS,
                   "source": ref("ReportSource")}, "title", "entity", title="Report"),
    "Wizard": obj({**PUBLIC, "title": STR, "entity": STR, "action": STR, "on_complete": ref("WizardOnComplete"),
                   "steps": arr(ref("WizardStep"))}, "title", title="Wizard"),
    "Kanban": obj({**PUBLIC, "entity": STR, "status_field": STR, "columns": arr(ref("KanbanColumn")),
                   "card_template": ref("KanbanCard"), "realtime": BOOL, "filters": arr(ref("FilterSpec")),
                   "fixed_filters": arr(ref("FilterSpec")), "search": BOOL, "row_actions": arr(ref("TableAction")),
                   "max_cards_per_column": INT, "sortable": BOOL, "position_field": STR, "drag_guard": STR},
                  "entity", "status_field", title="Kanban"),
    "Print": obj({**PUBLIC, "entity": STR, "template": STR, "output": ref("PrintOutput"),
                  "header": ref("PrintHeader"), "body": arr(ref("PrintBodyItem")), "footer": ref("PrintFooter")},
                 "entity", title="Print"),
    "Timeline": obj({**PUBLIC, "entity": STR, "event_field": STR, "date_field": STR, "bind_param": STR,
                     "bind_value": STR, "display": ref("TimelineDisplay"), "group_by": STR, "sort": STR,
                     "page_size": INT, "empty_state": STR, "realtime": BOOL}, "entity", title="Timeline"),
    "Theme": obj({**PUBLIC, "tokens": MAP, "stylesheet": STR, "widgets": MAP}, title="Theme"),
    "Calendar": obj({**PUBLIC, "entity": STR, "date_field": STR, "end_field": STR, "title_field": STR,
                     "resource_field": STR, "color_field": STR, "views": STRS, "realtime": BOOL},
                    "entity", "date_field", title="Calendar"),
    "ApprovalInbox": obj({"realtime": BOOL, "filters": arr(ref("FilterSpec")), "search": BOOL},
                         title="ApprovalInbox"),
    "NotificationCenter": obj({"realtime": BOOL}, title="NotificationCenter"),
    "Listing": obj({"entity": STR, "columns": arr(ref("TableColumn")), "filters": arr(ref("FilterSpec")),
                    "search": BOOL}, "entity", title="Listing"),
}
