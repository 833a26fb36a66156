"""The composer's template list at 80 columns, with the splice-amulet DAR read: one line per match, a match too
long for the list cut from the left of its module path with `…` (the package and the entity stay, as in the
contracts table's template column), and the highlighted match, when cut, whole on a line of its own (the list
wrapped a long template id over two lines, read as two matches)."""

from __future__ import annotations

from textual.widgets import OptionList

from app.widgets.command_form import cut_template_ref
from app.widgets.completing_input import CompletingInput
from tests.client.test_packages import loaded  # noqa: F401  (the participant with richtypes and splice-amulet)
from tests.daml_lf.conftest import dars_dir  # noqa: F401  (pytest fixtures, used by name)
from tests.tui.conftest import screen_text, wait_for
from tests.tui.test_typed_form import open_composer

LONG = "#splice-amulet:Splice.AmuletTransferInstruction:AmuletTransferInstruction"


async def test_one_line_per_template_cut_at_its_module_path(loaded, make_app):  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_composer(pilot, app)
        template = screen.query_one("#template", CompletingInput)
        template.focus()
        await pilot.press(*"Transfer")
        options = template.query_one(OptionList)
        await wait_for(pilot, lambda: template.is_open and LONG in template.matches(), "the templates listed")
        await pilot.pause()
        listed = options.region
        lines = screen_text(app).splitlines()[listed.y + 1 : listed.bottom - 1]
        shown = [line[listed.x + 2 : listed.right - 1] for line in lines]  # inside the border and the padding
        # every match visible in the list on a line of its own: as many lines as matches shown, none a wrap
        assert len(shown) == min(len(template.matches()), listed.height - 2), shown
        for line in shown:
            assert line.startswith("#"), shown  # no line continues the one before
        cut_line = next(line for line in shown if "AmuletTransferInstruction" in line)
        assert "#splice-amulet:…" in cut_line and cut_line.rstrip(" ▁▂▃▄▅▆▇█").endswith(
            ":AmuletTransferInstruction"
        ), cut_line
        assert LONG not in screen_text(app)  # not highlighted yet: cut only
        while template.matches()[options.highlighted or 0] != LONG:
            await pilot.press("down")
        await pilot.pause()
        assert LONG in screen_text(app)  # the highlighted match, whole
        await pilot.press("escape")
        await pilot.pause()
        assert LONG not in screen_text(app) and template.value == "Transfer"


def test_a_template_id_is_cut_from_the_left_of_its_module_path() -> None:
    ref = "#splice-amulet:Splice.Round:OpenMiningRound"
    assert cut_template_ref(ref, 60) == ref
    assert cut_template_ref(ref, 38) == "#splice-amulet:….Round:OpenMiningRound"
    assert cut_template_ref(ref, 31) == "#splice-amulet:…OpenMiningRound"
    assert cut_template_ref(ref, 20) == "…und:OpenMiningRound"  # no room for the package: the entity stays
