"""Step 2's rules for the records that make roles: steward acts and curators.json
(D-32 v3.17/v3.33/v3.34, D-22 v3.33; ruling 14).

- A ``steward/v4`` act (``targets/<id>/steward-acts/<ts>-<pseudonym>.yaml``) is the
  steward's own act, filed and signed by them (SSH, or the site's approval key), or a
  curator's admission filed and signed by the curator ``admitted_by`` names; the panel rule
  of :func:`network.record.panel_roles.act_finding` is judged against the base graph's
  stewardships, so what step 2 admits is what derive counts.
- ``curators.json`` changes only by a pull request the owner (policy/v2 ``owner``) files
  and signs as ``curators/v2``: no one adds themselves.
- A credit correction (``correction/v1``, D-19 v3.27), the one file a pull request may add
  under ``ledger/``, is a listed curator's signed act on the corrected line's target that
  the post-merge job can apply: :func:`correction_findings` holds it to exactly what
  :func:`network.record.derive.pending_corrections` applies.
"""

from __future__ import annotations

from collections.abc import Iterable

from network.errors import LemmataError, define
from network.gate.artifacts import Artifact, Kind
from network.gate.diff import Diff
from network.gate.result import Diagnostic
from network.record import derive, panel_roles, trust
from network.record import models as m
from network.record.read.loader import Graph, parse_record

define("steward-acts-batched", 2, 422,
       "A pull request carries more than one steward act. Each is judged against main as "
       "it stands (the cap, the panel, admission), so two in one merge could together do "
       "what neither may (D-32 v3.34).",
       "Open one pull request per steward act.")
define("correction-misplaced", 2, 422,
       "A credit correction's file is not ledger/<merge_seq>-<k>.json for its own "
       "merge_seq and k, or its merge_seq is not the corrected line's (a later merge's "
       "ledger slots are the post-merge job's; D-19 v3.27).",
       "Name the file after the record's merge_seq (six digits) and k, as the service does.")
define("correction-does-not-apply", 2, 409,
       "A credit correction the post-merge job would not apply: `credited` is not the "
       "identity the line credits, `should_be` is that identity, or the line is already "
       "revoked (D-19 v3.27: revoke the entry and write the corrected one, once).",
       "Read the line (GET /ledger.json): name the identity it credits in `credited` and "
       "another, or none, in `should_be`; a revoked line is corrected no further.")
define("curators-not-owner-signed", 2, 403,
       "curators.json changes only by a pull request the owner files and signs: "
       "curators/v2 signed by the pseudonym policy.json's owner names (D-22 v3.33).",
       "Ask the owner to make the change; curators are named by the owner and no one adds "
       "themselves.")


def judged_signature(body: m.Record, sig: m.Signature | None, signer: str, check: trust.RoleCheck,
            dates: Iterable[str | None], base: Graph, what: str,
            path: str) -> list[Diagnostic]:
    """The role signature ``sig`` of ``signer`` over ``body`` judged on each of ``dates``
    (the record's own date and the base's now: a backdated act by a former holder, or a
    retired key, must not pass; ruling 2, ruling 14), ``check`` saying who holds the role.

    Returns:
        No finding, or one with the first failing date's code
        (:func:`network.record.trust.check_role_signature`: ``role-act-unsigned``,
        ``role-signature-invalid``, ``role-key-unbound``), its detail prefixed by ``what``.
    """
    for when in dict.fromkeys(d for d in dates if d is not None):
        try:
            trust.check_role_signature(body, sig, actors=frozenset({signer}), holds=check,
                                       at_date=when, keys=base.keys,
                                       identities=base.identities)
        except LemmataError as exc:
            return [Diagnostic(exc.code, f"{what}: {exc.detail}", path)]
    return []


def steward_act_findings(base: Graph, tid: str, path: str, rec: m.StewardAct,
                         submitter: str | None) -> list[Diagnostic]:
    """Every step-2 finding on one steward/v4 act added under ``targets/<tid>/``.

    Codes: ``id-mismatch`` (its target is another); ``steward-act-not-own`` (the
    submitter or the signer is not the steward it names, or for a curator's admission
    the curator ``admitted_by`` names); the panel codes of
    :func:`network.record.panel_roles.act_finding`; ``role-act-unsigned``,
    ``role-key-unbound``, ``role-signature-invalid`` (the signature, e.g. a forged
    approval).
    """
    if rec.target != tid:
        return [Diagnostic("id-mismatch", f"target {rec.target!r} filed under {tid}", path)]
    signer = panel_roles.expected_signer(rec)
    if submitter != signer:
        return [Diagnostic("steward-act-not-own", f"filed by {submitter!r}; this "
                           f"{rec.action} of {rec.pseudonym} is {signer}'s act", path)]
    now = derive.now(base)
    cur = set(derive.curators_of(base, tid))
    found = panel_roles.act_finding(derive.panel_state(base).state, base, cur, rec,
                                    now or rec.date)
    if found is not None:
        return [Diagnostic(found[0], found[1], path)]
    curator_admits = signer != rec.pseudonym

    def holds(who: str, _date: str) -> bool:
        return who in cur if curator_admits else who == rec.pseudonym

    return judged_signature(rec, rec.signature, signer, holds, (rec.date, now), base,
                   "a steward act is signed by its actor", path)


def steward_batch_findings(artifacts: Iterable[Artifact]) -> list[Diagnostic]:
    """``steward-acts-batched`` on every steward act after the first of a pull request:
    each act is judged against the base graph alone (D-32 v3.34), so they go one at a
    time and what step 2 admits stays what derive counts."""
    paths = sorted(p for a in artifacts if a.kind is Kind.STEWARD_ACT for p in a.paths)
    return [Diagnostic("steward-acts-batched", f"{len(paths)} steward acts in one pull "
                       "request", p) for p in paths[1:]]


def curators_findings(diff: Diff, base: Graph, artifacts: Iterable[Artifact],
                      submitter: str | None) -> list[Diagnostic]:
    """The owner's rule over a pull request changing ``curators.json`` (D-22 v3.33).

    Codes: ``curators-not-owner-signed`` (no owner bound in policy.json, a curators/v1
    file, a submitter or signer who is not the owner); ``role-act-unsigned``,
    ``role-key-unbound``, ``role-signature-invalid`` (the owner's signature does not
    verify, e.g. a forged approval). A file that does not parse is step 2's record
    check's to report.
    """
    out: list[Diagnostic] = []
    owner = panel_roles.policy_numbers(base).owner

    def is_owner(who: str, _date: str) -> bool:
        return who == owner

    for art in artifacts:
        if art.kind is not Kind.CURATORS:
            continue
        path = art.main
        ch = next(c for c in diff.changes if c.path == path)
        rec, problems = parse_record(path, diff.new_bytes(ch), m.Curators)
        if rec is None or problems:
            continue
        if owner is None:
            out.append(Diagnostic("curators-not-owner-signed", "policy.json binds no owner",
                                  path))
            continue
        sig = rec.signature if isinstance(rec, m.CuratorsV2) else None
        if submitter != owner or sig is None or sig.signer != owner:
            out.append(Diagnostic("curators-not-owner-signed", f"filed by {submitter!r}, "
                                  f"signed by {sig.signer if sig else None!r}; the owner "
                                  f"is {owner!r}", path))
            continue
        assert isinstance(rec, m.CuratorsV2)
        out.extend(judged_signature(rec, sig, owner, is_owner,
                           (rec.date, derive.now(base)), base,
                           "curators.json is signed by the owner", path))
    return out


def correction_findings(base: Graph, tid: str, path: str,
                        rec: m.Correction) -> list[Diagnostic]:
    """Step 2 on a credit correction added at ``path`` (D-19 v3.27, D-18 v3.27): filed
    at ``ledger/<merge_seq:06d>-<k>.json`` (``correction-misplaced``), naming a ledger line
    of ``tid`` on ``base`` (``correction-line-unknown``) that credits ``credited``, is not
    revoked, and would credit someone else (``correction-does-not-apply``), and signed by
    its ``by`` as a listed curator of ``tid`` on the base's date (``role-act-unsigned``,
    ``role-signature-invalid``, ``role-key-unbound``): what
    :func:`network.record.derive.pending_corrections` then applies."""
    if path != f"ledger/{rec.merge_seq:06d}-{rec.k}.json":
        return [Diagnostic("correction-misplaced", f"merge_seq {rec.merge_seq} and k "
                           f"{rec.k} name ledger/{rec.merge_seq:06d}-{rec.k}.json", path)]
    line = next((rf.record for rf in base.ledger if rf.path == rec.corrects
                 and isinstance(rf.record, m.LedgerLine)), None)
    if line is None or line.target != tid:
        return [Diagnostic("correction-line-unknown", f"no ledger line {rec.corrects} of "
                           f"{tid}", path)]
    if rec.merge_seq != line.merge_seq:  # a later merge's slot is the post-merge job's own
        return [Diagnostic("correction-misplaced", f"merge_seq {rec.merge_seq} is not the "
                           f"corrected line's ({line.merge_seq})", path)]
    revoked = any(isinstance(rf.record, m.Revocation) and rf.record.revokes == rec.corrects
                  for rf in base.ledger)
    why = ("the line is already revoked" if revoked else
           f"the line credits {line.identity!r}, not {rec.credited!r}"
           if rec.credited != line.identity else
           f"{rec.should_be!r} is already credited" if rec.should_be == line.identity
           else "")
    if why:
        return [Diagnostic("correction-does-not-apply", why, path)]
    when = derive.now(base)
    if when is None:  # a line implies a merge; fail closed all the same
        return [Diagnostic("correction-does-not-apply", "nothing has merged", path)]
    cur = derive.curators_of(base, tid)
    return judged_signature(rec, rec.signature, rec.by, lambda who, _d: who in cur, (when,), base, "a credit correction is a listed curator's "
                   "act (D-19 v3.27)", path)
