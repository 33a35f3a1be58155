"""Which Formal Conjectures statement is which target's root and which a variant (D-30):
target and node ids from declaration names, slugged, capped and kept distinct by a hash of
the declaration, and :func:`classify`, which groups a file's imported statements under
their roots. :mod:`network.importers.formal_conjectures` re-exports every public name here.
"""

from __future__ import annotations

import re

from network import ids
from network.importers.fc_source import SKIP, TEST, ProblemFile, Statement
from network.record.read.loader import sha256_hex

_VARIANT_MARKERS = ("variants", "variant")


# --- naming: which statement is which target's root, which a variant -------------------


def target_id(key: tuple[str, str | None]) -> str:
    """``erdos-<N>`` for a problem's main theorem, ``erdos-<N>-<part>`` for a part.

    Raises:
        LemmataError: ``bad-target-id`` when the part name cannot make a valid id.
    """
    n, part = key
    return ids.check_target_id(_cap_id(f"erdos-{n}" + (f"-{_slug(part)}" if part else ""),
                                       part or n))


def variant_node_id(name: str) -> str:
    """``variant-<slug>`` for ``erdos_N.variants.<name>`` (D-30 node ids take a named
    first segment). Raises: LemmataError ``bad-node-id``."""
    return ids.check_node_id(f"variant-{_slug(name)}"[:150].rstrip("-"))


def _slug(name: str) -> str:
    s = name.replace("'", "-prime-").lower()
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-")
    return re.sub(r"-+", "-", s) or "x"


def _hash6(text: str) -> str:
    return sha256_hex(text.encode("utf-8"))[:6]


def _cap_id(tid: str, seed: str) -> str:
    """A target id cut to the 64 characters ids allow, with a hash of ``seed`` when cut."""
    if len(tid) <= 64:
        return tid
    return f"{tid[:56].rstrip('-')}-{_hash6(seed)}"


def _distinct(wanted: str, used: set[str], seed: str, cap: int) -> str:
    """``wanted`` if unused, else ``wanted-<6 hex of seed's SHA-256>`` (deterministic)."""
    out = wanted
    if out in used:
        out = f"{wanted[:cap - 7].rstrip('-')}-{_hash6(seed)}"
        k = 2
        while out in used:  # a hash prefix collision: vanishingly rare, still deterministic
            out = f"{wanted[:cap - 10].rstrip('-')}-{_hash6(seed)}{k}"
            k += 1
    used.add(out)
    return out


def _imported(st: Statement, include_test: bool) -> str | None:
    """None when ``st`` is imported, else the reason it is skipped."""
    if st.category is None:
        return "no category attribute: a lemma of the file, not a registry statement"
    if st.kind == SKIP:
        return f"category {st.category!r} is not imported"
    if st.kind == TEST and not include_test:
        return "category test (pass --include-test)"
    return None


def _root_suffix(st: Statement, pf: ProblemFile) -> str:
    """What distinguishes a non-main root's target id from the file's id."""
    name = st.name
    if pf.number:
        name = re.sub(rf"^erdos_?{pf.number}(?![0-9])", "", name)
    segs = [s for s in name.lstrip("._").split(".") if s not in ("", "parts", *_VARIANT_MARKERS)]
    return ".".join(segs) or st.name


def classify(pf: ProblemFile, include_test: bool,
             taken: set[str] | None = None) -> list[list[Statement]]:
    """Group a file's imported statements into targets (see the module doc).

    Args:
        pf: the parsed file.
        include_test: whether ``test`` statements are imported.
        taken: target ids already used in this run by other files (updated).

    Returns:
        One list per target, root first; each statement's ``target``, ``node`` and
        ``variant`` are set. Statements not imported are not in any list.

    Raises:
        LemmataError: ``bad-target-id``, ``bad-node-id`` (not expected: ids are slugged).
    """
    used = taken if taken is not None else set()
    chosen = [st for st in pf.statements if _imported(st, include_test) is None]
    by_name = {st.name: st for st in chosen}
    owner: dict[int, Statement] = {}
    for st in chosen:
        segs = st.name.split(".")
        for j in range(len(segs) - 1, 0, -1):
            cand = by_name.get(".".join(segs[:j]))
            if cand is not None and cand is not st and segs[j] != "parts":
                owner[id(st)] = cand
                break
    roots = [st for st in chosen if id(st) not in owner]
    expected = f"erdos_{pf.number}" if pf.number else None
    main = next((st for st in roots if st.name == expected), None)
    if main is None and len(roots) == 1 and ".parts." not in f".{roots[0].name}.":
        main = roots[0]
    for st in list(roots):
        segs = st.name.split(".")
        if any(s in _VARIANT_MARKERS for s in segs[1:]):
            st.promoted = ".".join(segs[:next(k for k, s in enumerate(segs) if k and
                                             s in _VARIANT_MARKERS)])
            if main is not None and st is not main:  # a variant of a root the file lacks:
                owner[id(st)] = main                 # the file's problem is its main root
                roots.remove(st)
    groups: list[list[Statement]] = []
    for st in roots:
        wanted = pf.base_id if st is main else _cap_id(
            f"{pf.base_id}-{_slug(_root_suffix(st, pf))}", st.declaration)
        st.target = ids.check_target_id(_distinct(wanted, used, f"{pf.path}:{st.declaration}", 64))
        st.node = ids.ROOT
        groups.append([st])
    index = {st.target: g for g in groups for st in g[:1]}
    nodes: dict[str, set[str]] = {g[0].target: {ids.ROOT} for g in groups}
    for st in chosen:
        if id(st) not in owner:
            continue
        top = owner[id(st)]
        while id(top) in owner:
            top = owner[id(top)]
        if st.name.startswith(top.name + "."):
            rest = st.name.split(".")[len(top.name.split(".")):]
            if rest and rest[0] in _VARIANT_MARKERS and len(rest) > 1:
                rest = rest[1:]
        else:
            rest = [s for s in st.name.split(".") if s not in _VARIANT_MARKERS]
        st.target, st.variant = top.target, True
        st.node = ids.check_node_id(_distinct(variant_node_id(".".join(rest)), nodes[top.target],
                                              st.declaration, 150))
        index[top.target].append(st)
    return groups
