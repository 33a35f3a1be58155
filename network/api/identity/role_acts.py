"""Role acts the service files: signed with the network's approval key for the signed-in
role holder (ruling 14; D-32 v3.33: "a steward record and a words approval may be made by
signing in ... and signed by the network's approval key").

The service sets every actor field from the authenticated identity and never from the
request body (:func:`network.api.submit.records.same_identity`); a record whose effect rests on
its author's role (a steward's or curator's withdrawal of another's version, and any other
role record the service writes) is signed here, so step 2's role-signature check
(:mod:`network.gate.records.actors`) and derive (:mod:`network.record.derive`) accept it. Without
the approval key the service refuses such an act with ``approval-key-missing`` rather than
open a pull request the gate would refuse.
"""

from __future__ import annotations

from typing import Any

from network import signing
from network.api.service import Service, Who
from network.errors import LemmataError, define_once
from network.record import models as m

define_once("approval-key-missing", None, 503,
            "A role act filed through the service is signed with the network's approval "
            "key, and this service was started without one (ruling 14).",
            "Start the service with its keys (`lemmata up` creates the approval key in the "
            "data directory and publishes it under keys/), or sign the record with your own "
            "SSH key and push it with plain git.")


def sign_role_act(svc: Service, model: type[m.Record], record: dict[str, Any],
                  who: Who) -> dict[str, Any]:
    """``record`` (its JSON form, as :func:`network.api.submit.records.validate_record` returns
    it) with a ``signature``: the approval key's Ed25519 signature over the model's
    canonical JSON, ``signer`` the caller's pseudonym (ruling 9).

    Raises:
        LemmataError: ``approval-key-missing`` (503) when the service holds no approval
            key; pydantic's ValidationError is not raised for a record already validated.
    """
    keys = svc.keys or {}
    if "approval" not in keys:
        raise LemmataError("approval-key-missing", f"{model.SCHEMA_KIND} by "
                           f"{who.pseudonym} rests on a role and must be signed")
    key_id, key = keys["approval"]
    body = {k: v for k, v in record.items() if k != "signature"}
    sig = signing.sign(model.model_validate(body), key, "approval", key_id, who.pseudonym)
    return {**body, "signature": sig.model_dump()}
