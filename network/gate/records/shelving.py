"""Step 2's reach rules for a shelving (D-14 v3.47; D-35 "shelving"; issue 13).

A shelving under ``nodes/<node>/shelving/`` names its ``subject``: the node's own
statement (its id) or one of the node's merged decompositions (the route's path). Derive
keys every shelving by its subject alone (:mod:`network.record.derive`), so without these
rules a record filed under one node could shelve another, or retire a decomposition of
another node. The service refuses the same before it opens a pull request
(:mod:`network.api.records.shelving`); step 2 refuses a hand-opened one:

* ``shelving-root``: a shelving (not a lift) of the target's root statement — the reach
  of a shelving stops at the root (v3.47);
* ``shelving-statement-used``: a shelving of a statement a merged proof uses, which may
  not be shelved at all (v3.47);
* ``shelving-subject-foreign``: a subject that is neither the node's own id nor one of
  its merged decompositions ("a decomposition that is not the node's").

What may reach is read from the base graph through :func:`network.record.derive.
shelving_reach`, the same index derive reads ``shelved`` from.
"""

from __future__ import annotations

from network.errors import define
from network.gate.result import Diagnostic
from network.record import derive
from network.record import models as m
from network.record.read.loader import Graph

define("shelving-root", 2, 422,
       "A shelving names the target's root statement; the reach of a shelving stops at "
       "the root, which is never shelved (D-14 v3.47).",
       "Shelve a statement beneath the root, or retire one of the root's merged "
       "decompositions by naming its file as the scope.")
define("shelving-statement-used", 2, 409,
       "A shelving names a statement that a merged proof uses (a dependency of a merged "
       "Proof.lean): such a statement may not be shelved at all (D-14 v3.47).",
       "Nothing to shelve: a kernel-checked use keeps the statement live. Retire the "
       "decomposition that made it instead, if that is the judgment.")
define("shelving-subject-foreign", 2, 422,
       "A shelving's subject is neither the node it is filed under nor one of that node's "
       "merged decompositions (D-14 v3.47): a decomposition that is not the node's.",
       "File the shelving under the node it judges: its subject is that node's id, or the "
       "path of one of its merged partials or reductions (attempts/...).")


def shelving_findings(base: Graph, target: str, node: str, path: str,
                      rec: m.Shelving) -> list[Diagnostic]:
    """The reach findings on the shelving ``rec`` at ``path``, filed under
    ``target``/``node`` of ``base``.

    Returns:
        Diagnostics with codes ``shelving-root``, ``shelving-statement-used`` and
        ``shelving-subject-foreign``; none for a node the base does not hold (step 2's
        placement reports it).
    """
    t = base.targets.get(target)
    if t is None or node not in t.nodes:
        return []
    reach = derive.shelving_reach(base, target, node)
    lifting = rec.lifts is not None
    if rec.subject == node:
        if lifting:
            return []
        if reach.root:
            return [Diagnostic("shelving-root", f"{node} is the root of {target}", path)]
        if reach.used_by_merged_proof:
            return [Diagnostic("shelving-statement-used", f"a merged proof of {target} uses "
                               f"{node}", path)]
        return []
    if rec.subject in reach.decompositions:
        return []
    return [Diagnostic("shelving-subject-foreign", f"subject {rec.subject!r} is not {node} "
                       f"nor one of its merged decompositions {list(reach.decompositions)}",
                       path)]
