"""The consultation app: three panes over the engine, which runs outside the widgets.

The first frame paints before the engine (and with it litellm) is imported: the engine is
opened by a worker after mount while the status bar says "connecting…". Every worker uses
`exit_on_error=False` and catches errors into notifications, so a failing model or server
never closes the app.
"""

from __future__ import annotations

import contextlib
from collections import deque
from contextlib import aclosing
from functools import cached_property
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.notifications import SeverityLevel
from textual.widgets import Footer
from textual.worker import Worker

from formspec_consult.agent.engine.port import EngineFactory, EngineLike
from formspec_consult.i18n import N_, _
from formspec_consult.resources import data_dir
from formspec_consult.store.layout import EVENTS
from formspec_consult.tui.keys import WORD_MOVE_OF_LETTER, read_meta_letters_as_alt
from formspec_consult.tui.layout import CHAT, DIFFS, PANES, SIDE, TOOLS, LayoutActions, is_compact
from formspec_consult.tui.localise import LocalisedBindings
from formspec_consult.tui.review_keys import route_review_key
from formspec_consult.tui.slash import SlashSpec, is_command
from formspec_consult.tui.widgets.choice_bar import ChoiceBar
from formspec_consult.tui.widgets.conversation import ConversationView, Entry
from formspec_consult.tui.widgets.prompt_input import PromptInput
from formspec_consult.tui.widgets.status_bar import StatusBar, StatusInfo

if TYPE_CHECKING:
    from textual.widgets import Tabs

    from formspec_consult.agent.loop.permissions import Decision, PermissionRequest
    from formspec_consult.config.trust import TrustRequest
    from formspec_consult.store.agent_events import SessionChanged
    from formspec_consult.tui.presenter import Presenter
    from formspec_consult.tui.review import DiffPaneReview
    from formspec_consult.tui.slash_router import SlashRouter
    from formspec_consult.tui.widgets.diff_pane import DiffPane
    from formspec_consult.tui.widgets.tool_calls import ToolCallsPane

_LETTERS = "abcdef"


def _slash_commands_provider() -> type:
    """The palette's slash-command provider, imported when the palette first opens."""
    from formspec_consult.tui.commands import SlashCommandsProvider

    return SlashCommandsProvider


class ConsultApp(LocalisedBindings, LayoutActions, App[None]):
    """`ConsultApp(engine_factory)`: the factory opens (or resumes) the engine off the UI path."""

    CSS_PATH = [data_dir("styles") / "app.tcss"]
    TITLE = "formspec-consult"
    COMMANDS = App.COMMANDS | {_slash_commands_provider}
    BINDINGS = [
        # Shown in the footer, so quitting is never a guess (Textual's own ctrl+q is hidden).
        Binding("ctrl+q", "quit", N_("Quit"), priority=True),
        # Esc does one of two things, and the footer names the one it does now (check_action):
        # from a pane (the diffs pane armed, the tools pane) back to the prompt; at the prompt,
        # while a turn runs, cancel it. Idle at the prompt it does nothing, and the footer says none.
        Binding("escape", "leave_pane", N_("Back to the prompt")),
        Binding("escape", "cancel_turn", N_("Cancel turn")),
        Binding("ctrl+r", "review", N_("Review drafts")),
        *[Binding(pane.key, f"toggle_pane('{pane.id}')", pane.name) for pane in PANES],  # F2 chat, F3 tools, F4 diffs
        Binding("f5", "cycle_split", N_("Split"), show=False),
        # priority: the prompt (a TextArea) binds f6/f7 to select line/all, which would swallow them
        Binding("f6", "resize_side(-5)", N_("Narrower"), show=False, priority=True),
        Binding("f7", "resize_side(5)", N_("Wider"), show=False, priority=True),
        Binding("f8", "toggle_theme", N_("Theme")),
        *[Binding(f"alt+{c}", f"pick('{c}')", N_("Option") + f" {c.upper()}", show=False,
                  priority=True) for c in _LETTERS],
    ]

    def __init__(
        self,
        engine_factory: EngineFactory,
        *,
        max_blocks: int = ConversationView.DEFAULT_MAX_BLOCKS,
        theme: str | None = None,
        trust_request: TrustRequest | None = None,
    ) -> None:
        super().__init__()
        # What the project's settings ask for that waits for the folder's trust: asked once,
        # before the engine (and with it anything those settings start) opens.
        self.trust_request = trust_request
        read_meta_letters_as_alt()  # alt+b / alt+f from a real terminal, see tui/keys.py
        self._initial_theme = theme  # applied on mount: the theme watcher needs a screen
        self.engine_factory = engine_factory
        self.engine: EngineLike | None = None
        self.max_blocks = max_blocks
        self.turn_worker: Worker[None] | None = None
        # Toasts vanish after a few seconds; keep the recent ones (listed by /status).
        self.recent_notices: deque[str] = deque(maxlen=200)
        self.queued: list[str] = []  # messages sent before the engine was ready, sent once it is
        # True once the (resumed) session is on screen: the engine is open a little earlier, while
        # its earlier conversation and drafts are mounted, and a turn must not start in between.
        self.session_shown = False
        # True once the engine's model layer has joined (see Engine.open(wait_for_model=False)):
        # the person can read, review and type before; a message sent meanwhile waits, queued.
        self.model_joined = False
        # Built when the engine opens (they draw into the panes and act on the engine): None before.
        self.presenter: Presenter | None = None
        self.review: DiffPaneReview | None = None
        # Why the consultation could not start (None while it can): said once in the conversation,
        # and in the shell after the app closes, with exit code 2 (see commands/launch.run_app).
        self.start_failure: str | None = None

    @cached_property
    def router(self) -> SlashRouter:
        """The slash-command router, built when the first command is typed (not at start-up)."""
        from formspec_consult.tui.slash_router import SlashRouter

        return SlashRouter(self)

    @property
    def diff_pane(self) -> DiffPane:
        """The spec-diffs pane (mounted just after the first frame)."""
        from formspec_consult.tui.widgets.diff_pane import DiffPane

        return self.query_one(f"#{DIFFS.id}", DiffPane)

    @property
    def tool_pane(self) -> ToolCallsPane:
        """The tool-calls pane (mounted just after the first frame)."""
        from formspec_consult.tui.widgets.tool_calls import ToolCallsPane

        return self.query_one(f"#{TOOLS.id}", ToolCallsPane)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Show a toast, and remember it in `recent_notices`.

        Markup is off by default: messages quote server errors and paths such as
        `spec.fields[1].type`, which Textual would otherwise read as markup tags."""
        self.recent_notices.append(message)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def compose(self) -> ComposeResult:
        # The pane tabs are shown only on a small screen, where one pane is visible at a time (see
        # layout.py): in the first frame there; on a wider screen mounted just after it.
        if is_compact(self.size.width, self.size.height):
            yield self._pane_tabs()
        with Horizontal(id="panes"):
            with Vertical(id=CHAT.id):
                yield ConversationView(max_blocks=self.max_blocks, id="conversation")
                yield ChoiceBar(id="choices")
                yield PromptInput(id="prompt")
            # Filled right after the first frame (see `_after_first_frame`): the two side panes
            # cost about as much to build as the rest of the screen, and nothing needs them sooner.
            yield Vertical(id=SIDE)
        yield StatusBar(id="status")
        # The Footer (key hints) is mounted right after the first frame, with the side panes.

    @staticmethod
    def _pane_tabs() -> Tabs:
        from textual.widgets import Tab, Tabs

        tabs = Tabs(*[Tab(_(pane.tab), id=pane.tab_id) for pane in PANES], id="pane-tabs")
        tabs.can_focus = False
        tabs.display = False
        return tabs

    def on_mount(self) -> None:
        if self._initial_theme:
            self.theme = self._initial_theme
        self.screen.set_focus(self.query_one(PromptInput))  # now, not after a refresh
        self.apply_size(self.size.width, self.size.height)  # the first frame is laid out for this screen
        self.call_after_refresh(self._after_first_frame)

    # Keys the terminal sent before the first frame (typed while the interpreter was still
    # importing and the app drawing): Textual would hand those read before the prompt had the
    # focus to a screen with nothing focused, which drops them. They are kept, in order, and
    # delivered to the prompt once the first frame is on screen.
    _type_ahead: list[events.Key] | None = []

    def _open_type_ahead(self) -> None:
        kept, self._type_ahead = self._type_ahead or [], None
        for key in kept:  # posted behind nothing newer: later keys queue after these
            if key.key == "ctrl+j":  # Enter typed while the terminal was still cooked (ICRNL) reads as \n
                key = events.Key("enter", "\r")
            self.post_message(events.Key(key.key, key.character))

    async def _after_first_frame(self) -> None:
        """Mount the side panes, then open the engine. The engine opens only once the first
        frame is on screen: its imports (litellm) run in a thread but still compete for the
        interpreter."""
        if self.query(f"#{DIFFS.id}"):  # on_mount runs once per class that defines it (subclasses)
            return
        self._open_type_ahead()
        # Imported here too: the side panes' modules are not needed for the first frame.
        from formspec_consult.tui.widgets.diff_pane import DiffPane
        from formspec_consult.tui.widgets.tool_calls import ToolCallsPane

        diffs = DiffPane(id=DIFFS.id)
        diffs.syntax_theme = "ansi_dark" if self.current_theme.dark else "ansi_light"
        if not self.query("#pane-tabs"):  # a wide first frame had no use for them
            await self.mount(self._pane_tabs(), before="#panes")
        await self.query_one(f"#{SIDE}").mount(ToolCallsPane(id=TOOLS.id), diffs)
        await self.mount(Footer())
        self.apply_size(self.size.width, self.size.height)
        request, self.trust_request = self.trust_request, None
        if request is None:
            self.open_engine(None)
            return
        from formspec_consult.tui.screens.trust import TrustScreen

        self.push_screen(TrustScreen(request), lambda trusted: self._trust_decided(request, bool(trusted)))

    def _trust_decided(self, request: TrustRequest, trusted: bool) -> None:
        """Record the person's trust (the engine then honours the settings), or say once what stays
        off; then open the engine."""
        from formspec_consult.config.trust import trust

        said = request.one_line()
        if trusted:
            try:
                trust(request.folder, request.digest)
                said = ""
            except OSError as exc:
                said = _("Could not record the trust ({why}); {said}").format(why=exc.strerror or exc, said=said)
        if said:
            self.run_worker(self.query_one(ConversationView).add(Entry("notice-warning", said)),
                            exit_on_error=False)
        self.open_engine(None)

    # -- engine lifecycle ---------------------------------------------------------------------

    @work(exclusive=True, group="engine", exit_on_error=False)
    async def open_engine(self, resume: str | None, model: str | None = None, *, note: str | None = None) -> None:
        """Open (or resume) the engine, then show the earlier conversation and the drafts."""
        # Imported here, not at start-up: the presenter pulls in the Markdown machinery.
        from formspec_consult.tui.presenter import Presenter

        self.presenter = presenter = Presenter(
            self.query_one(ConversationView),
            self.tool_pane,
            self.query_one(ChoiceBar),
            self.query_one(StatusBar),
            notify=lambda message, severity: self.notify(message, severity=severity),  # type: ignore[arg-type]
            drafts_changed=self.refresh_drafts,
        )
        status = self.query_one(StatusBar)
        status.info = StatusInfo(state="connecting…")
        self.session_shown = False
        self.model_joined = False
        try:
            engine = await (self.engine_factory(resume, model=model) if model else self.engine_factory(resume))
        except Exception as exc:  # ProviderError/ProjectError carry a hint in str()
            await self._could_not_start(exc)
            return
        self.engine = engine
        engine.set_approver(self.ask_permission)  # write tools the model calls wait for the person's answer
        from formspec_consult.tui.review import DiffPaneReview

        self.review = review = DiffPaneReview(engine, self.diff_pane,
                                              lambda m, s: self.notify(m, severity=s),  # type: ignore[arg-type]
                                              say=self.say)
        self.refresh_status("loading the session…")
        await presenter.load(engine.past_events())
        if note:
            await self.query_one(ConversationView).add(Entry("notice-info", note))
        self.sub_title = f"{engine.model} · session {engine.session_id}"
        review.seed_from_log()
        await review.refresh()
        # ready only once the conversation and drafts are shown (the model may still be loading)
        status.info = status.info.with_(state="ready", loading=engine.status().model_loading)
        self.session_shown = True
        self.run_worker(self._join_model(engine), group="model", exit_on_error=False)

    async def _join_model(self, engine: EngineLike) -> None:
        """Wait for the engine's model layer, then send what was typed meanwhile; if it cannot
        load (a refused model, a window too small), say why as a failed start does."""
        try:
            await engine.model_ready()
        except Exception as exc:
            if self.engine is engine:
                self.engine = None
                await self._could_not_start(exc)
                with contextlib.suppress(Exception):
                    await engine.aclose()  # already closed by the failed start; idempotent
            return
        if self.engine is not engine:  # another session was opened meanwhile
            return
        self.model_joined = True
        bar = self.query_one(StatusBar)
        if bar.info.loading:  # the figures the model layer knows (window, threshold) join the bar
            info = StatusInfo.from_engine(engine.status(), bar.info.state)
            bar.info = info.with_(compactions=max(info.compactions, bar.info.compactions))  # the log's count stays
        self._send_queued()

    async def _could_not_start(self, exc: Exception) -> None:
        """Say in the conversation (once: the toast only points there) why it could not start."""
        self.start_failure = str(exc)
        self.query_one(StatusBar).info = StatusInfo(state="not started")
        advice = _("Could not start: {problem}").format(problem=exc)
        from formspec_consult.agent.engine.engine import ProviderError

        if isinstance(exc, ProviderError):
            advice += "\n\n" + _("No model at hand? `formspec-consult demo` runs an offline demo, no key needed.")
        await self.query_one(ConversationView).add(Entry("notice-error", advice))
        self.notify(_("The reason and what to do are in the conversation; ctrl+q quits."),
                    title=_("Could not start the consultation"), severity="error", timeout=15)

    async def ask_permission(self, request: PermissionRequest) -> Decision:
        """The approver of the engine: show the approval prompt (with the draft's diff) and wait."""
        import asyncio

        from formspec_consult.tui.screens.permission import PermissionScreen
        from formspec_consult.tui.widgets.diff_pane import draft_details

        path = request.arguments.get("file") or request.arguments.get("path")
        draft = next((d for d in self.diff_pane.drafts if d.path == path), None) if path else None
        if draft is None and path and self.review is not None:
            await self.review.refresh()
            draft = next((d for d in self.diff_pane.drafts if d.path == path), None)
        details = draft_details(draft, self.diff_pane.colours) if draft is not None else None
        answer: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()

        def decided(decision: Decision | None) -> None:
            if not answer.done():
                answer.set_result(decision or "deny")

        screen = PermissionScreen(request, details)
        self.push_screen(screen, decided)
        try:
            decision = await answer
        except asyncio.CancelledError:  # the turn was cancelled while asking: nothing runs
            if screen.is_current:
                screen.dismiss("deny")
            raise
        what = request.action
        said = {"allow_once": _("You allowed the consultant to {what} (this once).").format(what=what),
                "allow_session": _("You allowed the consultant to {what}; {tool} runs without asking "
                                   "for the rest of this session.").format(what=what, tool=request.name),
                }.get(decision) or _("You declined: the consultant may not {what}.").format(what=what)
        await self.query_one(ConversationView).add(Entry("notice-info", said))
        return decision

    def say(self, message: str, severity: str = "information") -> None:
        """A line in the conversation (apply, undo, reject, cancel), so it stays after the toast."""
        level = {"information": "info", "warning": "warning", "error": "error"}.get(severity, "info")
        self.run_worker(self.query_one(ConversationView).add(Entry(f"notice-{level}", message)),
                        group="say", exit_on_error=False)

    def refresh_status(self, state: str = "ready") -> None:
        """Pull the engine's status into the bar and the MCP state line."""
        if self.engine is None:
            return
        try:
            figures = self.engine.status()
        except Exception as exc:
            self.notify(_("Status unavailable: {exc}").format(exc=exc), severity="warning")
            return
        self.query_one(StatusBar).info = StatusInfo.from_engine(figures, state)
        self.tool_pane.mcp_state = figures

    async def switch_session(self, session_id: str, *, model: str | None = None) -> None:
        """Close the current engine and resume a session (another one, or this one with another
        `model`) in a fresh set of panes."""
        if self.turn_worker is not None and self.turn_worker.is_running:
            self.notify(_("Cancel the running turn (Esc) before switching sessions."), severity="warning")
            return
        await self._reopen(session_id, model)

    async def _reopen(self, session_id: str, model: str | None = None, *, note: str | None = None) -> None:
        """Close the engine, clear the panes and open `session_id` (see :meth:`switch_session`);
        `note` is said in the conversation once it is shown."""
        if self.engine is not None:
            engine, self.engine = self.engine, None
            try:
                await engine.aclose()
            except Exception as exc:
                self.notify(_("Closing the previous session failed: {exc}").format(exc=exc), severity="warning")
        await self.query_one(ConversationView).clear()
        await self.tool_pane.clear()
        self.query_one(ChoiceBar).options = ()
        self.diff_pane.drafts = ()
        self.open_engine(session_id, model, note=note)

    def keys_help(self) -> str:
        """The Keys table of /help, read from the bindings of the app, the screen, the prompt and
        the diffs pane (tui/key_list.py), so it lists what the keys really do."""
        from textual.screen import Screen

        from formspec_consult.tui.key_list import key_rows, keys_markdown
        from formspec_consult.tui.widgets.diff_pane import DiffPane

        every = [b for cls in reversed(type(self).__mro__) for b in cls.__dict__.get("BINDINGS", ())
                 if isinstance(b, Binding)]
        # a class's binding replaces its base's for the same key and action (ctrl+q: ours, not Textual's)
        own = [b for i, b in enumerate(every)
               if not any(later.key == b.key and later.action == b.action for later in every[i + 1:])]
        palette = Binding(self.COMMAND_PALETTE_BINDING, "command_palette", N_("Command palette"))
        send = Binding("enter", "submit", N_("Send (a lone letter answers an offered option)"))
        return keys_markdown(key_rows([
            (_("anywhere"), [*own, palette]),
            (_("at the prompt"), [send, *PromptInput.BINDINGS, *Screen.BINDINGS]),
            (_("diffs pane, after ctrl+r"), DiffPane.BINDINGS),
        ]))

    def action_help_quit(self) -> None:
        """ctrl+c does not quit (it copies in the input): say, in plain text, what does."""
        self.notify(_("Press ctrl+q to quit — the session stays on disk; formspec-consult --continue resumes it."),
                    title=_("Do you want to quit?"))

    async def action_quit(self) -> None:
        """Leave at once: say so in the status bar while the servers close."""
        self.query_one(StatusBar).info = self.query_one(StatusBar).info.with_(state="closing…")
        self.exit()

    def resume_hint(self) -> str | None:
        """What to type to come back to this session (printed after the app has closed)."""
        session = self._closed_session or (self._saved_session(self.engine) if self.engine is not None else None)
        if not session:
            return None
        return _("Session {session} is saved. Resume it with `formspec-consult --continue` "
                 "(or `--resume {session}`).").format(session=session)

    _closed_session: str | None = None

    def _saved_session(self, engine: EngineLike) -> str | None:
        """The engine's session id if it stays on disk when closed: not a new session whose model
        layer never loaded (nothing was logged; closing it removes its folder)."""
        if self.model_joined or (engine.session_dir / EVENTS).exists():
            return engine.session_id
        return None

    # The command line closes the engine after the terminal is handed back (see run_app), so
    # quitting is instant; an app run any other way (tests, the palette) closes it on unmount.
    close_engine_on_unmount: bool = True

    async def close_engine(self) -> None:
        """Close the servers and the session log (once)."""
        if self.engine is not None:
            engine, self.engine = self.engine, None
            self._closed_session = self._closed_session or self._saved_session(engine)
            try:
                await engine.aclose()
            except Exception:  # leaving anyway; the session is already on disk
                pass

    async def on_unmount(self) -> None:
        if self.engine is not None:
            self._closed_session = self._saved_session(self.engine)
        if self.close_engine_on_unmount:
            await self.close_engine()

    # -- turns --------------------------------------------------------------------------------

    def send(self, text: str) -> bool:
        """Start a turn with `text`; False (with a notification) when one cannot start now.

        Before the engine is ready, its session shown and its model layer joined, the text is
        queued (and said so), then sent once it is: after the earlier conversation, never in the
        middle of mounting it."""
        if self.engine is None or not self.session_shown or not self.model_joined:
            if self.start_failure is not None:
                self.notify(_("The consultation could not start — see the conversation for how to fix it."),
                            severity="error")
                return False
            self.queued.append(text)
            self.run_worker(self.query_one(ConversationView).add(
                Entry("notice-info", _("Queued until the consultant is connected: {text}").format(text=text))), exit_on_error=False)
            return True
        if self.turn_worker is not None and self.turn_worker.is_running:
            self.notify(_("A turn is running; wait for it or press Esc to cancel it."), severity="warning")
            return False
        self.turn_worker = self.run_worker(self._turn(text), group="turn", exclusive=True, exit_on_error=False)
        return True

    async def _turn(self, text: str) -> None:
        assert self.engine is not None
        finished = False
        presenter = self.presenter
        assert presenter is not None  # built before the engine that runs the turn
        changed: SessionChanged | None = None  # /fork, /rewind: the session moved under the panes
        if self.review is not None:
            self.review.expect(text)  # /apply, /reject, /undo sent as a turn: name what they settle
        try:
            # aclosing: a cancel (Esc) between two events closes the engine's generator at once,
            # so its cleanup repairs the history now, not whenever the generator is collected.
            async with aclosing(self.engine.run_turn(text)) as events:  # type: ignore[type-var]
                async for event in events:
                    await presenter.show(event)
                    finished = finished or event.kind == "turn_finished"
                    if event.kind == "session_changed":
                        changed = event  # type: ignore[assignment]
        except Exception as exc:
            await presenter.end_turn("error", _("The turn failed: {problem}").format(problem=exc))
            finished = True
        finally:
            if not finished:  # cancelled (Esc) before the engine said the turn ended
                await presenter.end_turn("cancelled")
            self.refresh_status()
        if changed is not None:  # the turn (this worker) has ended: nothing else runs in the panes
            await self._session_changed(changed)

    async def _session_changed(self, change: SessionChanged) -> None:
        """After `/fork` the app goes on in the fork; after `/rewind` it shows the conversation
        again as the log now rebuilds it (the turns after the rewind's point gone)."""
        if change.reason == "forked":
            source = self.engine.session_id if self.engine is not None else "?"
            await self._reopen(change.session_id, note=_(
                "You are now in the fork {fork} (a copy of {source} after its turn {turn}); {source} stays as it "
                "was: /sessions (or formspec-consult --resume {source}) opens it."
            ).format(fork=change.session_id, source=source, turn=change.turn))
            return
        engine, presenter = self.engine, self.presenter
        if engine is None or presenter is None:
            return
        await self.query_one(ConversationView).clear()
        await self.tool_pane.clear()
        await presenter.load(engine.past_events())
        self.query_one(ChoiceBar).options = engine.last_options
        self.refresh_drafts()

    def _send_queued(self) -> None:
        """Send what was typed while connecting: the first message now, any others joined to it."""
        if self.queued:
            text, self.queued = "\n\n".join(self.queued), []
            self.send(text)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded and self._type_ahead is not None:
            self._type_ahead.append(event)  # before the prompt exists: kept for it (see _open_type_ahead)
            return
        # A key pressed in the diffs pane is routed as it arrives, before Textual forwards it:
        # a review action, or typing for the prompt (see tui/review_keys.py).
        if isinstance(event, events.Key) and not event.is_forwarded and self._side_panes_ready() \
                and route_review_key(self, event, self.query_one(PromptInput), self.back_to_prompt):
            return
        await super().on_event(event)

    def back_to_prompt(self) -> None:
        """Show the prompt (on a small screen: the Chat tab) and focus it now, not after a refresh."""
        self.show_pane(CHAT.id)
        self.screen.set_focus(self.query_one(PromptInput))

    def turn_running(self) -> bool:
        return self.turn_worker is not None and self.turn_worker.is_running

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Esc's two actions are offered (and named in the footer) only where they act."""
        if action == "leave_pane":
            return self.screen.id == "_default" and self._away_from_prompt()
        if action == "cancel_turn":
            return self.turn_running() and not (self.screen.id == "_default" and self._away_from_prompt())
        return super().check_action(action, parameters)

    def _away_from_prompt(self) -> bool:
        """True when the focus is in a pane and Esc takes it back to the prompt (a replay's prompt
        is disabled: there is no prompt to go back to, and Esc cancels the playing turn)."""
        prompts = self.query(PromptInput)
        if not prompts or prompts.first().disabled:
            return False
        return self.focused is not None and self.focused is not prompts.first()

    def action_cancel_turn(self) -> None:
        if self.turn_running():
            assert self.turn_worker is not None
            self.turn_worker.cancel()

    def action_leave_pane(self) -> None:
        """Esc from a pane: back to the prompt."""
        self.show_pane(CHAT.id, focus=True)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A turn started or ended: the footer's Esc hint follows."""
        if event.worker is self.turn_worker:
            self.refresh_bindings()

    def action_review(self) -> None:
        """ctrl+r: show the diffs pane and put the focus on its draft list, armed (Esc comes back)."""
        self.show_pane(DIFFS.id, focus=True)

    def action_scroll_conversation(self, pages: int) -> None:
        """PageUp/PageDown at the prompt scroll the conversation."""
        view = self.query_one(ConversationView)
        view.scroll_page_up() if pages < 0 else view.scroll_page_down()

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        if is_command(text):
            if self.router.handle(text):
                event.input.clear()
            return
        if len(text) == 1 and self.query_one(ChoiceBar).pick(text):
            event.input.clear()
            return
        if self.send(text.removeprefix("/") if text.startswith("//") else text):
            event.input.clear()

    def action_pick(self, letter: str) -> None:
        if self.query_one(ChoiceBar).pick(letter):
            return
        if letter in WORD_MOVE_OF_LETTER and not self.query_one(ChoiceBar).options:
            self.simulate_key(WORD_MOVE_OF_LETTER[letter])  # ESC b / ESC f: the word move it was
        else:
            self.notify(_("No option {letter} is on offer.").format(letter=letter.upper()), severity="warning")

    def on_choice_bar_picked(self, event: ChoiceBar.Picked) -> None:
        if self.engine is not None:
            self.send(self.engine.resolve_choice(event.letter))

    def run_slash_from_palette(self, spec: SlashSpec) -> None:
        """Palette entry point: run argument-free commands, prefill the input for the others."""
        line = spec.palette_line
        if line is None:
            prompt = self.query_one(PromptInput)
            prompt.value = f"/{spec.name} "
            prompt.focus()
        else:
            self.router.handle(line)

    # -- review -------------------------------------------------------------------------------

    def refresh_drafts(self, changed: tuple[str, ...] = ()) -> None:
        """Reload the drafts in the background (after DraftsChanged, naming the `changed` paths)."""
        if self.engine is not None:
            # The work is handed over as a function, not a coroutine: a turn that proposes several
            # drafts asks for several refreshes at once, and each cancels the one before it (exclusive)
            # — a coroutine made for a worker cancelled before it ran would never be awaited.
            async def refresh() -> None:
                await self._refresh_drafts(changed)

            self.run_worker(refresh, group="drafts", exclusive=True, exit_on_error=False)  # type: ignore[arg-type]

    async def _refresh_drafts(self, changed: tuple[str, ...]) -> None:
        if self.review is None:
            return
        before = {d.path for d in self.diff_pane.drafts if not d.settled}
        live = await self.review.refresh(changed)
        self.mark_new_drafts(len({d.path for d in live} - before))  # the Diffs tab, on a small screen

    def on_diff_pane_action_requested(self, event: DiffPane.ActionRequested) -> None:
        if self.engine is None or self.review is None:
            self.notify(_("Not connected yet."), severity="warning")
            return
        if event.action == "edit" and event.path:  # the person's editor, the terminal handed over
            from formspec_consult.tui.review import run_editor_in

            self.run_worker(self.review.edit(event.path, lambda text, name: run_editor_in(self, text, name)),
                            group="review", exit_on_error=False)
            return
        if event.action == "changes":  # the latest turn's drafts as one set: accept or reject them together
            self.run_worker(self.review.changes(self), group="review", exit_on_error=False)
            return
        if event.action == "blocks" and event.path:  # partial review: keep some blocks, send back the rest
            self.run_worker(self.review.partial(event.path, self), group="review", exit_on_error=False)
            return
        if event.action == "reject" and event.path:  # say why first (optional); Esc keeps the draft
            from formspec_consult.tui.screens.reason import ReasonScreen

            path, review = event.path, self.review

            def said(reason: str | None) -> None:
                if reason is not None:
                    self.run_worker(review.reject_and_refresh(path, reason or None), group="review",
                                    exit_on_error=False)

            self.push_screen(ReasonScreen(path), said)
            return
        self.run_worker(self.review.run(event.action, event.path), group="review", exit_on_error=False)

    def on_tool_calls_pane_log_requested(self) -> None:
        self.router.handle("/mcp log")

    def on_tool_calls_pane_restart_requested(self) -> None:
        self.router.handle("/mcp restart")
