"""The code the packages screen's `r` runs a script on, from the participant's archives (`participant_code`): the
script's package and the packages it needs, directly or not, fetched and decoded; the participant's other packages
(here richtypes' and the other splice DARs') neither fetched nor decoded."""

from __future__ import annotations

from pathlib import Path

from app.script_runs import participant_code
from participant.daml_lf.archive import read_dar
from participant.daml_lf.dependencies import reachable, referenced_packages
from tests.daml_lf.conftest import DARS_DIR, RICHTYPES

OTHER_DARS = ("splice/splice-wallet-0.1.14.dar", "splice/splice-util-0.1.4.dar", RICHTYPES)


def archives_of(*paths: Path) -> dict[str, bytes]:
    """Package id → archive (`ArchivePayload`), as a participant with these DARs serves them."""
    return {dalf.package_id: dalf.payload for path in paths for dalf in read_dar(path.read_bytes()).dalfs}


async def test_only_the_script_s_package_and_what_it_needs_are_fetched_and_decoded(splice_test_dar) -> None:
    script_dar = read_dar(splice_test_dar.read_bytes())
    main = script_dar.main.package_id
    archives = archives_of(*(DARS_DIR / other for other in OTHER_DARS), splice_test_dar)
    fetched: list[str] = []

    async def archive(package_id: str) -> bytes:
        fetched.append(package_id)
        return archives[package_id]

    code = await participant_code(main, list(archives), archive)

    own = {dalf.package_id: dalf for dalf in script_dar.dalfs}
    needed = set(reachable(main, lambda pid: referenced_packages(own[pid]) if pid in own else None))
    assert len(fetched) == len(set(fetched)), "each archive fetched once"
    assert set(fetched) == needed
    assert set(code.packages.packages) == needed
    assert code.packages.main_package_id == main
    for unrelated in ("splice/splice-wallet-0.1.14.dar", RICHTYPES):  # packages the script does not use
        assert read_dar((DARS_DIR / unrelated).read_bytes()).main.package_id not in fetched
    assert len(fetched) < len(archives)
