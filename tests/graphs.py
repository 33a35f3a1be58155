"""A small builder of valid graph repositories for tests (docs/record.md).

Every method writes exactly the files the record layout names, with records that validate
against ``network.record.models``, and returns the graph-relative path it wrote (or the
node id, for nodes). Lean text is opaque bytes here: nothing parses it; a node's
``statement_hash`` is the SHA-256 of whatever Statement.lean bytes were written.

Typical use::

    b = GraphBuilder(tmp_path)
    b.base()                                   # policy.json, curators.json
    b.target("demo")                           # target.yaml + gate-spec.json
    b.node("demo", "root")                     # META.yaml, Statement.lean, Witness.lean
    part = b.partial("demo", "root", "20260102T000000Z", "alice", "-- approach: split\\n")
    h1 = b.hole("demo", "root", 1, part)       # root--h1, blocked (no witness) by default
    b.merge([part], date="2026-01-02")         # pass attestation + log/merges record
    sha = git_commit(tmp_path, "first")        # fixed author identity

Timestamps in file names are ``YYYYMMDDTHHMMSSZ``; dates in records are ``YYYY-MM-DD`` or
``YYYY-MM-DDTHH:MM:SSZ``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network.record import models as m

FIXED_NAME = "Lemmata Test"
FIXED_EMAIL = "test@lemmata.invalid"
FIXED_TIME = 1_790_000_000  # seconds since the epoch, used for every test commit
ZERO40 = "0" * 40
DEFAULT_TOOLCHAIN = "leanprover/lean4:v4.34.0"
#: the network commit every test graph's gate-spec pins (issue 32: the gate refuses none);
#: a commit of this repository's main, as graph/targets/*/gate-spec.json pin
NETWORK_COMMIT = "7a9f2f5d1c30f4acdc2297b222a60f23ac9b7bf0"
BUILDER_GATE_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
"""The builder's fixed gate key: it signs every attestation :meth:`GraphBuilder.attest`
writes, published as ``keys/builder-gate.json`` (ruling 14: only a gate-signed attestation
is a verdict)."""
BUILDER_GATE_KEY_ID = "builder-gate"
BUILDER_APPROVAL_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
"""The builder's fixed approval key: it signs role records (steward, dormancy, dispute,
shelving, withdrawal, literature) for their actor, as the site does (D-32 v3.33),
published as ``keys/builder-approval.json``."""
BUILDER_APPROVAL_KEY_ID = "builder-approval"
KEYS_VALID_FROM = "2000-01-01"


def sha256_hex(data: bytes) -> str:
    """Lowercase hex SHA-256 of exact bytes."""
    return hashlib.sha256(data).hexdigest()


def _as_bytes(text: str | bytes) -> bytes:
    return text if isinstance(text, bytes) else text.encode("utf-8")


class GraphBuilder:
    """Writes graph files under ``root``; every method returns what it wrote.

    Args:
        root: the graph's root folder (created if absent).
        graph_id: the ``graph_id`` used in policy.json and attestations.
    """

    def __init__(self, root: Path, graph_id: str = "test-graph") -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.graph_id = graph_id
        self._merge_seq = 0
        self._att_n = 0

    # --- raw files ------------------------------------------------------------------

    def write(self, path: str, data: str | bytes) -> str:
        """Write exact bytes (str is UTF-8 encoded) at graph-relative ``path``."""
        full = self.root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_bytes(_as_bytes(data))
        return path

    def write_json(self, path: str, obj: Any) -> str:
        """Write ``obj`` as sorted, indented JSON."""
        return self.write(path, json.dumps(obj, sort_keys=True, indent=2) + "\n")

    def write_yaml(self, path: str, obj: Any) -> str:
        """Write ``obj`` as block YAML."""
        return self.write(path, yaml.safe_dump(obj, sort_keys=True, allow_unicode=True))

    def read(self, path: str) -> bytes:
        """The bytes at graph-relative ``path``."""
        return (self.root / path).read_bytes()

    def sha(self, path: str) -> str:
        """SHA-256 (hex) of the file at graph-relative ``path``."""
        return sha256_hex(self.read(path))

    def remove(self, path: str) -> None:
        """Delete one file."""
        (self.root / path).unlink()

    # --- keys and signatures (ruling 9, ruling 14) -----------------------------------

    def publish_keys(self) -> None:
        """``keys/builder-gate.json`` and ``keys/builder-approval.json`` (once)."""
        from network.signing import public_key_record

        for key, key_id, kind in ((BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID, "gate"),
                                  (BUILDER_APPROVAL_KEY, BUILDER_APPROVAL_KEY_ID, "approval")):
            path = f"keys/{key_id}.json"
            if not (self.root / path).exists():
                rec = public_key_record(key, key_id, kind, KEYS_VALID_FROM)
                self.write_json(path, rec.model_dump(mode="json", by_alias=True,
                                                     exclude_none=True))

    def signed(self, model: type[m.Record], rec: dict[str, Any], signer: str, *,
               kind: str = "approval") -> dict[str, Any]:
        """``rec`` with a ``signature`` over its model's canonical JSON: the approval key
        for ``signer`` (a role act through the site), or with ``kind="gate"`` the gate key."""
        from network.signing import sign

        self.publish_keys()
        key, key_id = ((BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID) if kind == "gate"
                       else (BUILDER_APPROVAL_KEY, BUILDER_APPROVAL_KEY_ID))
        body = {k: v for k, v in rec.items() if k != "signature"}
        sig = sign(model.model_validate(body), key, kind, key_id, signer)
        return {**body, "signature": sig.model_dump()}

    def approval(self, rec: dict[str, Any], model: type[m.Words], signer: str) -> dict[str, Any]:
        """One approval envelope of a words version (``rec`` as written, without
        approvals): the approval key's signature for ``signer`` (ruling 11, D-32 v3.33)."""
        from network.record.trust import approval_body
        from network.signing import sign

        self.publish_keys()
        body = approval_body(model.model_validate({**rec, "approvals": []}))
        return sign(body, BUILDER_APPROVAL_KEY, "approval", BUILDER_APPROVAL_KEY_ID,
                    signer).model_dump()

    # --- graph root -----------------------------------------------------------------

    def base(self, **policy: Any) -> GraphBuilder:
        """policy.json (``policy/v1``, overrides as keywords), curators.json naming
        ``curator`` for every target, and the builder's keys under keys/."""
        self.policy(**policy)
        self.curators([{"pseudonym": "curator", "targets": ["*"]}])
        self.publish_keys()
        return self

    def policy(self, **overrides: Any) -> str:
        """``policy.json``; keywords override fields of ``policy/v1``."""
        return self.write_json("policy.json",
                               {"schema": "policy/v1", "graph_id": self.graph_id, **overrides})

    def curators(self, curators: list[dict[str, Any]]) -> str:
        """``curators.json`` with ``[{pseudonym, targets}]``."""
        return self.write_json("curators.json", {"schema": "curators/v1", "curators": curators})

    # --- targets --------------------------------------------------------------------

    def target(
        self,
        tid: str,
        *,
        cls: str = "open-problem",
        calibration: bool = False,
        title: str | None = None,
        listed: str = "2026-01-01",
        bountied_nodes: list[str] | None = None,
        fidelity: dict[str, Any] | None = None,
        steward: str | None = "steve",
        **extra: Any,
    ) -> str:
        """``targets/<tid>/target.yaml`` and ``gate-spec.json``; a steward record unless
        ``steward`` is None (D-6 v3.17: an open problem without one refuses claims)."""
        rec: dict[str, Any] = {
            "schema": "target/v1", "id": tid, "title": title or f"Target {tid}",
            "class": cls, "calibration": calibration,
            "informal_statement": f"The statement of {tid}.", "listed": listed,
            "bountied_nodes": bountied_nodes or [], **extra,
        }
        if fidelity is not None:
            rec["fidelity"] = fidelity
        self.write_yaml(f"targets/{tid}/target.yaml", rec)
        self.write_json(f"targets/{tid}/gate-spec.json",
                        {"schema": "gate-spec/v1", "lean_toolchain": DEFAULT_TOOLCHAIN,
                         "network_commit": NETWORK_COMMIT})
        if steward is not None:
            self.steward(tid, steward)
        return f"targets/{tid}/target.yaml"

    def steward(self, tid: str, pseudonym: str, since: str = "2026-01-01", *,
                signed: bool = True) -> str:
        """``targets/<tid>/stewards/<pseudonym>.yaml`` (``steward/v3``), signed for the
        steward by the approval key unless ``signed=False``."""
        rec: dict[str, Any] = {
            "schema": "steward/v3", "pseudonym": pseudonym, "target": tid,
            "real_name": f"Real {pseudonym}", "since": since,
            "commitment": "Answer questions within a week.",
        }
        if signed:
            rec = self.signed(m.Steward, rec, pseudonym)
        return self.write_yaml(f"targets/{tid}/stewards/{pseudonym}.yaml", rec)

    def target_status(self, tid: str, declaration: str, date: str, n: int = 1,
                      curator: str = "curator", *, signed: bool = True,
                      starvation_series: dict[str, Any] | None = None,
                      reasoning: str | None = None) -> str:
        """``targets/<tid>/status/<date>-<n>.yaml``: active | dormant | known-result (D-33),
        signed for the curator unless ``signed=False``; ``starvation_series`` the D-25
        series the declaration names (the gate requires it of dormant, issue 18)."""
        day = date[:10]
        rec: dict[str, Any] = {
            "schema": "target-status/v1", "declaration": declaration, "curator": curator,
            "date": date,
            "reasoning": f"declared {declaration}" if reasoning is None else reasoning,
        }
        if starvation_series is not None:
            rec["starvation_series"] = starvation_series
        if signed:
            rec = self.signed(m.TargetStatusRecord, rec, curator)
        return self.write_yaml(f"targets/{tid}/status/{day}-{n}.yaml", rec)

    def approach(self, tid: str, ts: str, who: str, title: str, state: str = "proposed",
                 nodes: list[str] | None = None) -> str:
        """``targets/<tid>/approaches/<ts>-<who>.yaml`` (D-14)."""
        return self.write_yaml(f"targets/{tid}/approaches/{ts}-{who}.yaml", {
            "schema": "approach/v1", "target": tid, "author": who, "date": _ts_date(ts),
            "title": title, "state": state, "nodes": nodes or [],
        })

    # --- nodes ----------------------------------------------------------------------

    def node_dir(self, tid: str, nid: str) -> str:
        """``targets/<tid>/nodes/<nid>``."""
        return f"targets/{tid}/nodes/{nid}"

    def node(
        self,
        tid: str,
        nid: str,
        *,
        statement: str | bytes | None = None,
        witness: str | bytes | bool = True,
        proof: str | bytes | None = None,
        refutation: str | bytes | None = None,
        vacuity: str | bytes | None = None,
        relation: str | bytes | None = None,
        origin: str = "authored",
        declaration: str | None = None,
        **meta: Any,
    ) -> str:
        """One node directory: META.yaml (statement_hash of the Statement bytes),
        Statement.lean, Witness.lean (unless ``witness=False``), and any of Proof,
        Refutation, Vacuity, Relation given. ``meta`` keywords go into META.yaml
        (deps, lemmas, hole, supersedes, variant, speculative, library_tags, ...).

        Returns the node id. Nothing is merged: call :meth:`merge` for that.
        """
        d = self.node_dir(tid, nid)
        stmt = _as_bytes(statement if statement is not None
                         else f"theorem stmt_{_ident(nid)} : True := sorry -- {tid}/{nid}\n")
        self.write(f"{d}/Statement.lean", stmt)
        if witness is True:
            self.write(f"{d}/Witness.lean", f"example : True := trivial -- {nid}\n")
        elif witness:
            self.write(f"{d}/Witness.lean", witness)
        for name, text in (("Proof", proof), ("Refutation", refutation),
                           ("Vacuity", vacuity), ("Relation", relation)):
            if text is not None:
                self.write(f"{d}/{name}.lean", text)
        rec = {"schema": "meta/v1", "id": nid, "target": tid,
               "declaration": declaration or f"stmt_{_ident(nid)}",
               "statement_hash": sha256_hex(stmt), "origin": origin, **meta}
        self.write_yaml(f"{d}/META.yaml", rec)
        return nid

    def hole(self, tid: str, parent: str, k: int, route: str, *, name: str | None = None,
             witness: str | bytes | bool = False, origin: str = "compiler-derived",
             nid: str | None = None, **meta: Any) -> str:
        """A hole node ``<parent>--h<k>`` cut by the partial at ``route`` (ruling 4).

        Without ``witness`` it is blocked until one is supplied (D-29). Returns its id.
        """
        hid = nid or f"{parent}--h{k}"
        return self.node(tid, hid, witness=witness, origin=origin,
                         hole={"parent": parent, "route": route, "k": k,
                               "name": name or f"h{k}"}, **meta)

    def proof(self, tid: str, nid: str, text: str | bytes | None = None,
              kind: str = "Proof") -> str:
        """Write ``<node>/<kind>.lean`` (Proof, Refutation, Vacuity, Relation, Witness)."""
        return self.write(f"{self.node_dir(tid, nid)}/{kind}.lean",
                          text if text is not None else f"-- {kind} of {nid}\n")

    def partial(self, tid: str, nid: str, ts: str, who: str, text: str | bytes | None = None,
                kind: str = "partial") -> str:
        """``attempts/<ts>-<who>-<kind>.lean``; kind is partial, reduction or alternate.
        A route is identified by this path (ruling 4)."""
        body = text if text is not None else f"-- approach: route of {who}\n-- {nid} {ts}\n"
        return self.write(f"{self.node_dir(tid, nid)}/attempts/{ts}-{who}-{kind}.lean", body)

    def carried_witness(self, tid: str, nid: str, ts: str, who: str, k: int) -> str:
        """``attempts/<ts>-<who>-partial.h<k>.witness.lean`` (D-29 v3.24)."""
        return self.write(f"{self.node_dir(tid, nid)}/attempts/{ts}-{who}-partial.h{k}.witness.lean",
                          f"-- witness for hole {k}\n")

    def postmortem(self, tid: str, nid: str, ts: str, who: str, *,
                   route_class: str = "induction", failure_class: str = "route-dead-ends",
                   outcome: str = "refuted-route", route: str = "a route",
                   **extra: Any) -> str:
        """``attempts/<ts>-<who>-postmortem.yaml`` (``d13/v1``, D-13)."""
        return self.write_yaml(f"{self.node_dir(tid, nid)}/attempts/{ts}-{who}-postmortem.yaml", {
            "schema": "d13/v1", "node": f"{tid}/{nid}", "contributor": who, "route": route,
            "route_class": route_class, "outcome": outcome,
            "terminal_goal_state": "⊢ False", "failure_class": failure_class, **extra,
        })

    def annex(self, tid: str, nid: str, text: str = "An informal argument.\n",
              author: str = "alice", date: str = "2026-01-01") -> str:
        """``annex/<sha>.md`` plus its ``annex/v1`` metadata (D-31); returns the .md path."""
        data = _as_bytes(text)
        h = sha256_hex(data)
        d = self.node_dir(tid, nid)
        self.write(f"{d}/annex/{h}.md", data)
        self.write_yaml(f"{d}/annex/{h}.yaml", {
            "schema": "annex/v1", "sha256": h, "author": author, "licence": "CC-BY-4.0",
            "title": "An argument", "date": date,
        })
        return f"{d}/annex/{h}.md"

    # --- node records ---------------------------------------------------------------

    def _node_record(self, tid: str, nid: str, sub: str, ts: str, who: str,
                     rec: dict[str, Any]) -> str:
        return self.write_yaml(f"{self.node_dir(tid, nid)}/{sub}/{ts}-{who}.yaml", rec)

    def gloss(self, tid: str, nid: str, ts: str, who: str, *, describes: str | None = None,
              label: str | None = None, text: str = "What the statement says.",
              supersedes: str | None = None, kind: str = "gloss",
              approved_by: list[str] | None = None) -> str:
        """``gloss/<ts>-<who>.yaml`` (or ``explainer/``) describing a file (default the
        node's Statement.lean), optionally with a label (D-25 v3.44) and approvals signed
        by the approval key for each of ``approved_by`` (ruling 11)."""
        path = describes or f"{self.node_dir(tid, nid)}/Statement.lean"
        rec: dict[str, Any] = {
            "schema": f"{kind}/v1", "describes": path, "describes_sha256": self.sha(path),
            "author": who, "date": _ts_date(ts), "licence": "CC-BY-4.0",
            "sections": [{"steps": [], "text": text, "drafted_with": []}],
        }
        if supersedes:
            rec["supersedes"] = supersedes
        if label is not None and kind == "gloss":
            rec["label"] = label
        if approved_by:
            model = m.Gloss if kind == "gloss" else m.Explainer
            rec["approvals"] = [self.approval(rec, model, who) for who in approved_by]
        return self._node_record(tid, nid, kind, ts, who, rec)

    def literature(self, tid: str, nid: str, ts: str, who: str, status: str, *,
                   confirms: str | None = None, disputes: str | None = None,
                   supersedes: str | None = None, summary: str = "A literature note.",
                   signed: bool = True) -> str:
        """``literature/<ts>-<who>.yaml`` (D-25 v3.35/v3.45), signed for ``who`` unless
        ``signed=False`` (only a steward's or curator's signature makes it a reading)."""
        rec: dict[str, Any] = {"schema": "literature/v1", "status": status, "summary": summary,
                               "by": who, "date": _ts_date(ts)}
        for k, v in (("confirms", confirms), ("disputes", disputes), ("supersedes", supersedes)):
            if v:
                rec[k] = v
        if signed:
            rec = self.signed(m.Literature, rec, who)
        return self._node_record(tid, nid, "literature", ts, who, rec)

    def shelving(self, tid: str, nid: str, ts: str, who: str, *, subject: str | None = None,
                 lifts: str | None = None, cause: str = "not worth pursuing now",
                 signed: bool = True) -> str:
        """``shelving/<ts>-<who>.yaml`` (D-14 v3.47); ``subject`` defaults to the node id;
        ``lifts`` names an earlier shelving path to lift; signed unless ``signed=False``."""
        rec: dict[str, Any] = {"schema": "shelving/v1", "subject": subject or nid,
                               "cause": cause, "by": who, "date": _ts_date(ts)}
        if lifts:
            rec["lifts"] = lifts
        if signed:
            rec = self.signed(m.Shelving, rec, who)
        return self._node_record(tid, nid, "shelving", ts, who, rec)

    def withdrawal(self, tid: str, nid: str | None, ts: str, who: str, withdraws: str,
                   reason: str = "withdrawn", signed: bool = True) -> str:
        """A ``withdrawal/v1`` under the node (or the target when ``nid`` is None), signed
        for ``who`` unless ``signed=False``."""
        rec: dict[str, Any] = {"schema": "withdrawal/v1", "withdraws": withdraws, "by": who,
                               "reason": reason, "date": _ts_date(ts)}
        if signed:
            rec = self.signed(m.Withdrawal, rec, who)
        if nid is None:
            return self.write_yaml(f"targets/{tid}/withdrawals/{ts}-{who}.yaml", rec)
        return self._node_record(tid, nid, "withdrawals", ts, who, rec)

    def defect(self, tid: str, nid: str, ts: str, who: str, cls: str = "misformalization",
               claim: str = "The statement is wrong.") -> str:
        """``defects/<ts>-<who>.yaml`` (D-16)."""
        return self._node_record(tid, nid, "defects", ts, who, {
            "schema": "defect/v1", "class": cls, "line": 1, "claim": claim, "by": who,
            "date": _ts_date(ts)})

    def dispute(self, tid: str, nid: str, ts: str, who: str, defect: str,
                reason: str = "defect confirmed", signed: bool = True) -> str:
        """``disputes/<ts>-<who>.yaml``: a curator accepts a defect claim (D-18 v3.28),
        signed for ``who`` unless ``signed=False``."""
        rec: dict[str, Any] = {"schema": "dispute/v1", "defect": defect, "curator": who,
                               "date": _ts_date(ts), "reason": reason}
        if signed:
            rec = self.signed(m.Dispute, rec, who)
        return self._node_record(tid, nid, "disputes", ts, who, rec)

    def proposed_for(self, tid: str, nid: str, ts: str, who: str, for_node: str) -> str:
        """``proposed-for/<ts>-<who>.yaml`` (D-14 v3.26)."""
        return self._node_record(tid, nid, "proposed-for", ts, who, {
            "schema": "proposed-for/v1", "node": for_node, "by": who, "date": _ts_date(ts)})

    def closure(self, tid: str, nid: str, link: str, inputs: list[tuple[str, str]], *,
                verdict: str = "proved", route: str | None = None, k: int = 1,
                merge_seq: int = 1, signed: bool = True) -> str:
        """``closure/route-<k>.json`` | ``resolves.json`` | ``refutes.json`` (D-12 v3.42);
        ``inputs`` is ``[(node, proof path)]``; signed by the builder's gate key unless
        ``signed=False`` (ruling 14)."""
        name = f"route-{k}.json" if link == "route" else f"{link}.json"
        rec: dict[str, Any] = {
            "schema": "closure/v1", "target": tid, "node": nid, "link": link,
            "inputs": [{"node": n, "proof": p} for n, p in inputs], "verdict": verdict,
            "merge_seq": merge_seq, "toolchain": DEFAULT_TOOLCHAIN,
        }
        if route:
            rec["route"] = route
        if signed:
            rec = self.signed(m.Closure, rec, "gate", kind="gate")
        return self.write_json(f"{self.node_dir(tid, nid)}/closure/{name}", rec)

    # --- gate records ---------------------------------------------------------------

    def attest(self, paths: list[str], *, verdict: str = "pass", date: str = "2026-01-01",
               target: str | None = None, node: str | None = None,
               artifact_kind: str = "proof", name: str | None = None,
               graph_commit: str = ZERO40, signed: bool = True) -> str:
        """``attestations/<name>.json`` covering each path with its current SHA-256,
        signed by the builder's gate key unless ``signed=False`` (ruling 14).

        ``target``/``node`` default to those of the first path under ``targets/``.
        """
        if target is None or node is None:
            t, n = _target_node_of(paths)
            target, node = target or t, node or n
        self._att_n += 1
        name = name or f"{self._att_n:06d}"
        rec = {
            "schema": "attestation/v1", "graph_id": self.graph_id, "target": target,
            "node": node, "artifact_kind": artifact_kind,
            "artifacts": [{"path": p, "sha256": self.sha(p)} for p in paths],
            "toolchain": DEFAULT_TOOLCHAIN, "gate_spec_sha256": "0" * 64,
            "base_commit": ZERO40, "head_commit": ZERO40, "graph_commit": graph_commit,
            "verdict": verdict, "steps": [], "timestamp": date,
        }
        if signed:
            rec = self.signed(m.Attestation, rec, "gate", kind="gate")
        return self.write_json(f"attestations/{name}.json", rec)

    def merge_record(self, artifacts: list[str], date: str, *, seq: int | None = None,
                     attestation: str | None = None, submitter: str | None = None) -> str:
        """``log/merges/<seq:06d>.json`` (ruling 2); ``seq`` defaults to the next one; its
        merge_commit is :func:`merge_commit_of` ``(seq)``."""
        self._merge_seq = seq if seq is not None else self._merge_seq + 1
        rec: dict[str, Any] = {
            "schema": "merge/v1", "seq": self._merge_seq,
            "merge_commit": merge_commit_of(self._merge_seq),
            "date": date, "pull_request": f"local/{self._merge_seq}", "artifacts": artifacts,
        }
        if attestation:
            rec["attestation"] = attestation
        if submitter:
            rec["submitter"] = submitter
        return self.write_json(f"log/merges/{self._merge_seq:06d}.json", rec)

    def merge(self, paths: list[str], date: str = "2026-01-01", **attest: Any) -> str:
        """Mark ``paths`` merged: a pass attestation covering them plus a merge record
        dated ``date``. Returns the attestation path."""
        att = self.attest(paths, date=date, **attest)
        self.merge_record(paths, date, attestation=att)
        return att

    # --- ledger ---------------------------------------------------------------------

    def ledger_line(self, seq: int, k: int, line: str, identity: str, target: str,
                    artifact: str, node: str | None = None) -> str:
        """``ledger/<seq:06d>-<k>.json`` (``ledger-line/v1``, D-19)."""
        rec: dict[str, Any] = {
            "schema": "ledger-line/v1", "merge_seq": seq, "k": k, "line": line,
            "identity": identity, "target": target, "artifact": artifact,
            "artifact_sha256": self.sha(artifact),
        }
        if node:
            rec["node"] = node
        return self.write_json(f"ledger/{seq:06d}-{k}.json", rec)

    def revocation(self, seq: int, k: int, revokes: str, by: str = "curator",
                   reason: str = "revoked") -> str:
        """``ledger/<seq:06d>-<k>.json`` holding a ``revocation/v1`` (D-18, D-19)."""
        return self.write_json(f"ledger/{seq:06d}-{k}.json", {
            "schema": "revocation/v1", "merge_seq": seq, "k": k, "revokes": revokes,
            "reason": reason, "by": by})


def merge_commit_of(seq: int) -> str:
    """The fake 40-hex merge commit the builder writes into merge record ``seq``; pass it
    as an attestation's ``graph_commit`` to say the run included that merge (D-8 stale)."""
    return f"{seq:040x}"


def git_commit(root: Path, message: str) -> str:
    """Stage every file under ``root`` and commit it with a fixed author and time.

    Initialises a repository at ``root`` when there is none. Returns the commit's 40-hex id.
    """
    import pygit2

    root = Path(root)
    if (root / ".git").exists():
        repo = pygit2.Repository(str(root))
    else:
        repo = pygit2.init_repository(str(root), initial_head="main")
    repo.index.add_all()
    repo.index.write()
    tree = repo.index.write_tree()
    sig = pygit2.Signature(FIXED_NAME, FIXED_EMAIL, FIXED_TIME, 0)
    parents = [] if repo.head_is_unborn else [repo.head.target]
    oid = repo.create_commit("HEAD", sig, sig, message, tree, parents)
    return str(oid)


def _ident(nid: str) -> str:
    return nid.replace("-", "_").replace("@", "_")


def _ts_date(ts: str) -> str:
    """``20260102T030405Z`` → ``2026-01-02T03:04:05Z``; a date passes through."""
    if len(ts) == 16 and ts[8] == "T":
        return f"{ts[0:4]}-{ts[4:6]}-{ts[6:8]}T{ts[9:11]}:{ts[11:13]}:{ts[13:15]}Z"
    return ts


def _target_node_of(paths: list[str]) -> tuple[str, str]:
    for p in paths:
        parts = p.split("/")
        if len(parts) >= 4 and parts[0] == "targets" and parts[2] == "nodes":
            return parts[1], parts[3]
        if len(parts) >= 2 and parts[0] == "targets":
            return parts[1], "root"
    return "none", "root"
