"""Review keys that can never eat typing.

A person who has just pressed `a` in the diffs pane types on ("sounds good") while looking at the
prompt: the `u` of "sounds" must not undo the apply, the `a` of "great" must not accept a draft.
Two rules make the review keys safe:

- after each review action (accept, reject, undo, accept all) the focus is back on the prompt,
  so the next key is typing;
- a review key that changes the project acts only while the pane was *entered on purpose*
  (`ctrl+r`, F4 on a small screen, a click in the pane), and every other printable key pressed in
  the pane goes to the prompt, with the key, as does a review key while the pane is not armed.

Both are decided here, from the App's `on_event`, as each key arrives from the terminal and before
Textual forwards it to the focused widget. Deciding later (a binding, which runs once the key has
bubbled back up to the App) would let a burst of keys — a pasted or fast-typed sentence — reach
the pane before the first one moved the focus, and its `u` would undo.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import events

if TYPE_CHECKING:
    from textual.app import App
    from textual.widget import Widget

    from formspec_consult.tui.widgets.diff_pane import DiffPane


def _pane_of(focused: Widget | None) -> DiffPane | None:
    from formspec_consult.tui.widgets.diff_pane import DiffPane

    node = focused
    while node is not None:
        if isinstance(node, DiffPane):
            return node
        node = node.parent  # type: ignore[assignment]
    return None


def route_review_key(app: App[None], event: events.Key, prompt: Widget, to_prompt: Callable[[], None]) -> bool:
    """Decide where a key pressed in the diffs pane goes. True when it was used here (a review
    action ran); False to let Textual deliver it — to the prompt, when the focus was moved there.
    `to_prompt` shows the prompt and focuses it at once (on a small screen: the Chat tab)."""
    pane = _pane_of(app.focused)
    if pane is None or not event.is_printable:
        return False  # arrows, Tab, PageUp/Down, Enter, Esc, ctrl+…: the pane's own keys
    typing = not prompt.disabled  # a replay's prompt is disabled: no typing to protect, keys are its own
    action = pane.review_action(event.key)
    if action is not None and (pane.armed or not typing or action not in pane.DESTRUCTIVE):
        pane.run_review_key(action)
        if typing and action in pane.DESTRUCTIVE:
            to_prompt()  # now, not after a refresh: the next key is typing
        return True
    if not typing:
        return False  # the replay's own keys (space, n, +, -) and bindings
    if action is not None:  # a review key in a pane reached by Tab, not on purpose: typing
        pane.hint_unarmed()
    to_prompt()
    return False  # Textual now forwards this very key to the focused prompt
