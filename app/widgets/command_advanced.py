"""The composer's advanced options, folded away until needed: userId, workflowId, deduplication, minimum ledger
time, synchronizer, package preference, submissionId and disclosed contracts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from textual.app import ComposeResult
from textual.widgets import Collapsible, Input, Select

from app.compose.commands import DEDUPLICATION, CommandForm
from app.widgets.form_row import field_row
from app.widgets.json_editor import JsonEditor
from app.widgets.keys import FieldInput
from app.widgets.option_lists import PagedSelect

DEDUPLICATION_LABELS = {
    "none": "participant default",
    "duration": "duration (seconds)",
    "offset": "since offset",
}
# the wire names of the fields here (a problem with one opens the section) and the form's attributes for them
FIELDS = {
    "userId",
    "workflowId",
    "deduplicationPeriod",
    "minLedgerTimeAbs",
    "minLedgerTimeRel",
    "synchronizerId",
    "packageIdSelectionPreference",
    "submissionId",
    "disclosedContracts",
}
ATTRIBUTES = (
    "user_id",
    "workflow_id",
    "deduplication",
    "deduplication_value",
    "min_ledger_time_abs",
    "min_ledger_time_rel",
    "disclosed_contracts",
    "synchronizer_id",
    "package_preference",
    "submission_id",
)


class AdvancedOptions(Collapsible):
    DEFAULT_CSS = """
    AdvancedOptions { padding: 0; border: none; margin-top: 1; }
    AdvancedOptions > Contents { padding: 0; }
    AdvancedOptions #dedup { width: 26; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(
            title="Advanced: userId, workflowId, deduplication, ledger time, synchronizer, …",
            collapsed=True,
            id=id,
        )
        self._synchronizers: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield self._title
        with self.Contents():
            yield field_row("userId", FieldInput(compact=True, id="user-id", placeholder="the token's user"))
            yield field_row("workflowId", FieldInput(compact=True, id="workflow-id"))
            yield field_row(
                "dedup",
                PagedSelect(
                    [(DEDUPLICATION_LABELS[d], d) for d in DEDUPLICATION],
                    allow_blank=False,
                    compact=True,
                    id="dedup",
                ),
                FieldInput(compact=True, id="dedup-value", placeholder="seconds, or an offset"),
            )
            yield field_row(
                "minLedgerAbs", FieldInput(compact=True, id="min-abs", placeholder="2030-01-01T00:00:00Z")
            )
            yield field_row("minLedgerRel", FieldInput(compact=True, id="min-rel", placeholder="seconds"))
            yield field_row(
                "synchronizer",
                PagedSelect([], prompt="the participant chooses", compact=True, id="synchronizer"),
            )
            yield field_row(
                "packages",
                FieldInput(
                    compact=True,
                    id="package-preference",
                    placeholder="packageIdSelectionPreference: package ids",
                ),
            )
            yield field_row(
                "submissionId",
                FieldInput(
                    compact=True, id="submission-id", placeholder="the participant makes one when empty"
                ),
            )
            yield JsonEditor("disclosedContracts", "disclosedContracts", empty=[], rows=4, id="disclosed")

    def _text(self, selector: str) -> str:
        return self.query_one(selector, Input).value

    def read(self, form: CommandForm) -> CommandForm:
        """`form` with the advanced fields as shown."""
        synchronizer = self.query_one("#synchronizer", Select).value
        return replace(
            form,
            user_id=self._text("#user-id"),
            workflow_id=self._text("#workflow-id"),
            deduplication=str(self.query_one("#dedup", Select).value),
            deduplication_value=self._text("#dedup-value"),
            min_ledger_time_abs=self._text("#min-abs"),
            min_ledger_time_rel=self._text("#min-rel"),
            disclosed_contracts=self.query_one("#disclosed", JsonEditor).text,
            synchronizer_id="" if synchronizer is Select.NULL else str(synchronizer),
            package_preference=self._text("#package-preference"),
            submission_id=self._text("#submission-id"),
        )

    def show(self, form: CommandForm) -> None:
        for selector, value in (
            ("#user-id", form.user_id),
            ("#workflow-id", form.workflow_id),
            ("#dedup-value", form.deduplication_value),
            ("#min-abs", form.min_ledger_time_abs),
            ("#min-rel", form.min_ledger_time_rel),
            ("#package-preference", form.package_preference),
            ("#submission-id", form.submission_id),
        ):
            self.query_one(selector, Input).value = value
        self.query_one("#dedup", Select).value = form.deduplication
        self.query_one("#disclosed", JsonEditor).set_text(form.disclosed_contracts)
        self._show_synchronizer(form.synchronizer_id)
        if uses_advanced(form):
            self.collapsed = False

    def set_synchronizers(self, options: Sequence[tuple[str, str]]) -> None:
        self._synchronizers = list(options)
        select = self.query_one("#synchronizer", Select)
        current = select.value
        select.set_options(self._synchronizers)
        if current is not Select.NULL and any(v == current for _, v in self._synchronizers):
            select.value = current

    def _show_synchronizer(self, synchronizer_id: str) -> None:
        select = self.query_one("#synchronizer", Select)
        if not synchronizer_id:
            select.clear()
            return
        if all(v != synchronizer_id for _, v in self._synchronizers):
            self._synchronizers.append((synchronizer_id, synchronizer_id))
            select.set_options(self._synchronizers)
        select.value = synchronizer_id


def uses_advanced(form: CommandForm) -> bool:
    default = CommandForm()
    return any(getattr(form, name) != getattr(default, name) for name in ATTRIBUTES)
