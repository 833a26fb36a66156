"""Storage rows and their conversions: kept apart from the wire models, and from SQL text."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

import orjson

from participant.base.timestamps import format_timestamp, parse_timestamp
from participant.base.transactions import (
    AssignNode,
    AuthorizationNode,
    Contract,
    CreateNode,
    ExerciseNode,
    FetchNode,
    Node,
    UnassignNode,
)

# A user's right as stored and as the user management API names it: (kind, party), the party None for the kinds
# that carry none (ParticipantAdmin, CanReadAsAnyParty, ...).
Right = tuple[str, str | None]

CONTRACT_COLUMNS = (
    "seq, contract_id, template_id, package_name, argument, signatories, observers, contract_key, key_hash, "
    "created_at, synchronizer_id, reassignment_counter, workflow_id, create_offset, create_node_id, "
    "archive_offset, archive_node_id"
)


class ContractRow(NamedTuple):
    """A `contracts` row as SQLite returns it; JSON columns stay text so hot paths can splice them unparsed."""

    seq: int
    contract_id: str
    template_id: str
    package_name: str
    argument: str
    signatories: str
    observers: str
    contract_key: str | None
    key_hash: str | None
    created_at: str
    synchronizer_id: str
    reassignment_counter: int
    workflow_id: str
    create_offset: int
    create_node_id: int
    archive_offset: int | None
    archive_node_id: int | None

    @property
    def stakeholders(self) -> list[str]:
        return orjson.loads(self.signatories) + orjson.loads(self.observers)

    def contract(self) -> Contract:
        return Contract(
            contract_id=self.contract_id,
            template_id=self.template_id,
            package_name=self.package_name,
            argument=orjson.loads(self.argument),
            signatories=tuple(orjson.loads(self.signatories)),
            observers=tuple(orjson.loads(self.observers)),
            key=None if self.contract_key is None else orjson.loads(self.contract_key),
            key_hash=self.key_hash or "",
            created_at=parse_timestamp(self.created_at),
            synchronizer_id=self.synchronizer_id,
            reassignment_counter=self.reassignment_counter,
        )


def acs_event_json(
    *,
    offset: int,
    node_id: int,
    contract_id: str,
    template_id: str,
    key: str | None,
    key_hash: str,
    argument: str,
    signatories: str,
    observers: str,
    created_at: str,
    package_name: str,
) -> str:
    """The fields of a contract's created event that do not depend on who asks, as JSON object members (no
    braces): what the ACS splices in for every entry. The schema's migration 2 renders the same in SQL."""
    q = orjson.dumps
    return (
        f'"offset":{offset},"nodeId":{node_id},"contractId":{q(contract_id).decode()},'
        f'"templateId":{q(template_id).decode()},"contractKey":{key or "null"},'
        f'"contractKeyHash":{q(key_hash).decode()},"createArgument":{argument},"signatories":{signatories},'
        f'"observers":{observers},"createdAt":{q(created_at).decode()},"packageName":{q(package_name).decode()},'
        f'"representativePackageId":{q(template_id.split(":", 1)[0]).decode()},"acsDelta":true'
    )


ARCHIVE_COLUMNS = slice(15, 17)  # archive_offset, archive_node_id in `contract_params`


def contract_params(seq: int, c: Contract, workflow_id: str, offset: int, node_id: int) -> list:
    """The values of a new `contracts` row, in `sql.INSERT_CONTRACT`'s order (archive columns still empty)."""
    argument, signatories = orjson.dumps(c.argument).decode(), orjson.dumps(list(c.signatories)).decode()
    observers = orjson.dumps(list(c.observers)).decode()
    key = None if c.key is None else orjson.dumps(c.key).decode()
    created_at = format_timestamp(c.created_at)
    event = acs_event_json(
        offset=offset,
        node_id=node_id,
        contract_id=c.contract_id,
        template_id=c.template_id,
        key=key,
        key_hash=c.key_hash or "",
        argument=argument,
        signatories=signatories,
        observers=observers,
        created_at=created_at,
        package_name=c.package_name,
    )
    return [
        seq,
        c.contract_id,
        c.template_id,
        c.package_name,
        argument,
        signatories,
        observers,
        key,
        c.key_hash or None,
        created_at,
        c.synchronizer_id,
        c.reassignment_counter,
        workflow_id,
        offset,
        node_id,
        None,
        None,
        event,
    ]


@dataclass(
    slots=True
)  # not frozen: a frozen dataclass's __init__ costs five times as much, on every submission
class UpdateRow:
    """A committed transaction with its metadata, as the update stream and submit-and-wait answer it."""

    offset: int
    update_id: str
    kind: str
    command_id: str
    workflow_id: str
    user_id: str
    submission_id: str
    act_as: tuple[str, ...]
    record_time: datetime
    effective_at: datetime
    synchronizer_id: str
    trace_context: dict | None
    nodes: list[Node]

    def params(self) -> tuple:
        return (
            self.offset,
            self.update_id,
            self.kind,
            self.command_id,
            self.workflow_id,
            self.user_id,
            self.submission_id,
            orjson.dumps(list(self.act_as)).decode(),
            format_timestamp(self.record_time),
            format_timestamp(self.effective_at),
            self.synchronizer_id,
            None if self.trace_context is None else orjson.dumps(self.trace_context).decode(),
            orjson.dumps([node_to_json(n) for n in self.nodes]).decode(),
        )

    @classmethod
    def from_sql(cls, row: tuple) -> UpdateRow:
        (
            offset,
            update_id,
            kind,
            command_id,
            workflow_id,
            user_id,
            submission_id,
            act_as,
            record_time,
            effective_at,
            synchronizer_id,
            trace_context,
            body,
        ) = row
        return cls(
            offset,
            update_id,
            kind,
            command_id,
            workflow_id,
            user_id,
            submission_id,
            tuple(orjson.loads(act_as)),
            parse_timestamp(record_time),
            parse_timestamp(effective_at),
            synchronizer_id,
            None if trace_context is None else orjson.loads(trace_context),
            [node_from_json(n) for n in orjson.loads(body)],
        )


UPDATE_COLUMNS = (
    '"offset", update_id, kind, command_id, workflow_id, user_id, submission_id, act_as, record_time, '
    "effective_at, synchronizer_id, trace_context, body"
)


def _contract_json(c: Contract) -> dict:
    return {
        "contract_id": c.contract_id,
        "template_id": c.template_id,
        "package_name": c.package_name,
        "argument": c.argument,
        "signatories": list(c.signatories),
        "observers": list(c.observers),
        "key": c.key,
        "key_hash": c.key_hash,
        "created_at": format_timestamp(c.created_at),
        "synchronizer_id": c.synchronizer_id,
        "reassignment_counter": c.reassignment_counter,
    }


def _contract_from_json(d: dict) -> Contract:
    return Contract(
        contract_id=d["contract_id"],
        template_id=d["template_id"],
        package_name=d["package_name"],
        argument=d["argument"],
        signatories=tuple(d["signatories"]),
        observers=tuple(d["observers"]),
        key=d["key"],
        key_hash=d["key_hash"],
        created_at=parse_timestamp(d["created_at"]),
        synchronizer_id=d["synchronizer_id"],
        reassignment_counter=d["reassignment_counter"],
    )


def node_to_json(node: Node) -> dict:
    if isinstance(node, CreateNode):
        return {"t": "create", "node_id": node.node_id, **_contract_json(node.contract)}
    if isinstance(node, UnassignNode | AssignNode):
        return {
            "t": "unassign" if isinstance(node, UnassignNode) else "assign",
            "node_id": node.node_id,
            "reassignment_id": node.reassignment_id,
            "source": node.source,
            "target": node.target,
            "counter": node.counter,
            "contract": _contract_json(node.contract),
        }
    if isinstance(node, ExerciseNode):
        return {
            "t": "exercise",
            "node_id": node.node_id,
            "contract_id": node.contract_id,
            "template_id": node.template_id,
            "package_name": node.package_name,
            "choice": node.choice,
            "choice_argument": node.choice_argument,
            "acting_parties": list(node.acting_parties),
            "consuming": node.consuming,
            "stakeholders": list(node.stakeholders),
            "signatories": list(node.signatories),
            "choice_observers": list(node.choice_observers),
            "children": node.children,
            "last_descendant_node_id": node.last_descendant_node_id,
            "exercise_result": node.exercise_result,
            "interface_id": node.interface_id,
        }
    if isinstance(node, AuthorizationNode):
        return {
            "t": "authorization",
            "node_id": node.node_id,
            "party": node.party,
            "participant_id": node.participant_id,
            "permission": node.permission,
        }
    return {
        "t": "fetch",
        "node_id": node.node_id,
        "contract_id": node.contract_id,
        "template_id": node.template_id,
        "acting_parties": list(node.acting_parties),
        "stakeholders": list(node.stakeholders),
    }


def node_from_json(d: dict) -> Node:
    kind = d["t"]
    if kind == "create":
        return CreateNode(d["node_id"], _contract_from_json(d))
    if kind in ("unassign", "assign"):
        cls = UnassignNode if kind == "unassign" else AssignNode
        return cls(
            d["node_id"],
            d["reassignment_id"],
            _contract_from_json(d["contract"]),
            d["source"],
            d["target"],
            d["counter"],
        )
    if kind == "authorization":
        return AuthorizationNode(d["node_id"], d["party"], d["participant_id"], d["permission"])
    if kind == "exercise":
        return ExerciseNode(
            node_id=d["node_id"],
            contract_id=d["contract_id"],
            template_id=d["template_id"],
            package_name=d["package_name"],
            choice=d["choice"],
            choice_argument=d["choice_argument"],
            acting_parties=tuple(d["acting_parties"]),
            consuming=d["consuming"],
            stakeholders=tuple(d["stakeholders"]),
            signatories=tuple(d["signatories"]),
            choice_observers=tuple(d["choice_observers"]),
            children=list(d["children"]),
            last_descendant_node_id=d["last_descendant_node_id"],
            exercise_result=d["exercise_result"],
            interface_id=d.get("interface_id"),  # absent in updates written before interfaces
        )
    return FetchNode(
        d["node_id"], d["contract_id"], d["template_id"], tuple(d["acting_parties"]), tuple(d["stakeholders"])
    )


@dataclass(frozen=True)
class UserRow:
    id: str
    primary_party: str
    is_deactivated: bool
    annotations: dict[str, str]
    resource_version: int
    identity_provider_id: str
    primary_party_authentication: bool
    rights: tuple[Right, ...]


@dataclass(frozen=True)
class PartyRow:
    party: str
    annotations: dict[str, str]
    resource_version: int
    identity_provider_id: str


@dataclass(frozen=True)
class IdpRow:
    """An identity provider config; the default provider ('') has none."""

    identity_provider_id: str
    is_deactivated: bool
    jwks_url: str
    issuer: str
    audience: str


@dataclass(slots=True)  # not frozen: see UpdateRow
class CompletionRow:
    """A completion: read back for the completion stream, and staged by a submission's job in its group commit."""

    offset: int
    user_id: str
    command_id: str
    act_as: tuple[str, ...]
    submission_id: str
    update_id: str  # "" for a failure
    record_time: datetime
    synchronizer_id: str
    dedup_period: dict  # the deduplication period as the wire carries it
    status: dict | None = None  # None for a success, else the failure's google.rpc.Status
    change_key: str = ""  # the change it completes (set when written; reads do not need it)

    def params(self) -> tuple:
        """The row for `sql.INSERT_COMPLETION`."""
        return (
            self.offset,
            self.user_id,
            self.command_id,
            self.change_key,
            orjson.dumps(list(self.act_as)).decode(),
            self.submission_id,
            self.update_id,
            format_timestamp(self.record_time),
            self.synchronizer_id,
            orjson.dumps(self.dedup_period).decode(),
            None if self.status is None else orjson.dumps(self.status).decode(),
        )
