"""The line at the top of every screen: which participant, its version, who we are, the ledger end, the offset in
view, and whether a request is in flight. The dot and the word after it say how the participant answers: green when
connected, "slow" (yellow) while a request waits long, "failing: <cause>" (red) after a 5xx or no answer, red alone
when not connected."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from app.untrusted import visible

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TABS = (
    ("1", "contracts", "Contracts"),
    ("2", "compose", "Compose"),
    ("3", "requests", "Requests"),
    ("4", "reassign", "Reassign"),
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
        # the participant's name and version, the user and a crumb quoting a request are not ours: written out
        t = Text(no_wrap=True, overflow="ellipsis")
        for key, mode, title in TABS:
            if mode == self.mode:
                t.append(f" {key} {title} ", style="bold reverse")
            else:
                t.append(f" {key} ", style="bold")
                t.append(f"{title} ", style="dim")
        if self.crumb:
            t.append(f"› {visible(self.crumb)} ", style="bold")
        t.append(" ")
        if self.health == "failing":
            t.append(f"● failing: {visible(self.health_cause)} ", style="bold red")
        elif self.health == "slow":
            t.append("● slow ", style="bold yellow")
        else:
            dot = {"ok": ("●", "green"), "down": ("●", "red")}.get(self.connection, ("○", "yellow"))
            t.append(dot[0] + " ", style=dot[1])
        t.append(visible(self.participant) or "…", style="bold")
        if self.version:
            t.append(f" · {visible(self.version)}", style="dim")
        t.append("  │  user ", style="dim")
        t.append(visible(self.user) or "…", style="bold")
        t.append("  │  ledger end ", style="dim")
        t.append("…" if self.ledger_end is None else str(self.ledger_end), style="bold")
        t.append("  │  viewing ", style="dim")
        if self.viewed is None:
            t.append("—")
        else:
            behind = self.ledger_end is not None and self.viewed < self.ledger_end
            t.append(str(self.viewed), style="bold yellow" if behind else "bold")
        if self.readonly:
            t.append("  │  ", style="dim")
            t.append("read-only", style="bold magenta")
        if self.in_flight:
            t.append("  │  ", style="dim")
            t.append(f"{SPINNER[self.frame % len(SPINNER)]} {self.in_flight} in flight", style="cyan")
        return t
