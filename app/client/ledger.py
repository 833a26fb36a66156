"""`LedgerClient`: one method per JSON Ledger API endpoint the terminal client uses, wire models in and out.

Usable without the UI::

    async with LedgerClient("http://127.0.0.1:7575", FileToken(Path("token.jwt"))) as ledger:
        print(await ledger.ledger_end())

Answers are read with the `participant.api` models through `WireModel.read` (lenient, as a Canton client must be);
requests are built with the same models, every field written out. The client learns the participant's version and
which 3.5-only endpoints it serves, and falls back where one is missing (docs/ledger-api.md §0).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import orjson
import pydantic

from app.client import errors
from app.client.http import Http, Retry, Timeouts, TokenSource
from app.client.requests_log import RequestLog
from participant.api import (
    CompletionStreamRequest,
    CompletionStreamResponse,
    ConnectedSynchronizer,
    CreatedEvent,
    CumulativeFilter,
    EventFormat,
    Filters,
    GetActiveContractsRequest,
    GetConnectedSynchronizersResponse,
    GetContractRequest,
    GetContractResponse,
    GetEventsByContractIdRequest,
    GetLatestPrunedOffsetsResponse,
    GetLedgerEndResponse,
    GetPackageStatusResponse,
    GetParticipantIdResponse,
    GetPreferredPackageVersionResponse,
    GetUpdateByIdRequest,
    GetUpdateByOffsetRequest,
    GetUpdatesRequest,
    GetUserResponse,
    IdentifierFilter,
    JsCommands,
    JsGetActiveContractsResponse,
    JsGetEventsByContractIdResponse,
    JsGetUpdateResponse,
    JsGetUpdatesResponse,
    JsSubmitAndWaitForTransactionRequest,
    JsSubmitAndWaitForTransactionResponse,
    JsTransaction,
    ListKnownPartiesResponse,
    ListPackagesResponse,
    ListUserRightsResponse,
    ListUsersResponse,
    PackageReference,
    PackageStatus,
    PartyDetails,
    ReassignmentCommands,
    Right,
    SubmitReassignmentRequest,
    TransactionFormat,
    TransactionShape,
    Update,
    UpdateFormat,
    User,
    WireModel,
)

M = TypeVar("M", bound=WireModel)
T = TypeVar("T")

ACS_DELTA: TransactionShape = "TRANSACTION_SHAPE_ACS_DELTA"
RECOVERY_WINDOW = 1_000  # offsets searched back for the completion of a submission whose answer was lost
LEDGER_EFFECTS: TransactionShape = "TRANSACTION_SHAPE_LEDGER_EFFECTS"


@dataclass
class Capabilities:
    """What this participant serves. None: not known yet (the first call finds out)."""

    version: str = ""
    contract_by_id: bool | None = None
    acs_page: bool | None = None
    updates_page: bool | None = None
    update_by_offset: bool | None = None

    @property
    def release(self) -> tuple[int, int] | None:
        m = re.match(r"(\d+)\.(\d+)", self.version)
        return (int(m.group(1)), int(m.group(2))) if m else None

    def learn_version(self, version: str) -> None:
        self.version = version
        release = self.release
        if release is None:
            return
        newer = release >= (3, 5)
        # 3.4 lacks the page endpoints; some 3.4 patch releases have contract-by-id, so that one is tried.
        if self.acs_page is None:
            self.acs_page = newer
        if self.updates_page is None:
            self.updates_page = newer
        if self.contract_by_id is None and newer:
            self.contract_by_id = True


def event_format(
    parties: Sequence[str] | None,
    *,
    templates: Sequence[str] = (),
    verbose: bool = True,
    blob: bool = False,
    views: Sequence[str] = (),
) -> EventFormat:
    """Filters for `parties` (None: every party, which needs CanReadAsAnyParty), all templates or the given ones
    (in the `#package-name:Module:Entity` form, which 3.5 requires in filters), and with `views` the view of each
    of these interfaces on the contracts whose template implements it (a created event's `interfaceViews`)."""
    if templates:
        cumulative = [
            CumulativeFilter(identifier_filter=IdentifierFilter.template(t, blob)) for t in templates
        ]
    else:
        cumulative = [CumulativeFilter(identifier_filter=IdentifierFilter.wildcard(blob))]
    cumulative += [
        CumulativeFilter(
            identifier_filter=IdentifierFilter.interface(
                i, include_interface_view=True, include_created_event_blob=blob
            )
        )
        for i in views
    ]
    filters = Filters(cumulative=cumulative)
    if parties is None:
        return EventFormat(filters_by_party={}, filters_for_any_party=filters, verbose=verbose)
    return EventFormat(filters_by_party={p: filters for p in parties}, verbose=verbose)


def update_format(
    fmt: EventFormat, shape: TransactionShape = ACS_DELTA, *, reassignments: bool = False
) -> UpdateFormat:
    """Transactions in `shape` for the parties of `fmt`, and with `reassignments` their reassignments too."""
    return UpdateFormat(
        include_transactions=TransactionFormat(event_format=fmt, transaction_shape=shape),
        include_reassignments=fmt if reassignments else None,
    )


class LedgerClient:
    """A participant's JSON Ledger API v2 over one pooled HTTP client."""

    def __init__(
        self,
        base_url: str,
        tokens: TokenSource | None = None,
        *,
        log: RequestLog | None = None,
        timeouts: Timeouts = Timeouts(),
        retry: Retry = Retry(),
        transport: httpx.AsyncBaseTransport | None = None,
        owns_transport: bool = True,
    ) -> None:
        self.http = Http(
            base_url,
            tokens,
            log=log,
            timeouts=timeouts,
            retry=retry,
            transport=transport,
            owns_transport=owns_transport,
        )
        self.capabilities = Capabilities()

    @property
    def base_url(self) -> str:
        return self.http.base_url

    @property
    def log(self) -> RequestLog:
        return self.http.log

    @property
    def tokens(self) -> TokenSource | None:
        return self.http.tokens

    def with_tokens(self, tokens: TokenSource | None) -> LedgerClient:
        """Another client of the same participant, acting with `tokens`: same transport, timeouts, retries and
        request log (close it when done)."""
        http = self.http
        return LedgerClient(
            http.base_url,
            tokens,
            log=http.log,
            timeouts=http.timeouts,
            retry=http.retry,
            transport=http.transport,
            owns_transport=False,
        )

    def use_tokens(self, tokens: TokenSource | None) -> None:
        """Act as someone else from now on (the bundled participant's user picker)."""
        self.http.tokens = tokens

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> LedgerClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    # --- plumbing -----------------------------------------------------------------------------------------------

    async def _call(
        self,
        model: type[M],
        method: str,
        path: str,
        body: Any = None,
        *,
        params: dict | None = None,
        retry: bool = True,
    ) -> M:
        content = await self.http.request(method, path, body, params=params, retry=retry)
        return read(model, content, method, path)

    async def _call_list(
        self, model: type[M], method: str, path: str, body: Any = None, *, params: dict | None = None
    ) -> list[M]:
        content = await self.http.request(method, path, body, params=params)
        items = parse_json(content, method, path)
        if not isinstance(items, list):
            raise errors.UnreadableAnswer(
                f"{method} {path} answered {type(items).__name__}, not a list", method=method, path=path
            )
        return [read(model, item, method, path) for item in items]

    # --- version, identity, rights ------------------------------------------------------------------------------

    async def version(self) -> str:
        """The participant's API version (e.g. "3.5.4"); also what it serves, for the fallbacks."""
        content = await self.http.request("GET", "/v2/version")
        data = parse_json(content, "GET", "/v2/version")
        version = data.get("version") if isinstance(data, dict) else None
        if not isinstance(version, str):
            raise errors.UnreadableAnswer(
                "GET /v2/version answered no version", method="GET", path="/v2/version"
            )
        self.capabilities.learn_version(version)
        return version

    async def participant_id(self) -> str:
        return (
            await self._call(GetParticipantIdResponse, "GET", "/v2/parties/participant-id")
        ).participant_id

    async def authenticated_user(self) -> User:
        return (await self._call(GetUserResponse, "GET", "/v2/authenticated-user")).user

    async def user_rights(self, user_id: str) -> list[Right]:
        path = f"/v2/users/{_segment(user_id)}/rights"
        return (await self._call(ListUserRightsResponse, "GET", path)).rights

    async def users(self) -> list[User]:
        """Every user (needs admin rights), all pages."""
        out: list[User] = []
        token = ""
        for _ in range(10_000):
            page = await self._call(
                ListUsersResponse,
                "GET",
                "/v2/users",
                params={"pageSize": 1000, **({"pageToken": token} if token else {})},
            )
            out.extend(page.users)
            token = page.next_page_token or ""
            if not token:
                break
        return out

    async def parties(self) -> list[PartyDetails]:
        """Every party known to the participant (needs admin rights), all pages."""
        out: list[PartyDetails] = []
        token = ""
        for _ in range(10_000):
            page = await self._call(
                ListKnownPartiesResponse,
                "GET",
                "/v2/parties",
                params={"pageSize": 1000, **({"pageToken": token} if token else {})},
            )
            out.extend(page.party_details)
            token = page.next_page_token or ""
            if not token:
                break
        return out

    async def connected_synchronizers(self, party: str | None = None) -> list[ConnectedSynchronizer]:
        params = {"party": party} if party else None
        return (
            await self._call(
                GetConnectedSynchronizersResponse, "GET", "/v2/state/connected-synchronizers", params=params
            )
        ).connected_synchronizers

    async def packages(self) -> list[str]:
        return (await self._call(ListPackagesResponse, "GET", "/v2/packages")).package_ids

    async def package_archive(self, package_id: str) -> bytes:
        """A package's archive as the participant serves it (a Daml-LF ``ArchivePayload``), after checking that
        the ``Canton-Package-Hash`` it comes with names the package asked for."""
        path = f"/v2/packages/{_segment(package_id)}"
        content, headers = await self.http.request_answer("GET", path)
        declared = headers.get("canton-package-hash")
        if declared is not None and declared != package_id:
            raise errors.UnreadableAnswer(
                f"GET {path} answered the archive of package {declared[:80]!r}", method="GET", path=path
            )
        return content

    async def package_status(self, package_id: str) -> PackageStatus:
        path = f"/v2/packages/{_segment(package_id)}/status"
        return (await self._call(GetPackageStatusResponse, "GET", path)).package_status

    async def preferred_package(
        self, package_name: str, parties: Sequence[str] = ()
    ) -> PackageReference | None:
        """The version of `package_name` the participant would use for a command of `parties` (none: any vetted
        one); None when it has no package of that name."""
        params: dict[str, Any] = {"package-name": package_name}
        if parties:
            params["parties"] = list(parties)
        answer = await self._call(
            GetPreferredPackageVersionResponse,
            "GET",
            "/v2/interactive-submission/preferred-package-version",
            params=params,
        )
        preference = answer.package_preference
        return preference.package_reference if preference is not None else None

    # --- state --------------------------------------------------------------------------------------------------

    async def ledger_end(self) -> int:
        return (await self._call(GetLedgerEndResponse, "GET", "/v2/state/ledger-end")).offset or 0

    async def pruned_offset(self) -> int:
        answer = await self._call(GetLatestPrunedOffsetsResponse, "GET", "/v2/state/latest-pruned-offsets")
        return answer.participant_pruned_up_to_inclusive or 0

    async def active_contracts(
        self, offset: int, fmt: EventFormat, *, limit: int | None = None
    ) -> list[JsGetActiveContractsResponse]:
        """The list form: fine for what fits the participant's list limit (413 `ListTooLarge` beyond it). Large
        snapshots go through `app.client.acs.read_snapshot`, page by page."""
        body = GetActiveContractsRequest(active_at_offset=offset, event_format=fmt)
        params = {"limit": limit} if limit is not None else None
        return await self._call_list(
            JsGetActiveContractsResponse, "POST", "/v2/state/active-contracts", body, params=params
        )

    # --- contracts and events -----------------------------------------------------------------------------------

    async def contract(self, contract_id: str, querying_parties: Sequence[str]) -> CreatedEvent:
        """The create event of a contract: contract-by-id, or on a participant without it (3.4),
        events-by-contract-id with a filter for the querying parties."""
        if self.capabilities.contract_by_id is not False:
            try:
                return await self.contract_by_id(contract_id, querying_parties)
            except errors.EndpointMissing:
                pass
        events = await self.events_by_contract_id(contract_id, event_format(list(querying_parties) or None))
        if events.created is None:
            raise errors.NotFound(
                404,
                "Contract events not found, or not visible.",
                method="POST",
                path="/v2/events/events-by-contract-id",
            )
        return events.created.created_event

    async def contract_by_id(self, contract_id: str, querying_parties: Sequence[str]) -> CreatedEvent:
        """contract-by-id alone (no querying parties: any party, which needs CanReadAsAnyParty). Raises
        `EndpointMissing` on a participant without it, and remembers that."""
        body = GetContractRequest(contract_id=contract_id, querying_parties=list(querying_parties))
        try:
            answer = await self._call(GetContractResponse, "POST", "/v2/contracts/contract-by-id", body)
        except errors.EndpointMissing:
            self.capabilities.contract_by_id = False
            raise
        self.capabilities.contract_by_id = True
        return answer.created_event

    async def events_by_contract_id(
        self, contract_id: str, fmt: EventFormat
    ) -> JsGetEventsByContractIdResponse:
        body = GetEventsByContractIdRequest(contract_id=contract_id, event_format=fmt)
        return await self._call(
            JsGetEventsByContractIdResponse, "POST", "/v2/events/events-by-contract-id", body
        )

    # --- updates ------------------------------------------------------------------------------------------------

    async def updates(
        self, begin_exclusive: int, end_inclusive: int, fmt: UpdateFormat, *, limit: int | None = None
    ) -> list[JsGetUpdatesResponse]:
        body = GetUpdatesRequest(
            begin_exclusive=begin_exclusive, end_inclusive=end_inclusive, update_format=fmt
        )
        params = {"limit": limit} if limit is not None else None
        return await self._call_list(JsGetUpdatesResponse, "POST", "/v2/updates", body, params=params)

    async def update_by_offset(self, offset: int, fmt: UpdateFormat) -> JsGetUpdateResponse:
        body = GetUpdateByOffsetRequest(offset=offset, update_format=fmt)
        return await self._call(JsGetUpdateResponse, "POST", "/v2/updates/update-by-offset", body)

    async def update_by_id(self, update_id: str, fmt: UpdateFormat) -> JsGetUpdateResponse:
        body = GetUpdateByIdRequest(update_id=update_id, update_format=fmt)
        return await self._call(JsGetUpdateResponse, "POST", "/v2/updates/update-by-id", body)

    async def update_at(self, offset: int, fmt: UpdateFormat) -> Update:
        """The update at an offset: update-by-offset, or on a participant without it the update list from
        offset - 1 to offset (remembered in the capabilities). Raises `NotFound` when no update there passes
        the format (Canton's UPDATE_NOT_FOUND)."""
        if self.capabilities.update_by_offset is not False:
            try:
                answer = await self.update_by_offset(offset, fmt)
            except errors.EndpointMissing:
                self.capabilities.update_by_offset = False
            else:
                self.capabilities.update_by_offset = True
                if answer.update is not None:
                    return answer.update
                raise _update_not_found(offset, "/v2/updates/update-by-offset")
        for element in await self.updates(max(0, offset - 1), offset, fmt):
            update = element.update
            if update is not None and _offset_of(update) == offset:
                return update
        raise _update_not_found(offset, "/v2/updates")

    # --- commands -----------------------------------------------------------------------------------------------

    async def submit_and_wait_for_transaction(
        self, commands: JsCommands, fmt: TransactionFormat | None = None
    ) -> JsTransaction:
        """Submit and wait for the transaction.

        A failure that leaves the outcome unknown (the connection broke, a timeout, 502/503/504) is retried with the
        same body, so the same commandId: the participant deduplicates, so the command never runs twice. When a
        retry is refused as DUPLICATE_COMMAND, an earlier attempt went through: its transaction is read back from
        the completions and returned as if the first answer had arrived."""
        body = JsSubmitAndWaitForTransactionRequest(commands=commands, transaction_format=fmt)
        path = "/v2/commands/submit-and-wait-for-transaction"

        async def send() -> JsTransaction:
            answer = await self._call(JsSubmitAndWaitForTransactionResponse, "POST", path, body, retry=False)
            return answer.transaction

        async def arrived_before(duplicate: errors.Conflict) -> JsTransaction:
            return await self._transaction_of(commands, fmt, duplicate)

        return await self._submit_once(send, arrived_before)

    async def _submit_once(
        self, send: Callable[[], Awaitable[T]], arrived_before: Callable[[errors.Conflict], Awaitable[T]]
    ) -> T:
        """`send` a submission; when the outcome is unknown (the connection broke, a timeout, 502/503/504), again
        with the same body, so the same commandId, which the participant deduplicates: it never runs twice. A retry
        refused as DUPLICATE_COMMAND means an earlier attempt arrived: `arrived_before` tells what it did."""
        retry = self.http.retry
        unknown_outcome = False
        for attempt in range(retry.attempts + 1):
            try:
                return await send()
            except errors.Conflict as e:
                if unknown_outcome and e.code == "DUPLICATE_COMMAND":
                    return await arrived_before(e)
                raise
            except errors.LedgerApiError as e:
                if not e.retryable or attempt >= retry.attempts:
                    raise
                unknown_outcome = True
                await asyncio.sleep(retry.delay(attempt))
        raise AssertionError("unreachable")

    async def _transaction_of(
        self, commands: JsCommands, fmt: TransactionFormat | None, duplicate: errors.Conflict
    ) -> JsTransaction:
        """The transaction of an earlier attempt of `commands`: at the offset the duplicate's context names
        (Canton's `completion_offset`), or found through the completions of the last offsets."""
        transactions = fmt or TransactionFormat(
            event_format=event_format([*commands.act_as, *commands.read_as]), transaction_shape=ACS_DELTA
        )
        updates = UpdateFormat(include_transactions=transactions)
        context = duplicate.canton.context if duplicate.canton is not None else {}
        try:
            offset = context.get("completion_offset", "")
            if offset.isdigit():
                at_offset = await self.update_at(int(offset), updates)
                if at_offset.transaction is not None:
                    return at_offset.transaction.value
            user_id = commands.user_id or (await self.authenticated_user()).id
            begin = max(0, await self.ledger_end() - RECOVERY_WINDOW)
            for element in await self.completions(user_id, commands.act_as, begin):
                completion = element.completion_response.completion if element.completion_response else None
                done = completion.value if completion is not None else None
                if done is None or done.command_id != commands.command_id or not done.update_id:
                    continue
                if done.status is not None and done.status.code != 0:
                    continue
                update = (await self.update_by_id(done.update_id, updates)).update
                if update is not None and update.transaction is not None:
                    return update.transaction.value
        except errors.LedgerApiError:
            pass
        duplicate.hint = (
            "An earlier attempt of this submission was accepted (the connection broke before its "
            "answer arrived); its transaction could not be read back. The command ran once."
        )
        raise duplicate

    async def submit_reassignment(self, commands: ReassignmentCommands) -> None:
        """Submit unassign or assign commands; the participant answers `{}` once it accepted them, and the outcome
        comes later, in the completions (`completions`) and, on success, as a Reassignment update.

        Retried as a submission is (`_submit_once`): an earlier attempt found to have arrived is what was
        wanted."""
        body = SubmitReassignmentRequest(reassignment_commands=commands)

        async def send() -> None:
            await self.http.request("POST", "/v2/commands/async/submit-reassignment", body, retry=False)

        async def arrived_before(_: errors.Conflict) -> None:
            return None

        await self._submit_once(send, arrived_before)

    async def completions(
        self, user_id: str, parties: Sequence[str], begin_exclusive: int
    ) -> list[CompletionStreamResponse]:
        body = CompletionStreamRequest(
            user_id=user_id, parties=list(parties), begin_exclusive=begin_exclusive
        )
        return await self._call_list(
            CompletionStreamResponse,
            "POST",
            "/v2/commands/completions",
            body,
            params={"stream_idle_timeout_ms": 500},
        )


def _offset_of(update: Update) -> int | None:
    for alternative in (update.transaction, update.reassignment, update.topology_transaction):
        if alternative is not None:
            return alternative.value.offset
    return None


def _update_not_found(offset: int, path: str) -> errors.NotFound:
    from app.client.explain import explain

    return errors.NotFound(
        404,
        f"No update at offset {offset} is visible to these parties.",
        method="POST",
        path=path,
        hint=explain("UPDATE_NOT_FOUND"),
    )


def request_body(commands: JsCommands, fmt: TransactionFormat | None = None) -> bytes:
    """The exact body `submit_and_wait_for_transaction` sends (for previews and curl)."""
    from app.client.http import encode

    return encode(JsSubmitAndWaitForTransactionRequest(commands=commands, transaction_format=fmt))


def _segment(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


def parse_json(content: bytes, method: str, path: str) -> Any:
    """An answer's JSON, or `UnreadableAnswer` naming the request and showing the start of what came."""
    try:
        return orjson.loads(content)
    except orjson.JSONDecodeError as e:
        snippet = " ".join(content[:120].decode("utf-8", "replace").split())
        raise errors.UnreadableAnswer(
            f"{method} {path} answered something that is not JSON ({e}): {snippet}", method=method, path=path
        ) from None


def read(model: type[M], data: Any, method: str, path: str) -> M:
    try:
        return model.read(data)
    except pydantic.ValidationError as e:
        first = e.errors(include_url=False)[0]
        if first["type"] == "json_invalid" and isinstance(data, bytes | bytearray):
            parse_json(bytes(data), method, path)  # cut off or not JSON at all: not a matter of versions
        where = ".".join(str(p) for p in first["loc"]) or "the body"
        raise errors.UnreadableAnswer(
            f"{method} {path} answered a {model.__name__} this client cannot read: {first['msg']} at {where}",
            method=method,
            path=path,
            hint="The participant may run a version this client does not know.",
        ) from None
