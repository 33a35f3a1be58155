"""Step 2's rules for a pertinence signature (D-30 v3.12; issue 18).

A ``pertinence/v1`` record under ``targets/<t>/nodes/<variant>/pertinence/`` is one
steward's or curator's signature on a related variant's pertinence sentence
(:mod:`network.record.pertinence`). Step 2 admits it only when, against the base graph:

* it is signed by its ``by`` holding a steward's role on the target or a curator's, on
  the record's date and on the base's (``role-act-unsigned``, ``role-key-unbound``,
  ``role-signature-invalid``: :func:`network.record.trust.check_role_signature`);
* its ``target`` and ``variant`` are where it is filed (``pertinence-elsewhere``: a
  signature copied onto another variant or target);
* the node is a related variant on main (``pertinence-not-related``: resolves, partial
  and refutes variants are protected by their kernel-checked relation and need none, and
  a variant is signed once it is on the record, never in the pull request proposing it)
  that carries a sentence (``pertinence-no-sentence``);
* the hash is that of the sentence the base's META.yaml holds
  (``pertinence-sentence-mismatch``: an edited sentence needs a new signature);
* no signature that counts already stands for this variant and sentence, and the pull
  request adds no second one (``pertinence-already-signed``: one act per variant and
  sentence).

The service refuses the same before it opens a pull request
(:mod:`network.api.records.pertinence`).
"""

from __future__ import annotations

from collections.abc import Iterable

from network.errors import define
from network.gate.result import Diagnostic
from network.record import derive, pertinence
from network.record import models as m
from network.record.read.loader import Graph

define("pertinence-elsewhere", 2, 422,
       "A pertinence signature names another target or variant than the node it is filed "
       "under: a signature is bound to one variant of one target (D-30 v3.12).",
       "File the signature under the variant it signs, naming that target and node; a "
       "signature is never moved onto another variant.")
define("pertinence-not-related", 2, 422,
       "A pertinence signature is filed under a node that is not a related variant: "
       "resolves, partial and refutes variants are protected by their kernel-checked "
       "relation and carry no signature (D-30 v3.12).",
       "Sign only a related variant's sentence; a proved relation needs none.")
define("pertinence-no-sentence", 2, 422,
       "The related variant carries no pertinence sentence (META.yaml variant.pertinence), "
       "so there is nothing to sign (D-30 v3.12).",
       "Propose a revision of the variant with its sentence, then sign that.")
define("pertinence-sentence-mismatch", 2, 409,
       "A pertinence signature's sentence_sha256 is not the SHA-256 of the sentence the "
       "variant's META.yaml holds: the sentence was edited after signing, or another was "
       "signed (D-30 v3.12).",
       "Read the sentence again (get_node's pertinence) and sign its exact UTF-8 bytes.")
define("pertinence-already-signed", 2, 409,
       "This variant's sentence already carries a signature that counts, or the pull "
       "request adds two: one act per variant and sentence (D-30 v3.12).",
       "Nothing to sign: the variant already reads pertinent (graph.json "
       "variant.pertinence_signed).")


def pertinence_findings(base: Graph, target: str, node: str | None, path: str,
                        rec: m.Pertinence) -> list[Diagnostic]:
    """The findings on the pertinence signature ``rec`` at ``path``, filed under
    ``target``/``node`` of ``base``: placement and sentence first, then the role
    signature (on the record's date and the base's), then one act per variant and
    sentence against the base.

    Returns:
        Diagnostics with the codes of this module's docstring; ``pertinence-not-related``
        for a target or node the base does not hold (a variant is signed once it is on
        the record, never in the pull request proposing it).
    """
    t = base.targets.get(target)
    if node is None or t is None or node not in t.nodes:
        # a sentence is signed once its variant is on the record: never in the pull
        # request that proposes it, where nothing it names could yet be judged
        return [Diagnostic("pertinence-not-related", f"no variant {target}/{node} on main "
                           "to sign", path)]
    problem = pertinence.record_problem(base, target, node, rec)
    if problem is not None:
        return [Diagnostic(problem[0], problem[1], path)]
    now = derive.now(base)
    sig = pertinence.signature_problem(base, target, rec, (now,) if now else ())
    if sig is not None:
        return [Diagnostic(sig[0], f"a pertinence signature is a steward's of {target} or "
                           f"a curator's act: {sig[1]}", path)]
    st = pertinence.pertinence_state(base, target, node)
    if st is not None and st.signature is not None:
        return [Diagnostic("pertinence-already-signed", f"{st.signature.path} by "
                           f"{st.signature.by} already signs this sentence", path)]
    return []


def batch_findings(records: Iterable[tuple[str, str, m.Pertinence]]) -> list[Diagnostic]:
    """``pertinence-already-signed`` on every pertinence record of one pull request after
    the first for the same target, variant and sentence (``(path, target, record)``)."""
    seen: set[tuple[str, str, str]] = set()
    out: list[Diagnostic] = []
    for path, tid, rec in sorted(records, key=lambda x: x[0]):
        key = (tid, rec.variant, rec.sentence_sha256)
        if key in seen:
            out.append(Diagnostic("pertinence-already-signed", f"a second signature of "
                                  f"{tid}/{rec.variant}'s sentence in one pull request",
                                  path))
        seen.add(key)
    return out
