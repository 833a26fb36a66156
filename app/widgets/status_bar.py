"""The line at the top of every screen: which participant, its version, who we are, the ledger end, the offset in
view, and whether a request is in flight. The dot and the word after it say how the participant answers: green when
connected, "slow" (yellow) while a request waits long, "failing: <cause>" (red) after a 5xx or no answer, red alone
when not connected."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from app.cut import cut
from app.untrusted import visible

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TABS = (
    ("1", "contracts", "Contracts"),
    ("2", "compose", "Compose"),
    ("3", "requests", "Requests"),
    ("4", "reassign", "Reassign"),
    ("5", "packages", "Packages"),
    ("6", "transactions", "Transactions"),
    ("7", "parties", "Parties & users"),
)


class StatusBar(Widget):
    DEFAULT_CSS = """
    StatusBar {
        dock: top;
        height: 1;
        background: $panel;
        color: $text;
    }
    """

    participant: reactive[str] = reactive("")
    version: reactive[str] = reactive("")
    user: reactive[str] = reactive("")
    ledger_end: reactive[int | None] = reactive(None)
    viewed: reactive[int | None] = reactive(None)
    in_flight: reactive[int] = reactive(0)
    connection: reactive[str] = reactive("connecting")  # connecting, ok, down
    health: reactive[str] = reactive("ok")  # ok, slow, failing
    health_cause: reactive[str] = reactive("")
    readonly: reactive[bool] = reactive(False)
    stale: reactive[bool] = reactive(False)  # the rows are the last session's, until the participant answers
    frame: reactive[int] = reactive(0)

    def __init__(self, mode: str = "", crumb: str = "") -> None:
        super().__init__()
        self.mode = mode
        self.crumb = crumb

    def on_mount(self) -> None:
        app = self.app
        for name in (
            "participant",
            "version",
            "user",
            "ledger_end",
            "viewed",
            "in_flight",
            "connection",
            "health",
            "health_cause",
            "readonly",
            "stale",
        ):
            if hasattr(app, f"status_{name}"):
                self.watch(app, f"status_{name}", self._mirror(name))
        self._spin = self.set_interval(0.1, self._tick, pause=True)

    def _mirror(self, name: str):
        def mirror(value) -> None:
            setattr(self, name, value)

        return mirror

    def watch_in_flight(self, value: int) -> None:
        if hasattr(self, "_spin"):
            if value:
                self._spin.resume()
            else:
                self._spin.pause()

    def _tick(self) -> None:
        self.frame += 1

    def render(self) -> Text:
        """The fullest line that fits: on a narrow terminal the least needed parts go first (see `FITS`)."""
        width = self.size.width
        if not width:  # not laid out yet: nothing to fit to
            return self._line(FITS[0])
        for fit in FITS:
            line = self._line(fit)
            if line.cell_len <= width:
                return line
        # narrower than the least the line holds: its end is cut, and says so (`app.cut`'s rule, on styled text;
        # Textual would crop a rendered Text at the edge without a mark)
        line.truncate(width, overflow="ellipsis")
        return line

    def _line(self, fit: Fit) -> Text:
        # the participant's name and version, the user and a crumb quoting a request are not ours: written out
        t = Text(no_wrap=True, overflow="ellipsis")
        bar = "  │  " if fit.wide_bars else " │ "
        for key, mode, title in TABS:
            if mode == self.mode:
                t.append(f" {key} {title} " if fit.mode_title else f" {key} ", style="bold reverse")
            elif fit.tab_titles:
                t.append(f" {key} ", style="bold")
                t.append(f"{title} ", style="dim")
            else:
                t.append(f" {key}", style="bold")
        if not fit.tab_titles:
            t.append(" ")
        if self.crumb:
            # where the screen is (an offset, a request): kept longer than a failure's cause
            t.append(f"› {cut(visible(self.crumb), max(fit.crumb_width, CRUMB_LEAST))} ", style="bold")
        t.append(" ")
        if self.health == "failing":
            # the cause is on the failures screen too: the line cuts it, down to nothing, before the user
            cause = cut(visible(self.health_cause), fit.crumb_width) if fit.crumb_width else ""
            t.append(f"● failing: {cause}" if cause else "● failing", style="bold red")
        elif self.health == "slow":
            t.append("● slow", style="bold yellow")
        else:
            dot = {"ok": ("●", "green"), "down": ("●", "red")}.get(self.connection, ("○", "yellow"))
            t.append(dot[0], style=dot[1])
        if fit.participant_width:
            t.append(" ")
            t.append(cut(visible(self.participant), fit.participant_width) or "…", style="bold")
        if self.version and fit.version:
            t.append(f" · {visible(self.version)}", style="dim")
        t.append(f"{bar}user " if fit.labels else bar, style="dim")
        t.append(cut(visible(self.user), fit.user_width) or "…", style="bold")
        t.append(f"{bar}{'ledger end' if fit.labels else 'end'} ", style="dim")
        t.append("…" if self.ledger_end is None else str(self.ledger_end), style="bold")
        t.append(f"{bar}{'viewing' if fit.labels else 'view'} ", style="dim")
        if self.viewed is None:
            t.append("—")
        else:
            behind = self.ledger_end is not None and self.viewed < self.ledger_end
            t.append(str(self.viewed), style="bold yellow" if behind or self.stale else "bold")
            if self.stale:
                t.append(" cached, not current" if fit.labels else " cached", style="bold yellow")
        if self.readonly:
            t.append(bar, style="dim")
            t.append("read-only" if fit.labels else "ro", style="bold magenta")
        if self.in_flight:
            t.append(bar, style="dim")
            spinner = SPINNER[self.frame % len(SPINNER)]
            t.append(f"{spinner} {self.in_flight}" + (" in flight" if fit.labels else ""), style="cyan")
        return t


@dataclass(frozen=True)
class Fit:
    """What the status line shows at one width: each step of `FITS` gives up one more thing. A name given less room
    than it needs is cut with `…` (`app.cut`), down to the mark alone: what the line cut, it shows it cut. A
    crumb or participant width of 0 leaves the failure's cause or the participant out (the failures screen and the
    title say them)."""

    wide_bars: bool = True
    version: bool = True
    tab_titles: bool = True
    crumb_width: int = 1000  # a crumb or a failure's cause: in full while there is room
    labels: bool = True
    participant_width: int = 1000
    user_width: int = 1000
    mode_title: bool = True  # the current screen's name beside its key


# The ledger end, the offset in view, what is in flight and the current screen's key are given up last: they are
# what the line is for; the other screens' names (their keys stay), the version, the participant's name, a failure's
# cause (the failures screen has it whole) and the user are all a key or a screen away. The user is cut last of
# all, and not below USER_LEAST until nothing else is left to give: at 80 columns a failing line cuts its cause,
# not the name of who is acting.
USER_LEAST = 12
CRUMB_LEAST = 12
_NARROW = Fit(wide_bars=False, version=False, tab_titles=False)
_BARE = replace(_NARROW, labels=False)
FITS = (
    Fit(),
    Fit(wide_bars=False),
    Fit(wide_bars=False, version=False),
    _NARROW,
    replace(_NARROW, crumb_width=24),
    replace(_BARE, crumb_width=24),
    replace(_BARE, crumb_width=16, participant_width=32),
    replace(_BARE, crumb_width=12, participant_width=20),
    replace(_BARE, crumb_width=12, participant_width=12),
    replace(_BARE, crumb_width=12, participant_width=0),
    replace(_BARE, crumb_width=8, participant_width=0),
    replace(_BARE, crumb_width=5, participant_width=0),
    replace(_BARE, crumb_width=0, participant_width=0),
    replace(_BARE, crumb_width=0, participant_width=0, mode_title=False),
    replace(_BARE, crumb_width=0, participant_width=0, mode_title=False, user_width=24),
    replace(_BARE, crumb_width=0, participant_width=0, mode_title=False, user_width=USER_LEAST),
    replace(_BARE, crumb_width=0, participant_width=0, mode_title=False, user_width=1),
)
