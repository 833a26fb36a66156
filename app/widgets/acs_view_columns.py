"""Which columns the contracts screen's view shows, and which payload fields it may sort by: the user's choice per
template (`ColumnChoices`), else what the template's package declares and what its contracts hold, sampled once
per snapshot read (a template's contracts read so far may be none)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from app.widgets.acs_columns import (
    ALL_TEMPLATES,
    DEFAULT_MIXED,
    ColumnChoices,
    available,
    build_columns,
    default_for_template,
)
from app.widgets.contract_table import Column

if TYPE_CHECKING:
    from app.packages import PackageCatalog
    from app.snapshot import Snapshot

SORT_TEMPLATES = 50  # templates whose payload fields the sort offers, at most (their samples are read for it)


class ViewColumns:
    def __init__(
        self,
        choices: ColumnChoices,
        snapshot: Callable[[], Snapshot | None],
        catalog: Callable[[], PackageCatalog | None],
    ) -> None:
        self.choices = choices
        self._snapshot = snapshot
        self._catalog = catalog
        self._samples: dict[str, list[Any]] = {}

    def forget_samples(self) -> None:
        """The cache holds other contracts now (or more of them): sample them again."""
        self._samples.clear()

    async def sample(self, template: str) -> list[Any]:
        """Payloads of `template`'s contracts in the cache, a few."""
        snapshot = self._snapshot()
        if template not in self._samples and snapshot is not None:
            self._samples[template] = await snapshot.views.sample_payloads(template)
        return self._samples.get(template, [])

    def declared_fields(self, template: str) -> list[str]:
        """The template's fields as its package declares them; none while the packages are not read."""
        catalog = self._catalog()
        signature = catalog.template_of(template) if catalog is not None else None
        return [f.name for f in signature.fields] if signature is not None else []

    async def columns(self, templates: Collection[str]) -> list[Column]:
        """The columns of a view of `templates` (empty: all)."""
        if len(templates) == 1:
            (template,) = templates
            sample = await self.sample(template)
            keys = self.choices.get(template) or default_for_template(sample, self.declared_fields(template))
            return build_columns(keys, sample, [template])
        keys = self.choices.get(ALL_TEMPLATES) or DEFAULT_MIXED
        snapshot = self._snapshot()
        in_view = templates or (await snapshot.views.template_ids() if snapshot is not None else [])
        return build_columns(keys, [], sorted(in_view))

    async def options(self, template: str) -> list[tuple[str, str]]:
        """(key, label) of every column a view of `template` can show (ALL_TEMPLATES: of several)."""
        if template == ALL_TEMPLATES:
            return available([])
        return available(await self.sample(template), self.declared_fields(template))

    async def payload_fields(self, templates: Collection[str]) -> list[str]:
        """The payload fields of `templates` (empty: those in the cache), to sort by: each template's declared
        fields (once its package is read) in their order, then any other its contracts hold."""
        snapshot = self._snapshot()
        if snapshot is None:
            return []
        fields: dict[str, None] = {}
        for template in sorted(templates or await snapshot.views.template_ids())[:SORT_TEMPLATES]:
            fields.update(dict.fromkeys(self.declared_fields(template)))
            for payload in await self.sample(template):
                if isinstance(payload, dict):
                    fields.update(dict.fromkeys(payload))
        return list(fields)
