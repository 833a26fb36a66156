"""A typed form (`app.compose.form`) on screen: one line per row of its model (`app.compose.form_rows`), drawn by
one widget, and the widgets of one row only, the row with the focus (`RowEditor`), laid over its line.

The form's lines are drawn with Textual's line API: the screen asks only for the lines in view, so a value of a
thousand rows costs what the rows in view cost, and building it mounts one widget. The row with the focus is a
real row of inputs: Party completes from the known parties (a short name stands for the one party with it, and
what it stands for is shown); ContractId completes from the active contracts of its template (or takes a pasted
id, or the unique beginning of one the workspace's cache holds); Optional has a `some` toggle; a List and a map
add, move and remove their items; a variant chooses its constructor, then shows that constructor's rows; an enum
is a choice; Bool a checkbox. What is typed goes into the form's nodes as it is typed; a row's problem (once it has
text, or once the form is marked after a refused submit) and its note are lines under it.

Tab and shift+tab go from row to row through the model (`FormRows.step`), rows not in view included; the focus
coming to the form from before it lands in its first row, from after it in its last. While a row's widgets are
being made the keys typed wait (the app's key hold, `app.app.keys`), then go into its input in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from rich.segment import Segment
from rich.style import Style
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select

from app.compose.form import (
    BoolNode,
    EnumNode,
    ListNode,
    MapNode,
    OptionalNode,
    RawNode,
    TextNode,
    UnitNode,
    ValueForm,
    ValueProblem,
    VariantNode,
)
from app.compose.form_rows import FormRow, FormRows, placeholder
from app.compose.types import ContractIdT, Scalar
from app.cut import cells, fit, shorten
from app.daml import looks_like_contract_id, party_hint, short_party, template_name
from app.ids import Expansion, could_begin_contract_id, distinguishing_length
from app.untrusted import visible
from app.widgets.completing_input import CompletingInput
from app.widgets.key_hold import key_hold
from app.widgets.keys import FieldInput
from app.widgets.option_lists import PagedSelect
from app.widgets.untrusted_text import plain
from app.widgets.virtual_size import repaint_only

NAME_WIDTH = 16  # the names' column: a longer name is cut (`…`), the full path of the focused row is shown
HAND_ON_TRIES = 20  # refreshes a row's input may take to be mounted before the focus goes into it

ButtonSpec = tuple[str, str, str]  # label, action name, tooltip
ITEM_BUTTONS: tuple[ButtonSpec, ...] = (
    ("↑", "up", "move up"),
    ("↓", "down", "move down"),
    ("✕", "remove", "remove"),
)


def _buttons(*specs: ButtonSpec) -> tuple[Button, ...]:
    """Small buttons on a row (their style classes given up front: each class set after costs a style pass)."""
    return tuple(
        Button(label, name=action, tooltip=tip, compact=True, classes="tf-button -style-default")
        for label, action, tip in specs
    )


class Sources(Protocol):
    """Where completion comes from: the known parties, the active contracts of a template."""

    def parties(self) -> list[str]: ...

    def contract_ids(self, template: str) -> list[str]:
        """Ids of the active contracts of template `<package id>:Module:Entity` (as read so far)."""
        ...

    def contract_label(self, contract_id: str) -> str: ...

    def want_contracts(self, template: str) -> None:
        """Read the active contracts of `<package id>:Module:Entity` for completion (open lists refresh)."""
        ...

    async def expand_contract_id(self, typed: str) -> Expansion:
        """A beginning of a contract id expanded among the contracts the workspace's cache holds."""
        ...


def _party_label(party: str) -> Content:
    return Content.assemble(plain(party_hint(party), "bold"), plain(f"  {short_party(party)}", "dim"))


SHORT_ID = (
    10  # the characters of a contract id a pick list shows at least ("00" and eight hex digits, as tables do)
)


class TypedForm(Widget, can_focus=True):
    """The rows of one `ValueForm`, drawn line by line; the row with the focus made of widgets (`RowEditor`)."""

    DEFAULT_CSS = f"""
    TypedForm {{ height: auto; }}
    TypedForm > .typed-form--name {{ color: $text-muted; text-style: dim; }}
    TypedForm > .typed-form--invalid {{ color: $error; text-style: bold; }}
    TypedForm > .typed-form--placeholder {{ color: $text-muted; text-style: italic dim; }}
    TypedForm > .typed-form--type {{ color: $text-muted; text-style: dim; }}
    TypedForm > .typed-form--problem {{ color: $error; }}
    TypedForm > .typed-form--note {{ color: $text-muted; }}
    TypedForm > RowEditor {{ position: absolute; width: 100%; height: 1; background-tint: $foreground 4%; }}
    TypedForm .tf-name {{ width: {NAME_WIDTH}; color: $text-muted; }}
    TypedForm .tf-type {{ width: auto; color: $text-muted; margin-left: 1; text-style: dim; }}
    TypedForm > RowEditor.-invalid > .tf-name {{ color: $error; text-style: bold; }}
    TypedForm > RowEditor:focus-within > .tf-name {{ text-style: bold reverse; }}
    TypedForm Input {{ width: 1fr; }}
    TypedForm CompletingInput {{ width: 1fr; }}
    TypedForm Select {{ width: 1fr; }}
    TypedForm Button {{ min-width: 3; margin-left: 1; }}
    TypedForm Checkbox {{ width: auto; }}
    """

    COMPONENT_CLASSES = {
        "typed-form--name",
        "typed-form--invalid",
        "typed-form--placeholder",
        "typed-form--type",
        "typed-form--problem",
        "typed-form--note",
    }

    # the form never scrolls (its container does): a layout that changed its lines in number is the only one
    virtual_size = repaint_only()

    BINDINGS = [
        Binding("tab", "step(1)", "Next field", show=False),
        Binding("shift+tab", "step(-1)", "Previous field", show=False),
    ]

    @dataclass
    class Changed(Message):
        """The user changed the value (the preview follows)."""

        typed_form: TypedForm

        @property
        def control(self) -> TypedForm:
            return self.typed_form

    def __init__(
        self, form: ValueForm, sources: Sources, *, built_for: str = "", id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.form = form
        self.built_for = built_for  # what the form is of: a template, a choice (rebuilt when it changes)
        self.sources = sources
        self.touched = False  # changed by the user since it was built or loaded
        self.rows = FormRows(form)
        self.editor: RowEditor | None = None  # the widgets of the row with the focus
        # where the focus coming to the form lands, and in its last control or not (else its first row)
        self._entry: tuple[FormRow, bool] | None = None
        self._from_after = False  # the focus came to the form from a widget after it (shift+tab)
        self._drawing_styles: dict[str, Style] | None = None  # while lines are drawn (`render_lines`)

    @property
    def marking(self) -> bool:
        return self.rows.marking

    @property
    def current(self) -> FormRow | None:
        """The row with the focus (its widgets are mounted), if any."""
        return self.editor.row if self.editor is not None else None

    def on_mount(self) -> None:
        self.watch(self.screen, "focused", self._focus_moved, init=False)

    # --- drawing ------------------------------------------------------------------------------------------------

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.rows.lines)

    def render_lines(self, crop: Region) -> list[Strip]:
        # the styles worked out once for the lines drawn together: a widget's style is worked out through each of
        # its ancestors, and asked for per line it was most of the time a layout that changed the lines took
        self._drawing_styles = {}
        try:
            return super().render_lines(crop)
        finally:
            self._drawing_styles = None

    def _style(self, name: str = "") -> Style:
        """The widget's style (with a component's, `typed-form--<name>`)."""
        styles = self._drawing_styles
        if styles is not None and name in styles:
            return styles[name]
        style = self.rich_style
        if name:
            style += self.get_component_rich_style(f"typed-form--{name}")
        if styles is not None:
            styles[name] = style
        return style

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self._style()
        if not 0 <= y < len(self.rows.lines):
            return Strip.blank(width, base)
        row, kind = self.rows.lines[y]
        if kind == "row" and row is self.current:
            return Strip.blank(width, base)  # its widgets are drawn over it
        indent = 2 * row.depth
        room = max(0, width - indent)
        segments = [Segment(" " * indent, base)]
        if kind == "row":
            segments += self._row_segments(row, room)
        else:
            text = f"⚠ {row.problem}" if kind == "problem" else row.note
            segments += [
                Segment(" " * min(room, NAME_WIDTH), base),
                Segment(fit(visible(text), max(0, room - NAME_WIDTH)), self._style(kind)),
            ]
        return Strip(segments).adjust_cell_length(width, base)

    def _row_segments(self, row: FormRow, room: int) -> list[Segment]:
        """A closed row's line: its name, its value (or placeholder), its type."""
        kind = row.type_shown
        text, is_placeholder = row.summary()
        value_room = max(0, room - NAME_WIDTH - cells(kind) - 1)
        value_style = self._style("placeholder" if is_placeholder else "")
        return [
            Segment(
                fit(visible(row.name), NAME_WIDTH - 1) + " ",
                self._style("invalid" if row.problem else "name"),
            ),
            Segment(fit(visible(text), value_room), value_style),
            Segment(" " + kind if kind else "", self._style("type")),
        ]

    def _laid_out(self) -> None:
        """The lines changed: the form's height again, the open row's widgets at its line (closed if it is gone)."""
        self._place_editor()
        self.refresh(layout=True)

    def _place_editor(self) -> None:
        editor = self.editor
        if editor is not None:
            line = self.rows.line_of(editor.row)
            if line is None:
                self._close()
            else:
                editor.styles.offset = (0, line)
                editor.set_class(bool(editor.row.problem), "-invalid")

    def _said(self) -> list[tuple[str | None, str]]:
        """What the lines say besides the values: each row's problem and note."""
        return [(row.problem, row.note) for row in self.rows.rows]

    def _redrawn(self, lines_before: int, said_before: list[tuple[str | None, str]]) -> None:
        """After problems or notes were reckoned again: a layout (of the form and the screen around it) only when
        the form's lines changed in number; else a repaint of the form, when what its lines say changed."""
        if len(self.rows.lines) != lines_before:
            self._laid_out()
        elif self._said() != said_before:
            self._place_editor()
            self.refresh()

    # --- the value ----------------------------------------------------------------------------------------------

    def changed(self, row: FormRow | None = None) -> None:
        """The user changed `row`'s value: its problem and note again, and the preview follows.

        A key typed repaints the row's own lines (its problem and note; its value is drawn by its input), and
        lays the form out only when a problem or a note comes or goes: a layout costs the whole screen's."""
        if row is not None:
            lines_before = len(self.rows.lines)
            self.rows.refresh(row)
            if len(self.rows.lines) != lines_before:
                self._laid_out()
            else:
                self._redraw_row(row)
        self.touched = True
        self.post_message(self.Changed(self))

    def _redraw_row(self, row: FormRow) -> None:
        line = self.rows.line_of(row)
        if line is None:
            return
        if self.editor is not None and self.editor.row is row:
            self.editor.set_class(bool(row.problem), "-invalid")
        height = 1 + bool(row.problem) + bool(row.note)
        self.refresh(Region(0, line, self.size.width, height))

    def reshape(self, row: FormRow, focus: int | None = None) -> None:
        """The rows under `row` again (an item added, moved or removed, an Optional toggled, a constructor chosen);
        with `focus`, the focus goes to the row under it at that index."""
        self.rows.reshape(row)
        target = row.under[focus] if focus is not None and 0 <= focus < len(row.under) else None
        landing = self.rows.landing(target) if target is not None else None
        if focus is not None and target is None:
            landing = self.rows.landing(row)  # its last item removed: back to the list's own row
        if landing is not None:
            self.open_row(landing)
        self._laid_out()
        self.changed(row)

    def item_action(self, item: FormRow, action: str) -> None:
        """An item's button: moved up or down, or removed; the focus stays with it (or goes to its neighbour)."""
        owner = item.parent
        if owner is None or not isinstance(owner.node, ListNode | MapNode):
            return
        index = owner.under.index(item)
        if action == "remove":
            owner.node.remove(index)
            self.reshape(owner, focus=min(index, len(owner.under) - 2))
        elif action in ("up", "down"):
            self.reshape(owner, focus=owner.node.move(index, -1 if action == "up" else 1))

    def add_item(self, owner: FormRow) -> None:
        node = owner.node
        if isinstance(node, ListNode | MapNode):
            node.add()
            self.reshape(owner, focus=len(owner.under))

    async def expand_contract(self, row: FormRow, text: str) -> None:
        """Look the beginning of a contract id typed up in the cache; the row's note and problem follow."""
        found = await self.sources.expand_contract_id(text)
        node = row.node
        assert isinstance(node, TextNode)
        context = node.context
        if found.problem:
            context.contract_problems[text] = found.problem
        elif looks_like_contract_id(found.value):
            context.contracts[text] = found.value
        if node.text.strip() == text and self.is_attached:
            self.changed(row)

    async def reload(self) -> None:
        """Show the form's node anew (after it was loaded from JSON)."""
        self._close()
        self.rows.build()
        self._laid_out()

    def mark(self, problems: list[ValueProblem]) -> None:
        """Show `problems` at their rows (and every later problem as it is typed)."""
        lines_before, said_before = len(self.rows.lines), self._said()
        self.rows.mark(problems)
        self._redrawn(lines_before, said_before)

    def unmark(self) -> None:
        lines_before, said_before = len(self.rows.lines), self._said()
        self.rows.unmark()
        self._redrawn(lines_before, said_before)

    # --- the focus ----------------------------------------------------------------------------------------------

    def first_control(self) -> Widget | None:
        """What to focus for the form's first input (None: it has none, as a choice without arguments)."""
        first = self.rows.first_stop()
        if first is None:
            return None
        self._entry = (first, False)
        return self

    def focus_path(self, path: str) -> bool:
        """Open the row of `path` (the first under it with an input, for a record) with the focus in it."""
        row = self.rows.find(path)
        landing = self.rows.landing(row) if row is not None else None
        if landing is not None:
            self.open_row(landing)
        return row is not None

    def open_row(self, row: FormRow, last: bool = False) -> None:
        """Make `row`'s widgets, over its line, and hand the focus on into its input (its last control: `last`).
        Meanwhile the form holds the focus, and the keys typed wait for the input."""
        editor = self.editor
        if editor is not None and editor.row is row:
            controls = editor.controls()
            if controls and all(c.is_mounted for c in controls):
                self.screen.set_focus(controls[-1] if last else controls[0], scroll_visible=False)
                self.call_after_refresh(self._show, editor)
            return
        if self.screen.focused is not self:
            self._entry = (row, last)
            self.screen.set_focus(self, scroll_visible=False)  # `on_focus` lands in `row`
            return
        self._close()
        line = self.rows.line_of(row)
        if line is None:
            return
        editor = RowEditor(row, self)
        editor.styles.offset = (0, line)
        self.editor = editor
        key_hold(self).hold(
            editor
        )  # released once its input has the focus, or the row is given up (`_hand_on`)
        self.mount(editor)
        self.refresh()
        self.call_after_refresh(self._hand_on, editor, last, HAND_ON_TRIES)

    def _hand_on(self, editor: RowEditor, last: bool, tries: int) -> None:
        hold = key_hold(self)
        if editor is not self.editor or not editor.is_attached:
            hold.release(editor)  # closed meanwhile
            return
        if self.screen.focused is not self and not editor.has_focus_within:
            hold.release(editor)  # the focus went elsewhere meanwhile
            return
        controls = editor.controls()
        if not controls or not all(c.is_mounted for c in controls):
            if tries > 0:
                self.call_after_refresh(self._hand_on, editor, last, tries - 1)
            else:
                hold.release(editor)
            return
        target = controls[-1] if last else controls[0]
        self.screen.set_focus(target, scroll_visible=False)
        # once laid out over its line (its region is not known before): scrolled into view
        self.call_after_refresh(self._show, editor)
        hold.release(editor)  # the keys typed meanwhile go on, into `target`

    def _show(self, editor: RowEditor) -> None:
        """Scroll the open row's lines into view, in the nearest container that scrolls (the editor's own region,
        laid over the line, is not one Textual's `scroll_visible` follows through the form)."""
        line = self.rows.line_of(editor.row)
        if editor is not self.editor or line is None or not self.is_attached:
            return
        scroller = next(
            (a for a in self.ancestors if isinstance(a, Widget) and a.allow_vertical_scroll), None
        )
        if scroller is not None:
            top = self.region.y - scroller.content_region.y + round(scroller.scroll_y) + line
            row = editor.row
            height = 1 + bool(row.problem) + bool(row.note)  # its problem and note in view with it
            scroller.scroll_to_region(Region(0, top, 1, height), animate=False, immediate=True)

    def _close(self) -> None:
        editor, self.editor = self.editor, None
        if editor is not None:
            key_hold(self).release(editor)
            editor.remove()
            self.refresh()

    def on_focus(self) -> None:
        # the form itself has the focus: from before or after it (tab, shift+tab), or sent to a row (`open_row`)
        entry, self._entry = self._entry, None
        if entry is not None and self.rows.holds(entry[0]):
            self.open_row(*entry)
            return
        row = self.rows.step(None, -1 if self._from_after else 1)
        if row is not None:
            self.open_row(row, last=self._from_after)

    def _focus_moved(self, old: Widget | None, new: Widget | None) -> None:
        if new is self:
            self._from_after = old is not None and not self._holds(old) and self._is_after(old)
        elif self.editor is not None and (new is None or not self._holds(new)):
            self.call_later(self._close_if_left)

    def _close_if_left(self) -> None:
        focused = self.screen.focused
        if focused is None or not self._holds(focused):
            self._close()

    def _holds(self, widget: Widget) -> bool:
        return widget is self or self in widget.ancestors

    def _is_after(self, widget: Widget) -> bool:
        chain = self.screen.focus_chain
        return widget in chain and self in chain and chain.index(widget) > chain.index(self)

    def action_step(self, direction: int) -> None:
        """Tab (1), shift+tab (-1): the next control of the open row, else the next row, else out of the form."""
        editor = self.editor
        focused = self.screen.focused
        if editor is not None and focused is not None:
            controls = editor.controls()
            at = next((i for i, c in enumerate(controls) if c is focused or c in focused.ancestors), None)
            if at is not None and 0 <= at + direction < len(controls):
                controls[at + direction].focus()
                return
        row = self.rows.step(self.current, direction)
        if row is not None:
            self.open_row(row, last=direction < 0)
            return
        chain = self.screen.focus_chain
        outside = [w for w in chain if not self._holds(w)]
        if not outside or self not in chain:
            return
        here = chain.index(self)
        after = [w for w in outside if chain.index(w) > here]
        before = [w for w in outside if chain.index(w) < here]
        target = (after or outside)[0] if direction > 0 else (before or outside)[-1]
        target.focus()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not 0 <= offset.y < len(self.rows.lines):
            return
        row = self.rows.lines[offset.y][0]
        landing = self.rows.landing(row)
        if landing is not None:
            event.stop()
            self.open_row(landing)


class RowEditor(Horizontal):
    """The widgets of the row with the focus: its name, its input (by its type), its type, an item's buttons."""

    def __init__(self, row: FormRow, form: TypedForm) -> None:
        super().__init__(classes="tf-row -invalid" if row.problem else "tf-row")
        self.row = row
        self.form = form
        self._id_length: tuple[tuple[int, str, str] | None, int] | None = None
        """How many characters of a contract id its pick list shows, for the ids it was counted on."""
        if row.depth:
            self.styles.padding = (0, 0, 0, 2 * row.depth)

    def compose(self) -> ComposeResult:
        row = self.row
        yield Label(plain(fit(row.name, NAME_WIDTH - 1)), classes="tf-name")
        control = self._control()
        if control is not None:
            yield control
        if row.type_shown:
            yield Label(plain(row.type_shown), classes="tf-type")
        if row.is_item:
            yield from _buttons(*ITEM_BUTTONS)

    def controls(self) -> list[Widget]:
        """The row's widgets that take the focus, in tab's order (a completing input's own field)."""
        found: list[Widget] = []
        for child in self.children:
            if isinstance(child, CompletingInput):
                found.append(child.input)
            elif child.can_focus:
                found.append(child)
        return found

    def _control(self) -> Widget | None:
        node, row = self.row.node, self.row
        if row.is_entry:
            return None
        if isinstance(node, TextNode):
            return self._text_input(node)
        if isinstance(node, RawNode):
            return FieldInput(
                node.text,
                placeholder=f"JSON: {node.type.why}",
                compact=True,
                free_text=True,
                select_on_focus=False,
            )
        if isinstance(node, BoolNode):
            return Checkbox("true" if node.value else "false", node.value, compact=True)
        if isinstance(node, OptionalNode):
            return Checkbox("some" if node.present else "none", node.present, compact=True)
        if isinstance(node, EnumNode):
            options = [(name, name) for name in node.type.constructors]
            return PagedSelect(options, value=node.constructor, allow_blank=False, compact=True)
        if isinstance(node, VariantNode):
            options = [(name, name) for name, _ in node.type.constructors]
            return PagedSelect(options, value=node.constructor, allow_blank=False, compact=True)
        if isinstance(node, ListNode | MapNode):
            return _buttons(("+ add", "add", "add an item"))[0]
        if isinstance(node, UnitNode):
            return Label("()")
        return None

    def _text_input(self, node: TextNode) -> Widget:
        t = node.type
        sources = self.form.sources
        if isinstance(t, Scalar) and t.kind == "PARTY":
            return CompletingInput(
                sources.parties,
                label=_party_label,
                placeholder=placeholder(node),
                value=node.text,
                select_on_focus=False,
            )
        if isinstance(t, ContractIdT) and t.template is not None:
            template = str(t.template)
            sources.want_contracts(template)
            return CompletingInput(
                lambda: sources.contract_ids(template),
                label=lambda contract_id: self._contract_label(contract_id, template),
                placeholder=placeholder(node),
                value=node.text,
                select_on_focus=False,
            )
        return FieldInput(
            node.text,
            placeholder=placeholder(node),
            compact=True,
            free_text=isinstance(t, Scalar) and t.kind == "TEXT",
            select_on_focus=False,  # typing into a filled field goes on from its end, as in an editor
        )

    def _contract_label(self, contract_id: str, template: str) -> Content:
        """A contract to pick: its id to the prefix that tells it from the others, its template, its first values
        (the list cuts what its width leaves no room for from the end)."""
        sources = self.form.sources
        ids = sources.contract_ids(template)
        # sorting every id for each label would cost a list of thousands (Canton Coin's amulets) a stall: the
        # length is kept while the ids look the same
        seen = (len(ids), ids[0], ids[-1]) if ids else None
        if self._id_length is None or self._id_length[0] != seen:
            self._id_length = (seen, distinguishing_length(ids, SHORT_ID))
        shown = sources.contract_label(contract_id)
        return Content.assemble(
            plain(shorten(contract_id, self._id_length[1]), "bold"),
            plain(f"  {template_name(template)}", "dim"),
            plain(f"  {shown}" if shown else "", "dim"),
        )

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        node = self.row.node
        if not isinstance(node, TextNode | RawNode) or node.text == event.value:
            return  # the input shows what the node holds (as it is made): nothing typed
        node.text = event.value
        self.form.changed(self.row)
        text = event.value.strip()
        if (
            isinstance(node, TextNode)
            and isinstance(node.type, ContractIdT)
            and could_begin_contract_id(text)
            and not looks_like_contract_id(text)
        ):
            self.form.run_worker(
                self.form.expand_contract(self.row, text),
                group=f"expand-{id(self.row)}",
                exclusive=True,
                exit_on_error=False,
            )

    @on(Checkbox.Changed)
    def _toggled(self, event: Checkbox.Changed) -> None:
        event.stop()
        node = self.row.node
        if isinstance(node, BoolNode):
            node.value = event.value
            event.checkbox.label = "true" if event.value else "false"
            self.form.changed(self.row)
        elif isinstance(node, OptionalNode) and node.present != event.value:
            node.present = event.value
            event.checkbox.label = "some" if event.value else "none"
            self.form.reshape(self.row)

    @on(Select.Changed)
    def _chosen(self, event: Select.Changed) -> None:
        event.stop()
        node = self.row.node
        chosen = str(event.value)
        if isinstance(node, EnumNode) and chosen != node.constructor:
            node.constructor = chosen
            self.form.changed(self.row)
        elif isinstance(node, VariantNode) and chosen != node.constructor:
            node.constructor = chosen
            self.form.reshape(self.row, focus=0)  # on to the constructor's first field (none: stays here)

    @on(Button.Pressed, ".tf-button")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        action = str(event.button.name)
        if action == "add":
            self.form.add_item(self.row)
        else:
            self.form.item_action(self.row, action)
