"""A `ScriptLedger` over the JSON Ledger API v2, on an ``httpx.AsyncClient`` the caller hands in: in-process
through ``httpx.ASGITransport`` on our app, or a real URL against any participant (the client carries the token).

Values cross as JSON, converted with the packages' types by the engine's codec (`LfPackages.types`). A submission
is ``submit-and-wait-for-transaction`` with the ledger-effects shape, so that its tree (creates and exercises,
exercises with their children) and each command's result can be read back.

Time: a participant of ours started with ``--static-time`` serves ``GET``/``POST /x-ledger-tui/v1/time``; any other
(404) keeps the wall clock, and setting the time fails saying so.
"""

from __future__ import annotations

import base64
import json
import uuid
from datetime import UTC, datetime
from typing import Any

import httpx

from participant.base.timestamps import format_timestamp, parse_timestamp
from participant.daml_lf import ast
from participant.daml_script import ledger as lg
from participant.engine.lf.definitions import LfPackages

TIME_PATH = "/x-ledger-tui/v1/time"
_LEDGER_EFFECTS = "TRANSACTION_SHAPE_LEDGER_EFFECTS"
_ACTIVE_CACHE = 256  # queries kept
_ARGUMENTS_KEPT = 100_000  # contracts' arguments kept


def template_id(ref: ast.TypeConRef, by_package_name: bool, code: LfPackages) -> str:
    if by_package_name:
        return f"#{code.package_name(ref.package_id)}:{ref.module}:{ref.name}"
    return f"{ref.package_id}:{ref.module}:{ref.name}"


def parse_template_id(text: str) -> ast.TypeConRef:
    package_id, module, name = text.split(":", 2)
    return ast.TypeConRef(package_id, module, name)


def _right_json(right: lg.Right) -> dict[str, Any]:
    value: dict[str, Any] = {} if right.party is None else {"party": right.party}
    return {"kind": {right.kind: {"value": value}}}


def _right_of(json: dict[str, Any]) -> lg.Right:
    kind, body = next(iter(json["kind"].items()))
    return lg.Right(kind, (body.get("value") or {}).get("party"))


def _user_of(json: dict[str, Any]) -> lg.User:
    return lg.User(json["id"], json.get("primaryParty") or None)


class JsonLedger:
    """`ScriptLedger` over HTTP. ``user_id`` is the user commands are submitted as (a token's user, if any)."""

    def __init__(
        self, http: httpx.AsyncClient, code: LfPackages, *, user_id: str = "participant_admin"
    ) -> None:
        self.http = http
        self.code = code
        self.user_id = user_id
        # The active contracts at an offset never change: a query repeated before the ledger moves is answered
        # from here (scripts ask the same query many times between two submissions).
        self._active_at: dict[tuple[int, tuple[str, ...], str], list[dict[str, Any]]] = {}
        self._arguments: dict[str, Any] = {}  # a contract's argument, decoded once: it never changes

    async def _call(self, method: str, path: str, body: Any = None, missing: str | None = None) -> Any:
        """The answer's JSON; a refusal raises `LedgerFailure`, or gives None when its id is ``missing``."""
        response = await self.http.request(method, path, json=body)
        if response.status_code == 200:
            return response.json()
        resources: dict[str, str] = {}
        try:
            error = response.json()
            error_id, cause = str(error.get("code", "")), str(error.get("cause", response.text))
            for resource in error.get("resources") or []:
                if isinstance(resource, list) and len(resource) == 2:
                    resources[str(resource[0])] = str(resource[1])
        except ValueError:
            error_id, cause = "", response.text
        if missing is not None and error_id == missing:
            return None
        raise lg.LedgerFailure(error_id, cause, response.status_code, resources)

    # --- Values

    def _encode(self, type_: ast.Type, value: Any) -> Any:
        return self.code.types.of(type_).encode(value)

    def _decode(self, type_: ast.Type, json: Any) -> Any:
        return self.code.types.of(type_).decode(json)

    def _command_json(self, command: lg.Command) -> dict[str, Any]:
        code = self.code
        body: dict[str, Any] = {"templateId": template_id(command.template, command.by_package_name, code)}
        if isinstance(command, lg.CreateCmd):
            body["createArguments"] = self._encode(ast.TCon(command.template), command.argument)
            return {"CreateCommand": body}
        if isinstance(command, lg.ExerciseCmd):
            body["contractId"] = command.contract_id
            return {"ExerciseCommand": body | self._choice_json(command.choice)}
        if isinstance(command, lg.ExerciseByKeyCmd):
            key = code.packages.template(command.template).key
            assert key is not None
            body["contractKey"] = self._encode(key.type, command.key)
            return {"ExerciseByKeyCommand": body | self._choice_json(command.choice)}
        body["createArguments"] = self._encode(ast.TCon(command.template), command.argument)
        return {"CreateAndExerciseCommand": body | self._choice_json(command.choice)}

    def _choice_json(self, choice: lg.ChoiceCall) -> dict[str, Any]:
        return {"choice": choice.name, "choiceArgument": self._encode(choice.argument_type, choice.argument)}

    def _choice(self, owner: ast.TypeConRef, name: str) -> ast.Choice:
        module = self.code.packages.module(owner.package_id, owner.module)
        definition: ast.Template | ast.Interface | None = module.templates.get(
            owner.name
        ) or module.interfaces.get(owner.name)
        if definition is None:
            raise lg.LedgerFailure(
                "", f"{owner} is neither a template nor an interface of the script's packages"
            )
        for choice in definition.choices:
            if choice.name == name:
                return choice
        raise lg.LedgerFailure("", f"{owner} has no choice {name}")

    def _created(self, event: dict[str, Any]) -> lg.Created:
        template = parse_template_id(event["templateId"])
        return lg.Created(
            template, event["contractId"], self._decode(ast.TCon(template), event["createArgument"])
        )

    def _exercised(self, event: dict[str, Any]) -> lg.Exercised:
        template = parse_template_id(event["templateId"])
        interface = parse_template_id(event["interfaceId"]) if event.get("interfaceId") else None
        choice = self._choice(interface or template, event["choice"])
        return lg.Exercised(
            template,
            interface,
            event["contractId"],
            event["choice"],
            choice.arg_type,
            self._decode(choice.arg_type, event["choiceArgument"]),
            self._decode(choice.return_type, event["exerciseResult"]),
        )

    def _tree(self, events: list[dict[str, Any]]) -> list[lg.TreeEvent]:
        """The events as a tree: an exercise's children are the events of node ids up to its last descendant."""
        roots: list[lg.TreeEvent] = []
        open_exercises: list[tuple[int, lg.Exercised]] = []  # (last descendant, event), innermost last
        for wrapped in sorted(events, key=lambda e: next(iter(e.values()))["nodeId"]):
            kind, event = next(iter(wrapped.items()))
            node = event["nodeId"]
            while open_exercises and node > open_exercises[-1][0]:
                open_exercises.pop()
            if kind == "CreatedEvent":
                item: lg.TreeEvent = self._created(event)
            elif kind == "ExercisedEvent":
                item = self._exercised(event)
            else:
                continue
            (open_exercises[-1][1].children if open_exercises else roots).append(item)
            if isinstance(item, lg.Exercised):
                open_exercises.append((event["lastDescendantNodeId"], item))
        return roots

    # --- Commands

    async def submit(
        self,
        act_as: list[str],
        read_as: list[str],
        commands: list[lg.Command],
        disclosures: list[lg.Disclosed],
        package_preference: list[str] | None,
    ) -> lg.Submitted:
        body: dict[str, Any] = {
            "commands": {
                "commands": [self._command_json(command) for command in commands],
                "commandId": f"script-{uuid.uuid4()}",
                "userId": self.user_id,
                "actAs": act_as,
                "readAs": read_as,
                "disclosedContracts": [
                    {
                        "templateId": template_id(d.template, False, self.code),
                        "contractId": d.contract_id,
                        "createdEventBlob": base64.b64encode(bytes.fromhex(d.blob)).decode(),
                        "synchronizerId": "",
                    }
                    for d in disclosures
                ],
                "packageIdSelectionPreference": package_preference or [],
            },
            "transactionFormat": {
                "eventFormat": {"filtersByParty": {p: {} for p in act_as}, "verbose": True},
                "transactionShape": _LEDGER_EFFECTS,
            },
        }
        answer = await self._call("POST", "/v2/commands/submit-and-wait-for-transaction", body)
        transaction = answer["transaction"]
        roots = self._tree(transaction["events"])
        results: list[tuple[str, Any]] = []
        for root in roots:
            if isinstance(root, lg.Created):
                results.append(("create", root.contract_id))
            else:
                results.append(("exercise", root.result))
        return lg.Submitted(results, roots, transaction.get("updateId", ""))

    # --- Queries

    async def _ledger_end(self) -> int:
        return int((await self._call("GET", "/v2/state/ledger-end"))["offset"])

    async def _active(self, parties: list[str], identifier_filter: dict[str, Any]) -> list[dict[str, Any]]:
        end = await self._ledger_end()
        if end == 0:
            return []
        key = (end, tuple(sorted(parties)), json.dumps(identifier_filter, sort_keys=True))
        cached = self._active_at.get(key)
        if cached is not None:
            return cached
        if len(self._active_at) > _ACTIVE_CACHE:
            self._active_at.clear()
        body = {
            "activeAtOffset": end,
            "eventFormat": {
                "filtersByParty": {
                    p: {"cumulative": [{"identifierFilter": identifier_filter}]} for p in parties
                },
                "verbose": True,
            },
        }
        entries = await self._call("POST", "/v2/state/active-contracts", body)
        seen: set[str] = set()
        events = []
        for entry in entries:
            active = entry.get("contractEntry", {}).get("JsActiveContract")
            if active is None:
                continue
            event = active["createdEvent"]
            if event["contractId"] not in seen:  # a contract shared by two parties comes once per party
                seen.add(event["contractId"])
                events.append(event)
        self._active_at[key] = events
        return events

    async def active_contracts(self, parties: list[str], template: ast.TypeConRef) -> list[tuple[str, Any]]:
        filter_ = {"TemplateFilter": {"value": {"templateId": template_id(template, True, self.code)}}}
        found = []
        for event in await self._active(parties, filter_):
            contract_id = event["contractId"]
            argument = self._arguments.get(contract_id)
            if argument is None:
                if len(self._arguments) > _ARGUMENTS_KEPT:
                    self._arguments.clear()
                actual = parse_template_id(event["templateId"])
                argument = self._arguments[contract_id] = self._decode(
                    ast.TCon(actual), event["createArgument"]
                )
            found.append((contract_id, argument))
        return found

    async def contract(self, parties: list[str], contract_id: str) -> tuple[ast.TypeConRef, Any, str] | None:
        wildcard = {
            "cumulative": [
                {"identifierFilter": {"WildcardFilter": {"value": {"includeCreatedEventBlob": True}}}}
            ]
        }
        body = {
            "contractId": contract_id,
            "eventFormat": {"filtersByParty": {p: wildcard for p in parties}, "verbose": True},
        }
        answer = await self._call(
            "POST", "/v2/events/events-by-contract-id", body, missing="CONTRACT_EVENTS_NOT_FOUND"
        )
        if answer is None or answer.get("archived"):
            return None
        event = answer["created"]["createdEvent"]
        template = parse_template_id(event["templateId"])
        blob = base64.b64decode(event.get("createdEventBlob") or "").hex()
        return template, self._decode(ast.TCon(template), event["createArgument"]), blob

    async def interface_views(
        self, parties: list[str], interface: ast.TypeConRef
    ) -> list[tuple[str, Any | None]]:
        filter_ = {
            "InterfaceFilter": {
                "value": {
                    "interfaceId": template_id(interface, True, self.code),
                    "includeInterfaceView": True,
                }
            }
        }
        view_type = self.code.packages.interface(interface).view
        found = []
        for event in await self._active(parties, filter_):
            view = None
            for candidate in event.get("interfaceViews") or []:
                if parse_template_id(candidate["interfaceId"]).qualified_name == interface.qualified_name:
                    if candidate.get("viewValue") is not None:
                        view = self._decode(view_type, candidate["viewValue"])
            found.append((event["contractId"], view))
        return found

    # --- Parties

    async def allocate_party(self, id_hint: str, display_name: str) -> str:
        answer = await self._call("POST", "/v2/parties", {"partyIdHint": id_hint, "identityProviderId": ""})
        return str(answer["partyDetails"]["party"])

    async def known_parties(self) -> list[tuple[str, bool]]:
        parties: list[tuple[str, bool]] = []
        token = ""
        while True:
            answer = await self._call("GET", "/v2/parties" + (f"?pageToken={token}" if token else ""))
            parties.extend((d["party"], bool(d.get("isLocal"))) for d in answer.get("partyDetails", []))
            token = answer.get("nextPageToken") or ""
            if not token:
                return parties

    # --- Users

    async def create_user(self, user: lg.User, rights: list[lg.Right]) -> bool:
        body = {
            "user": {
                "id": user.id,
                "primaryParty": user.primary_party or "",
                "isDeactivated": False,
                "identityProviderId": "",
            },
            "rights": [_right_json(r) for r in rights],
        }
        return await self._call("POST", "/v2/users", body, missing="USER_ALREADY_EXISTS") is not None

    async def user(self, user_id: str) -> lg.User | None:
        answer = await self._call("GET", f"/v2/users/{user_id}", missing="USER_NOT_FOUND")
        return None if answer is None else _user_of(answer["user"])

    async def delete_user(self, user_id: str) -> bool:
        return await self._call("DELETE", f"/v2/users/{user_id}", missing="USER_NOT_FOUND") is not None

    async def users(self) -> list[lg.User]:
        users: list[lg.User] = []
        token = ""
        while True:
            answer = await self._call("GET", "/v2/users" + (f"?pageToken={token}" if token else ""))
            users.extend(_user_of(u) for u in answer.get("users", []))
            token = answer.get("nextPageToken") or ""
            if not token:
                return users

    async def grant_rights(self, user_id: str, rights: list[lg.Right]) -> list[lg.Right] | None:
        body = {"userId": user_id, "rights": [_right_json(r) for r in rights], "identityProviderId": ""}
        answer = await self._call("POST", f"/v2/users/{user_id}/rights", body, missing="USER_NOT_FOUND")
        return None if answer is None else [_right_of(r) for r in answer.get("newlyGrantedRights", [])]

    async def revoke_rights(self, user_id: str, rights: list[lg.Right]) -> list[lg.Right] | None:
        body = {"userId": user_id, "rights": [_right_json(r) for r in rights], "identityProviderId": ""}
        answer = await self._call("PATCH", f"/v2/users/{user_id}/rights", body, missing="USER_NOT_FOUND")
        return None if answer is None else [_right_of(r) for r in answer.get("newlyRevokedRights", [])]

    async def rights(self, user_id: str) -> list[lg.Right] | None:
        answer = await self._call("GET", f"/v2/users/{user_id}/rights", missing="USER_NOT_FOUND")
        return None if answer is None else [_right_of(r) for r in answer.get("rights", [])]

    # --- Time

    async def get_time(self) -> datetime:
        response = await self.http.get(TIME_PATH)
        if response.status_code == 404:
            return datetime.now(UTC)
        if response.status_code != 200:
            await self._call("GET", TIME_PATH)  # raises the participant's error
        return parse_timestamp(response.json()["currentTime"])

    async def set_time(self, time: datetime) -> None:
        response = await self.http.get(TIME_PATH)
        if response.status_code == 404:
            raise lg.NotSupported(
                "setTime: the participant's time is not settable (it runs on the wall clock; a participant of "
                "ours started with --static-time has a clock a script can set)"
            )
        current = response.json()["currentTime"]
        await self._call("POST", TIME_PATH, {"currentTime": current, "newTime": format_timestamp(time)})

    # --- Packages

    async def packages(self) -> list[tuple[str, str]]:
        ids = (await self._call("GET", "/v2/packages")).get("packageIds", [])
        known = {**self.code.packages.dependencies, **self.code.packages.packages}
        return [(known[p].name, known[p].version) for p in ids if p in known]
