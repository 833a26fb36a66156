"""From stored contracts and transaction nodes to the events of the JSON API, for a filter and a shape.

Hot paths (the ACS stream) build plain dicts for orjson and splice stored JSON in unparsed; every shape built
here is checked against the official schemas by the tests.
"""

from __future__ import annotations

import orjson

from participant.base.timestamps import format_timestamp, parse_timestamp
from participant.base.transactions import (
    AssignNode,
    AuthorizationNode,
    Contract,
    CreateNode,
    ExerciseNode,
    FetchNode,
    UnassignNode,
)
from participant.ledger.blob import encode_blob
from participant.projection.filters import (
    ACS_DELTA,
    EventFilter,
    PartyFilter,
    TransactionView,
    qualified_name,
)
from participant.store.rows import ContractRow, UpdateRow

# The keys of a CreatedEvent, in the order every path writes them: first those that depend on the request, then
# those stored with the contract, which the ACS splices in as the text `rows.acs_event_json` rendered on write.
CREATED_EVENT_KEYS = (
    "witnessParties",
    "createdEventBlob",
    "interfaceViews",
    "offset",
    "nodeId",
    "contractId",
    "templateId",
    "contractKey",
    "contractKeyHash",
    "createArgument",
    "signatories",
    "observers",
    "createdAt",
    "packageName",
    "representativePackageId",
    "acsDelta",
)
REQUEST_KEYS = CREATED_EVENT_KEYS[:3]
_REQUEST_MEMBERS = ",".join(f'"{key}":%s' for key in REQUEST_KEYS)


def request_members(witnesses: str, blob: str, views: str) -> str:
    """The request's members of a CreatedEvent as JSON text, from their values as JSON text: what the ACS fast
    path puts before the stored members."""
    return _REQUEST_MEMBERS % (witnesses, blob, views)


def _created(
    *,
    offset: int,
    node_id: int,
    contract_id: str,
    template_id: str,
    argument,
    key,
    key_hash: str | None,
    blob: str,
    witnesses: list[str],
    signatories: list[str] | orjson.Fragment,  # a stored row's parties go out as their JSON text, unparsed
    observers: list[str] | orjson.Fragment,
    created_at: str,
    package_name: str,
    acs_delta: bool,
    views: list[dict],
) -> dict:
    """The CreatedEvent built field by field; the same JSON text as the ACS fast path's for the same contract."""
    return dict(
        zip(
            CREATED_EVENT_KEYS,
            (
                witnesses,
                blob,
                views,
                offset,
                node_id,
                contract_id,
                template_id,
                key,
                key_hash or "",
                argument,
                signatories,
                observers,
                created_at,
                package_name,
                template_id.split(":", 1)[0],
                acs_delta,
            ),
            strict=True,
        )
    )


def created_event_of_row(
    row: ContractRow, witnesses: list[str], with_blob: bool, views: list[dict] | None = None
) -> dict:
    """A stored contract's create event; stored JSON is spliced in without parsing it."""
    argument = orjson.Fragment(row.argument)
    signatories = orjson.Fragment(row.signatories)
    observers = orjson.Fragment(row.observers)
    key = None if row.contract_key is None else orjson.Fragment(row.contract_key)
    blob = encode_blob(row.contract()) if with_blob else ""
    return _created(
        offset=row.create_offset,
        node_id=row.create_node_id,
        contract_id=row.contract_id,
        template_id=row.template_id,
        argument=argument,
        key=key,
        key_hash=row.key_hash,
        blob=blob,
        witnesses=witnesses,
        signatories=signatories,
        observers=observers,
        created_at=row.created_at,
        package_name=row.package_name,
        acs_delta=True,
        views=views or [],
    )


def created_event_of_contract(
    c: Contract,
    *,
    offset: int,
    node_id: int,
    witnesses: list[str],
    with_blob: bool,
    acs_delta: bool,
    views: list[dict] | None = None,
) -> dict:
    return _created(
        offset=offset,
        node_id=node_id,
        contract_id=c.contract_id,
        template_id=c.template_id,
        argument=c.argument,
        key=c.key,
        key_hash=c.key_hash,
        blob=encode_blob(c) if with_blob else "",
        witnesses=witnesses,
        signatories=list(c.signatories),
        observers=list(c.observers),
        created_at=format_timestamp(c.created_at),
        package_name=c.package_name,
        acs_delta=acs_delta,
        views=views or [],
    )


def archived_event(
    *,
    offset: int,
    node_id: int,
    contract_id: str,
    template_id: str,
    package_name: str,
    witnesses: list[str],
    implemented: list[str] | None = None,
) -> dict:
    return {
        "offset": offset,
        "nodeId": node_id,
        "contractId": contract_id,
        "templateId": template_id,
        "witnessParties": witnesses,
        "packageName": package_name,
        "implementedInterfaces": implemented or [],
    }


class AcsRenderer:
    """ACS entries as JSON text, straight from `sql.ACS_ROW_COLUMNS` rows: the hot path of the three ACS forms.

    Equal, once parsed, to the entry built field by field from a `ContractRow` with `created_event_of_row` (the tests
    keep that reference). The part of each created event that does not depend on the request was rendered when the
    contract was written (`rows.acs_event_json`); what depends on the contract's stakeholders and template only
    (witnesses, blob flag) is worked out once per distinct (signatories, observers, template, package) of the
    snapshot. `token_prefix` None gives every entry an empty `streamContinuationToken`, else the prefix followed by
    the contract's seq in 16 hex digits."""

    def __init__(self, event_filter: EventFilter, token_prefix: str | None) -> None:
        self._filter = event_filter
        self._token = None if token_prefix is None else '"' + token_prefix
        self._shapes: dict[tuple, tuple[str, bool, list[str], str | None] | None] = {}
        self._quoted: dict[str, str] = {}

    def _q(self, s: str) -> str:
        q = self._quoted.get(s)
        if q is None:
            if len(self._quoted) > 100_000:  # bounded whatever the snapshot
                self._quoted.clear()
            q = self._quoted[s] = orjson.dumps(s).decode()
        return q

    def _shape(self, key: tuple) -> tuple[str, bool, list[str], str | None] | None:
        """(the witnesses as JSON, whether to include the blob, the interfaces whose views to add, and the
        request's members when they are the same for every contract of the shape), or None when the filter
        excludes the contract."""
        sig, obs, tid, pkg = key
        qn = qualified_name(tid)
        witnesses = self._filter.witnesses(orjson.loads(sig) + orjson.loads(obs), pkg, qn)
        shape = None
        if witnesses:
            with_blob, interfaces = (
                self._filter.blob(witnesses, pkg, qn),
                self._filter.interfaces(witnesses, pkg, qn),
            )
            text = orjson.dumps(witnesses).decode()
            shape = (
                text,
                with_blob,
                interfaces,
                None if with_blob or interfaces else request_members(text, '""', "[]"),
            )
        if len(self._shapes) > 10_000:
            self._shapes.clear()
        self._shapes[key] = shape
        return shape

    def render(self, rows: list) -> tuple[list[str], list[int]]:
        """The entries of a page of rows (those the filter lets through) and their seqs."""
        texts: list[str] = []
        seqs: list[int] = []
        shapes, quoted, q, token = self._shapes, self._quoted, self._q, self._token
        add_text, add_seq = texts.append, seqs.append
        for seq, wf, sig, obs, tid, pkg, event, sync, counter in rows:
            k = (sig, obs, tid, pkg)
            shape = shapes[k] if k in shapes else self._shape(k)
            if shape is None:
                continue
            witnesses, with_blob, interfaces, members = shape
            if members is None:
                members = self._members(witnesses, with_blob, interfaces, event, sync, tid)
            tok = '""' if token is None else f'{token}{seq:016x}"'
            add_text(
                _acs_entry(quoted.get(wf) or q(wf), members, event, quoted.get(sync) or q(sync), counter, tok)
            )
            add_seq(seq)
        return texts, seqs

    def entry_format(self) -> str | None:
        """When every contract of the one requested party's stakeholder index shows the same request members
        (witnesses: that party; no blob, no views), the printf format SQLite renders each entry with, from the
        workflow id and synchronizer id (both JSON-quoted), the stored created event, the reassignment counter and
        the seq (see `sql.ACS_ENTRIES_OF_PARTY`); else None, and the entries are rendered here."""
        f = self._filter
        if f.any_party is not None or len(f.by_party) != 1:
            return None
        ((party, party_filter),) = f.by_party.items()
        if party_filter != PartyFilter(wildcard=True):  # template choices, blobs or views differ per contract
            return None
        members = request_members(orjson.dumps([party]).decode(), '""', "[]").replace("%", "%%")
        token = '""' if self._token is None else self._token.replace("%", "%%") + '%016x"'
        return _acs_entry("%s", members, "%s", "%s", "%d", token)

    def _members(
        self,
        witnesses: str,
        with_blob: bool,
        interfaces: list[str],
        event: str,
        synchronizer_id: str,
        template_id: str,
    ) -> str:
        """The request's members of one contract's event when they depend on the contract: its blob, its views
        (computed from the create argument of the pre-rendered event)."""
        blob = f'"{_blob_of_event(event, synchronizer_id)}"' if with_blob else '""'
        views = "[]"
        if interfaces:
            argument = orjson.loads("{" + event + "}")["createArgument"]
            views = orjson.dumps(self._filter.view_values(template_id, argument, interfaces)).decode()
        return request_members(witnesses, blob, views)

    def render_moved(self, rows: list[tuple[int, tuple]]) -> tuple[list[str], list[int]]:
        """The entries of contracts that moved (`sql.ACS_MOVED` rows with their positions): active on the target
        of their latest assignment, with its counter and its event's offset and node; or in flight, with the
        created event of their latest activation and the unassignment."""
        texts: list[str] = []
        positions: list[int] = []
        q, token = self._q, self._token
        for position, row in rows:
            (
                seq,
                wf,
                sig,
                obs,
                tid,
                pkg,
                event,
                _sync,
                _counter,
                _eseq,
                kind,
                offset,
                node_id,
                rid,
                source,
                target,
                submitter,
                counter,
                create_offset,
                create_node_id,
                last_assign,
            ) = row
            k = (sig, obs, tid, pkg)
            shape = self._shapes[k] if k in self._shapes else self._shape(k)
            if shape is None:
                continue
            witnesses, with_blob, interfaces, members = shape
            created_prefix = f'"offset":{create_offset},"nodeId":{create_node_id},'
            body = event[len(created_prefix) :] if event.startswith(created_prefix) else event
            if kind == "assign":
                activation, synchronizer = f'"offset":{offset},"nodeId":{node_id},', target
            else:
                at, _, node = (last_assign or "").partition(":")
                activation = created_prefix if not at else f'"offset":{at},"nodeId":{node},'
                synchronizer = source
            if members is None:
                members = self._members(witnesses, with_blob, interfaces, event, synchronizer, tid)
            created = f"{{{members},{activation}{body}}}"
            tok = '""' if token is None else f'{token}{position:016x}"'
            if kind == "assign":
                entry = (
                    f'{{"JsActiveContract":{{"createdEvent":{created},"synchronizerId":{q(target)},'
                    f'"reassignmentCounter":{counter}}}}}'
                )
            else:
                e = orjson.loads("{" + event + "}")
                unassigned = orjson.dumps(
                    unassigned_event(
                        offset=offset,
                        node_id=node_id,
                        reassignment_id=rid,
                        contract_id=e["contractId"],
                        template_id=tid,
                        package_name=pkg,
                        source=source,
                        target=target,
                        submitter=submitter,
                        counter=counter,
                        witnesses=orjson.loads(witnesses),
                    )
                ).decode()
                entry = f'{{"JsIncompleteUnassigned":{{"createdEvent":{created},"unassignedEvent":{unassigned}}}}}'
            texts.append(f'{{"workflowId":{q(wf)},"contractEntry":{entry},"streamContinuationToken":{tok}}}')
            positions.append(position)
        return texts, positions


def _acs_entry(workflow_id: str, members: str, event: str, synchronizer_id: str, counter, token: str) -> str:
    """An ACS entry of a contract active on its synchronizer, from its parts as JSON text (`members`: the created
    event's request members, `event`: its stored ones)."""
    return (
        f'{{"workflowId":{workflow_id},"contractEntry":{{"JsActiveContract":{{"createdEvent":'
        f"{{{members},{event}}},"
        f'"synchronizerId":{synchronizer_id},"reassignmentCounter":{counter}}}}},'
        f'"streamContinuationToken":{token}}}'
    )


def _blob_of_event(event: str, synchronizer_id: str) -> str:
    """The blob of a contract from its pre-rendered ACS event (which carries every field the blob needs)."""
    e = orjson.loads("{" + event + "}")
    return encode_blob(
        Contract(
            contract_id=e["contractId"],
            template_id=e["templateId"],
            package_name=e["packageName"],
            argument=e["createArgument"],
            signatories=tuple(e["signatories"]),
            observers=tuple(e["observers"]),
            key=e["contractKey"],
            key_hash=e["contractKeyHash"],
            created_at=parse_timestamp(e["createdAt"]),
            synchronizer_id=synchronizer_id,
        )
    )


def transaction(update: UpdateRow, shape: str, event_filter: EventFilter, *, show_command_id: bool) -> dict:
    """The JsTransaction of an update, as the requesting parties see it in the given shape."""
    events = (
        acs_delta_events(update, event_filter)
        if shape == ACS_DELTA
        else ledger_effects_events(update, event_filter)
    )
    return {
        "updateId": update.update_id,
        "commandId": update.command_id if show_command_id else "",
        "workflowId": update.workflow_id,
        "effectiveAt": format_timestamp(update.effective_at),
        "events": events,
        "offset": update.offset,
        "synchronizerId": update.synchronizer_id,
        "traceContext": update.trace_context,
        "recordTime": format_timestamp(update.record_time),
        "externalTransactionHash": None,
        "paidTrafficCost": None,
    }


def visible_transaction(update: UpdateRow, view: TransactionView) -> dict | None:
    """The JsTransaction of a stored update as a reader of the update service sees it, or None when none of its
    events is visible through the view (the reader then sees no such transaction at all)."""
    if update.kind != "transaction":
        return None
    event_filter = view.filter
    # The command id is shown only to the submitting parties.
    submitter = event_filter.any_party is not None or not event_filter.by_party.keys().isdisjoint(
        update.act_as
    )
    tx = transaction(update, view.shape, event_filter, show_command_id=submitter)
    return tx if tx["events"] else None


def reassignment(update: UpdateRow, event_filter: EventFilter | None, *, show_command_id: bool) -> dict:
    """The JsReassignment of a reassignment update: its events as the filter's parties see them (none without a
    filter, as submit-and-wait-for-reassignment answers without an eventFormat)."""
    return {
        "updateId": update.update_id,
        "commandId": update.command_id if show_command_id else "",
        "workflowId": update.workflow_id,
        "offset": update.offset,
        "events": [] if event_filter is None else reassignment_events(update, event_filter),
        "traceContext": update.trace_context,
        "recordTime": format_timestamp(update.record_time),
        "synchronizerId": update.synchronizer_id,
        "paidTrafficCost": None,
    }


def visible_reassignment(update: UpdateRow, event_filter: EventFilter) -> dict | None:
    """The JsReassignment of a stored update as a reader with this filter sees it, or None when it is no
    reassignment or none of its events is visible."""
    if update.kind != "reassignment":
        return None
    submitter = event_filter.any_party is not None or not event_filter.by_party.keys().isdisjoint(
        update.act_as
    )
    r = reassignment(update, event_filter, show_command_id=submitter)
    return r if r["events"] else None


def unassigned_event(
    *,
    offset: int,
    node_id: int,
    reassignment_id: str,
    contract_id: str,
    template_id: str,
    package_name: str,
    source: str,
    target: str,
    submitter: str,
    counter: int,
    witnesses: list[str],
) -> dict:
    return {
        "reassignmentId": reassignment_id,
        "contractId": contract_id,
        "templateId": template_id,
        "source": source,
        "target": target,
        "submitter": submitter,
        "reassignmentCounter": counter,
        "assignmentExclusivity": None,
        "witnessParties": witnesses,
        "packageName": package_name,
        "offset": offset,
        "nodeId": node_id,
    }


def reassignment_events(update: UpdateRow, event_filter: EventFilter) -> list[dict]:
    """One event per contract whose stakeholders the filter lets through; witnesses are the requested
    stakeholders."""
    submitter = update.act_as[0] if update.act_as else ""
    events: list[dict] = []
    for n in update.nodes:
        if not isinstance(n, UnassignNode | AssignNode):
            continue
        c = n.contract
        qn = qualified_name(c.template_id)
        witnesses = event_filter.witnesses(c.stakeholders, c.package_name, qn)
        if not witnesses:
            continue
        if isinstance(n, UnassignNode):
            events.append(
                {
                    "JsUnassignedEvent": {
                        "value": unassigned_event(
                            offset=update.offset,
                            node_id=n.node_id,
                            reassignment_id=n.reassignment_id,
                            contract_id=c.contract_id,
                            template_id=c.template_id,
                            package_name=c.package_name,
                            source=n.source,
                            target=n.target,
                            submitter=submitter,
                            counter=n.counter,
                            witnesses=witnesses,
                        )
                    }
                }
            )
        else:
            events.append(
                {
                    "JsAssignmentEvent": {
                        "source": n.source,
                        "target": n.target,
                        "reassignmentId": n.reassignment_id,
                        "submitter": submitter,
                        "reassignmentCounter": n.counter,
                        "createdEvent": created_event_of_contract(
                            c,
                            offset=update.offset,
                            node_id=n.node_id,
                            witnesses=witnesses,
                            with_blob=event_filter.blob(witnesses, c.package_name, qn),
                            acs_delta=True,
                            views=event_filter.views(witnesses, c.template_id, c.package_name, c.argument),
                        ),
                    }
                }
            )
    return events


def acs_delta_events(update: UpdateRow, event_filter: EventFilter) -> list[dict]:
    """Creates and archives only, transient contracts left out; witnesses are the requested stakeholders."""
    created = {n.contract.contract_id for n in update.nodes if isinstance(n, CreateNode)}
    consumed = {n.contract_id for n in update.nodes if isinstance(n, ExerciseNode) and n.consuming}
    events = []
    for n in update.nodes:
        if isinstance(n, CreateNode) and n.contract.contract_id not in consumed:
            c = n.contract
            qn = qualified_name(c.template_id)
            witnesses = event_filter.witnesses(c.stakeholders, c.package_name, qn)
            if witnesses:
                events.append(
                    {
                        "CreatedEvent": created_event_of_contract(
                            c,
                            offset=update.offset,
                            node_id=n.node_id,
                            witnesses=witnesses,
                            with_blob=event_filter.blob(witnesses, c.package_name, qn),
                            acs_delta=True,
                            views=event_filter.views(witnesses, c.template_id, c.package_name, c.argument),
                        )
                    }
                )
        elif isinstance(n, ExerciseNode) and n.consuming and n.contract_id not in created:
            qn = qualified_name(n.template_id)
            witnesses = event_filter.witnesses(n.stakeholders, n.package_name, qn)
            if witnesses:
                events.append(
                    {
                        "ArchivedEvent": archived_event(
                            offset=update.offset,
                            node_id=n.node_id,
                            contract_id=n.contract_id,
                            template_id=n.template_id,
                            package_name=n.package_name,
                            witnesses=witnesses,
                            implemented=event_filter.interfaces(witnesses, n.package_name, qn),
                        )
                    }
                )
    return events


def informees(node) -> set[str]:
    """Who the Daml ledger model shows a node to."""
    if isinstance(node, CreateNode):
        return set(node.contract.stakeholders)
    if isinstance(node, ExerciseNode):
        base = set(node.stakeholders) if node.consuming else set(node.signatories)
        return base | set(node.acting_parties) | set(node.choice_observers)
    if isinstance(node, FetchNode):
        return set(node.stakeholders) | set(node.acting_parties)
    return set()


def ledger_effects_events(update: UpdateRow, event_filter: EventFilter) -> list[dict]:
    """Creates and exercises, each shown to the requested parties that witness it (informees of the node or of
    any node above it)."""
    nodes = {n.node_id: n for n in update.nodes}
    witnessed: dict[int, set[str]] = {}
    roots = set(nodes) - {c for n in update.nodes if isinstance(n, ExerciseNode) for c in n.children}
    stack: list[tuple[int, set[str]]] = [(r, set()) for r in sorted(roots, reverse=True)]
    while stack:
        node_id, inherited = stack.pop()
        node = nodes[node_id]
        seen = inherited | informees(node)
        witnessed[node_id] = seen
        if isinstance(node, ExerciseNode):
            stack.extend((c, seen) for c in reversed(node.children))
    consumed = {n.contract_id for n in update.nodes if isinstance(n, ExerciseNode) and n.consuming}
    created = {n.contract.contract_id for n in update.nodes if isinstance(n, CreateNode)}
    events = []
    for n in update.nodes:
        if isinstance(n, CreateNode):
            c = n.contract
            qn = qualified_name(c.template_id)
            witnesses = event_filter.witnesses(witnessed[n.node_id], c.package_name, qn)
            if witnesses:
                events.append(
                    {
                        "CreatedEvent": created_event_of_contract(
                            c,
                            offset=update.offset,
                            node_id=n.node_id,
                            witnesses=witnesses,
                            with_blob=event_filter.blob(witnesses, c.package_name, qn),
                            acs_delta=c.contract_id not in consumed,
                            views=event_filter.views(witnesses, c.template_id, c.package_name, c.argument),
                        )
                    }
                )
        elif isinstance(n, ExerciseNode):
            qn = qualified_name(n.template_id)
            witnesses = event_filter.witnesses(witnessed[n.node_id], n.package_name, qn)
            if witnesses:
                events.append(
                    {
                        "ExercisedEvent": {
                            "offset": update.offset,
                            "nodeId": n.node_id,
                            "contractId": n.contract_id,
                            "templateId": n.template_id,
                            "interfaceId": n.interface_id,
                            "choice": n.choice,
                            "choiceArgument": n.choice_argument,
                            "actingParties": list(n.acting_parties),
                            "consuming": n.consuming,
                            "witnessParties": witnesses,
                            "lastDescendantNodeId": n.last_descendant_node_id,
                            "exerciseResult": n.exercise_result,
                            "packageName": n.package_name,
                            "implementedInterfaces": event_filter.interfaces(witnesses, n.package_name, qn)
                            if n.consuming
                            else [],
                            "acsDelta": n.consuming and n.contract_id not in created,
                        }
                    }
                )
    return events


def topology_transaction(update: UpdateRow, parties: tuple[str, ...]) -> dict | None:
    """A topology transaction as `JsTopologyTransaction`, with the events of `parties` (empty: of every party), or
    None when it has none of theirs."""
    events = [
        {
            "event": {
                "ParticipantAuthorizationAdded": {
                    "value": {
                        "partyId": n.party,
                        "participantId": n.participant_id,
                        "participantPermission": n.permission,
                    }
                }
            }
        }
        for n in update.nodes
        if isinstance(n, AuthorizationNode) and (not parties or n.party in parties)
    ]
    if not events:
        return None
    return {
        "updateId": update.update_id,
        "offset": update.offset,
        "synchronizerId": update.synchronizer_id,
        "recordTime": format_timestamp(update.record_time),
        "events": events,
        "traceContext": None,
    }
