"""The packages have one owner, the workspace: a reading asked for by any screen reaches every screen that shows
packages or templates, even one not shown at the moment."""

from __future__ import annotations

import httpx
import pytest

from app.screens.composer import ComposerScreen
from app.screens.packages import PackagesScreen
from app.tokens import MintedToken
from tests.daml_lf.conftest import DARS_DIR, RICHTYPES
from tests.tui.conftest import SECRET, wait_for
from tests.tui.test_composer import open_composer


async def upload_elsewhere(url: str, dar: bytes) -> None:
    """A DAR uploaded by another client of the participant (as a headless `upload` in a shell would)."""
    token = await MintedToken(SECRET, "participant_admin").token()
    async with httpx.AsyncClient(base_url=url) as http:
        answer = await http.post(
            "/v2/dars",
            content=dar,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"},
        )
    answer.raise_for_status()


async def test_a_dar_uploaded_meanwhile_reaches_the_composer_while_another_screen_is_shown(
    demo_writable, make_app
):
    path = DARS_DIR / RICHTYPES
    if not path.is_file():
        pytest.skip(f"the reference DARs are absent: {DARS_DIR}")
    app = make_app(demo_writable, "Alice")
    async with app.run_test() as pilot:
        composer = await open_composer(pilot, app)
        await wait_for(pilot, lambda: composer.packages is not None, "the composer's packages")
        assert not [t for t in composer.editor._package_templates() if t.startswith("#richtypes")]

        await upload_elsewhere(demo_writable.url, path.read_bytes())
        composer.set_focus(None)  # out of the form, where 5 is typed
        await pilot.press("5")  # the packages screen reads the list again, which now holds the DAR's packages
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, PackagesScreen)
                and app.screen.catalog is not None
                and any(p.name == "richtypes" for p in app.screen.catalog.packages.values())
            ),
            "the uploaded package on the packages screen",
        )

        # the composer, not shown, offers the new templates already: no restart, no coming back first
        assert not isinstance(app.screen, ComposerScreen)
        assert [t for t in composer.editor._package_templates() if t.startswith("#richtypes")]
