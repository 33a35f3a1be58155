"""graph/AGENTS.md, the prover funnel (D-27), is held true to the code (issue 6).

* every MCP tool it names in backticks is a row of ``network.api.tools.TOOLS``: a
  backticked snake_case name that is not a tool must be a known identifier (a tool
  argument, a request or record field, a policy or gate-spec key, or a key the service's
  or gate's code writes), so a misspelled or unbuilt tool fails;
* every error code it names in backticks is in the catalog: a backticked kebab-case word
  that is not a code must belong to a vocabulary the code defines (target ids, postmortem
  classes, node origins, hazard checkers, fidelity grades, ...);
* every path pattern of its permitted-paths table is placed by the gate's classifier and
  passes steps 1-2 (``network.gate.steps.step2.run_steps_1_2``) on a small graph;
* the numbers it states (claim TTL caps, token lapse, precheck age, step-3 caps) are
  graph/policy.json's and the targets' gate-spec.json's.
"""

from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel

from network.api import tools
from network.errors import CATALOG, register_all
from network.forge import types as forge_types
from network.gate import artifacts as gate_artifacts
from network.gate.diff import diff_commits
from network.gate.records.references import precheck_key
from network.gate.steps import step4_kernel
from network.gate.steps.step2 import run_steps_1_2
from network.record import derive
from network.record import models as m
from network.record.read.loader import load_graph
from tests.graphs import GraphBuilder, git_commit, sha256_hex

ROOT = Path(__file__).resolve().parent.parent
GRAPH = ROOT / "graph"
AGENTS = GRAPH / "AGENTS.md"

SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")

#: Node ids the page uses as examples of the named-first-segment form (Foundation ruling 3).
EXAMPLE_NODE_IDS = {"variant-upper-bound", "crux-type-ii"}


def _text() -> str:
    return AGENTS.read_text(encoding="utf-8")


def _prose(text: str) -> str:
    """The page without its fenced code blocks (their Lean and YAML are examples)."""
    return re.sub(r"^```.*?^```[ \t]*$", "", text, flags=re.DOTALL | re.MULTILINE)


def _spans(text: str) -> list[str]:
    """Every inline code span outside fenced blocks."""
    return re.findall(r"`([^`\n]+)`", _prose(text))


def _literal_values(annotation: object) -> set[str]:
    """Every string of the ``Literal[...]`` types inside ``annotation``."""
    out: set[str] = set()
    if typing.get_origin(annotation) is typing.Literal:
        out |= {a for a in typing.get_args(annotation) if isinstance(a, str)}
    for arg in typing.get_args(annotation):
        out |= _literal_values(arg)
    return out


def _keys(obj: object) -> set[str]:
    """Every key of a JSON object, at any depth."""
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


def _model_fields() -> set[str]:
    out: set[str] = set()
    for obj in vars(m).values():
        if isinstance(obj, type) and issubclass(obj, BaseModel) and obj is not BaseModel:
            out |= set(obj.model_fields)
            out |= {f.alias for f in obj.model_fields.values() if f.alias}
    return out


def _request_fields() -> set[str]:
    from network.api import app
    from network.api.records import record_routes
    from network.api.submit import submission_routes

    out: set[str] = set()
    for mod in (app, record_routes, submission_routes):
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, BaseModel):
                out |= set(obj.model_fields)
    return out


def _code_string_keys() -> set[str]:
    """String literals in the service's and the gate's source: the keys they answer with."""
    out: set[str] = set()
    for folder in (ROOT / "network" / "api", ROOT / "network" / "gate"):
        for path in folder.rglob("*.py"):
            out |= set(re.findall(r"\"([a-z][a-z0-9_]*)\"", path.read_text(encoding="utf-8")))
    return out


def _known_identifiers() -> set[str]:
    """Snake_case names the page may use that are not tools."""
    params = {p.name for op in tools.TOOLS for p in op.params} | {"token"}
    policy = _keys(json.loads((GRAPH / "policy.json").read_text(encoding="utf-8")))
    specs: set[str] = set()
    for spec in GRAPH.glob("targets/*/gate-spec.json"):
        specs |= _keys(json.loads(spec.read_text(encoding="utf-8")))
    return params | policy | specs | _model_fields() | _request_fields() | _code_string_keys()


def _vocabulary() -> set[str]:
    """Kebab-case words the page may use that are not error codes, each from the code."""
    words: set[str] = {p.name for p in GRAPH.glob("targets/*") if p.is_dir()}
    for model in (m.Postmortem, m.Meta, m.PrecheckAttestation, m.Attestation):
        for f in model.model_fields.values():
            words |= _literal_values(f.annotation)
    for spec in GRAPH.glob("targets/*/gate-spec.json"):
        words |= set(json.loads(spec.read_text(encoding="utf-8")).get("hazard_checkers", []))
    words |= set(derive.GRADES_VOUCHING)
    words |= {k.value for k in gate_artifacts.Kind}
    words |= EXAMPLE_NODE_IDS
    return words


@pytest.fixture(scope="module")
def catalog() -> dict[str, object]:
    register_all()
    return dict(CATALOG)


# --- tools -------------------------------------------------------------------------------


def test_every_tool_named_in_backticks_exists() -> None:
    names = {op.tool for op in tools.TOOLS}
    known = _known_identifiers()
    named = {s for s in _spans(_text()) if SNAKE.fullmatch(s)}
    tools_named = named & names
    assert len(tools_named) >= 25, sorted(tools_named)  # the page really is about the tools
    unknown = sorted(named - names - known)
    assert not unknown, f"not MCP tools (network.api.tools.TOOLS) nor known names: {unknown}"


def test_section_0_calls_no_existing_tool_unbuilt() -> None:
    """Issue 35, item 7: section 0's "Not built yet" list named list_registrations,
    list_sufficient_sets, propose_literature (as "no tool files a literature record") and
    plain-git pushes as absent while all of them existed. Every snake_case word in that list
    must be no tool of tools/list, and the built list names the plain-git push route."""
    text = _text()
    sec0 = text[text.index("## 0."):text.index("## 1.")]
    built, unbuilt = sec0.split("Not built yet", 1)
    names = {op.tool for op in tools.TOOLS}
    d28 = unbuilt[unbuilt.index("- D-28's"):]
    d28 = d28[:d28.index("\n- ")] if "\n- " in d28 else d28
    d28 = d28[:d28.index(";")]  # the tools it calls unbuilt, before the other items
    words = set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", d28))
    assert not words & names, sorted(words & names)  # no built tool is called unbuilt
    for tool in ("list_registrations", "list_sufficient_sets", "propose_literature"):
        assert tool not in unbuilt, tool
    assert "literature record" not in unbuilt and "Hand-opened" not in unbuilt
    for tool in ("list_registrations", "list_sufficient_sets", "propose_literature"):
        assert tool in built, tool
    assert "/git/graph.git" in built and "submit/<name>" in built


def test_the_session_names_the_issue_6_steps() -> None:
    text = _text()
    for tool in ("list_frontier", "get_node", "precheck_submission", "get_precheck", "get_token",
                 "claim_node", "submit_proof", "get_submission", "submit_postmortem",
                 "submit_informal_annex", "release_claim", "renew_claim"):
        assert f"`{tool}`" in text, tool


def test_every_route_the_page_names_is_the_tools_route() -> None:
    """``(`METHOD /path`)`` right after a tool name is that tool's plain route (D-28)."""
    by_tool = {op.tool: (op.method, op.path) for op in tools.TOOLS}
    pairs = re.findall(r"`([a-z]+(?:_[a-z]+)+)` \(`(GET|POST|DELETE) ([^`\s]+)", _prose(_text()))
    pairs = [p for p in pairs if p[0] in by_tool]  # other names are arguments, checked above
    assert len(pairs) >= 10
    for tool, method, path in pairs:
        want_method, want_path = by_tool[tool]
        concrete = re.fullmatch(re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(want_path)), path)
        assert method == want_method and concrete, (tool, method, path, by_tool[tool])


def test_every_route_named_exists() -> None:
    routes = {(op.method, op.path) for op in tools.TOOLS} | set(tools.NO_TOOL)
    named = re.findall(r"`(GET|POST|DELETE) (/[^`\s]*)", _prose(_text()))
    assert named
    for method, path in named:
        ok = any(method == rm and re.fullmatch(
            re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(rp)), path) for rm, rp in routes)
        assert ok, (method, path)


# --- error codes -------------------------------------------------------------------------


def test_every_error_code_named_in_backticks_is_in_the_catalog(catalog) -> None:
    vocabulary = _vocabulary()
    named = {s for s in _spans(_text()) if KEBAB.fullmatch(s)}
    codes = named & set(catalog)
    assert len(codes) >= 60, len(codes)
    other = sorted(named - set(catalog) - vocabulary)
    # the two remaining words are file names and the fence label, checked against the code
    for word in other:
        if word == "precheck-attestation":
            assert forge_types.precheck_from_body("```precheck-attestation\n{}\n```") == "{}"
        elif word == "lean-toolchain":
            assert gate_artifacts._PIN_FILES.fullmatch(word)
        else:
            pytest.fail(f"`{word}` is neither a catalog code nor a known word")


#: Codes the catalog files under step 2 that step 4 also emits (D-12 v3.44: the hole labels
#: are read once step 4 knows where the holes are).
ALSO_AT_STEP_4 = {"partial-unlabelled"}


def test_the_gate_steps_list_codes_of_their_own_step(catalog) -> None:
    """In section 7, a code listed under step N is one the catalog files under step N (or
    under no step: schema and file codes step 2 and 3 also report)."""
    text = _text()
    section = text.split("## 7.", 1)[1].split("**Service refusals", 1)[0]
    items = re.split(r"^(\d)\. ", section, flags=re.MULTILINE)
    for step, body in zip(items[1::2], items[2::2], strict=True):
        for code in re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`", body):
            if code not in catalog:
                continue
            entry = catalog[code]
            if code in ALSO_AT_STEP_4 and step == "4":
                assert f'Diagnostic("{code}"' in inspect.getsource(step4_kernel), code
                continue
            assert entry.step in (int(step), None), (step, code, entry.step)


# --- permitted paths ---------------------------------------------------------------------

T = "calib"
TS = "20260102T000000Z"
WHO = "alice"
ND = f"targets/{T}/nodes"
PARTIAL_TEXT = ("-- approach: split in two\n-- licence: CC-BY-4.0\n"
                "theorem stmt_open : True := by\n  -- label: one\n  -- claim: $1$\n"
                "  have h : True := sorry\n  exact h\n")


def _table() -> dict[str, list[str]]:
    """Section 5's table: artifact label → the path patterns of its second column."""
    section = _text().split("## 5.", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or cells[0] in ("artifact", "") or set(cells[0]) <= {"-"}:
            continue
        rows[cells[0]] = re.findall(r"`([^`]+)`", cells[1])
    return rows


def _fill(pattern: str, node: str, sha: str = "") -> str:
    rel = (pattern.replace("<ts>", TS).replace("<pseudonym>", WHO).replace("<k>", "1")
           .replace("<target>", T).replace("<sha256>", sha).replace("<hash>", "ab" * 32))
    return rel if rel.startswith("targets/") else f"{ND}/{node}/{rel}"


def _base(tmp: Path) -> tuple[GraphBuilder, str]:
    b = GraphBuilder(tmp / "g")
    b.base()
    b.target(T, cls="calibration", calibration=True, steward=None)
    b.node(T, "open")
    b.node(T, "done", proof="theorem stmt_done : True := trivial\n")
    b.merge([f"{ND}/done/Proof.lean"])
    part = b.partial(T, "open", "20260101T000000Z", "bob", PARTIAL_TEXT)
    b.merge([part])
    b.hole(T, "open", 1, part)  # open--h1, blocked: no Witness.lean
    b.gloss(T, "open", "20260101T000000Z", WHO)  # the author's own words to withdraw
    return b, git_commit(b.root, "base")


Setup = Callable[[GraphBuilder, list[str]], None]


def _lean(b: GraphBuilder, pats: list[str], node: str = "open",
          text: str = "theorem x : True := trivial\n") -> None:
    for p in pats:
        b.write(_fill(p, node), PARTIAL_TEXT if "partial" in p and not p.endswith(
            "witness.lean") else text)


def _proof(b: GraphBuilder, pats: list[str]) -> None:
    for p in pats:
        if p.endswith(".yaml"):  # the native_decide waiver (D-4)
            b.write_yaml(_fill(p, "open"), {"schema": "waiver/v1", "waiver": "native_decide",
                                            "justification": "a finite check"})
        else:
            _lean(b, [p])


def _annex(b: GraphBuilder, pats: list[str]) -> None:
    text = b"An informal argument.\n"
    sha = sha256_hex(text)
    for p in pats:
        path = _fill(p, "open", sha)
        if path.endswith(".md"):
            b.write(path, text)
        else:
            b.write_yaml(path, {"schema": "annex/v1", "sha256": sha, "author": WHO,
                                "licence": "CC-BY-4.0", "title": "An argument",
                                "date": "2026-01-02"})


def _record(kind: str, node: str = "open") -> Setup:
    def setup(b: GraphBuilder, pats: list[str]) -> None:
        (p,) = pats
        path = _fill(p, node)
        if kind == "postmortem":
            b.postmortem(T, node, TS, WHO)
        elif kind == "literature":
            b.literature(T, node, TS, WHO, "open")
        elif kind in ("gloss", "explainer"):
            describes = f"{ND}/{node}/{'Proof' if kind == 'explainer' else 'Statement'}.lean"
            b.gloss(T, node, TS, WHO, describes=describes, kind=kind)
        elif kind == "withdrawal":
            b.withdrawal(T, node, TS, WHO, f"{ND}/{node}/gloss/20260101T000000Z-{WHO}.yaml")
        elif kind == "defect":
            b.defect(T, node, TS, WHO)
        elif kind == "revision-request":
            b.write_yaml(path, {"schema": "revision-request/v1", "node": node,
                                "operation": "revise-statement", "evidence": "see line 1",
                                "by": WHO, "date": "2026-01-02"})
        elif kind == "approach":
            b.approach(T, TS, WHO, "a strategy")
        elif kind == "precheck":
            stmt = b.sha(f"{ND}/{node}/Statement.lean")  # named after its D-34 key
            path = path.replace("ab" * 32, precheck_key(stmt, None, 3))
            rec = m.PrecheckRecord(target=T, node=node, statement_hash=stmt,
                                   verdict="precheck-fail", first_failing_step=3, steps=[],
                                   toolchain="leanprover/lean4:v4.22.0", date="2026-01-02")
            b.write(path, rec.model_dump_json(by_alias=True, exclude_none=True))
        assert path in _written(b), (kind, path)

    return setup


def _written(b: GraphBuilder) -> set[str]:
    return {p.relative_to(b.root).as_posix() for p in b.root.rglob("*") if p.is_file()}


def _variant(b: GraphBuilder, pats: list[str]) -> None:
    nid = "variant-weaker"
    stmt = b"theorem stmt_weaker : True := sorry\n"
    d = f"{ND}/{nid}"
    for p in pats:
        if p == "META.yaml":
            b.write_yaml(f"{d}/META.yaml", {
                "schema": "meta/v1", "id": nid, "target": T, "declaration": "stmt_weaker",
                "statement_hash": sha256_hex(stmt), "origin": "variant",
                "variant": {"of": "open", "relation": "resolves"}})
        elif p == "Statement.lean":
            b.write(f"{d}/Statement.lean", stmt)
        else:
            b.write(f"{d}/{p}", "theorem stmt_weaker.witness : True := trivial\n")


#: Table row → how to write its files on the base graph ("open" has no proof; "done" has
#: a merged one; "open--h1" is a blocked hole).
SETUPS: dict[str, Setup] = {
    "proof (D-12 #1)": _proof,
    "alternate proof": lambda b, p: _lean(b, p, "done", "theorem y : True := by trivial\n"),
    "counterexample (#2)": _lean,
    "vacuity certificate (#3)": _lean,
    "reduction (#4)": _lean,
    "partial / skeleton (#5)": _lean,
    "witness of a blocked hole": lambda b, p: _lean(b, p, "open--h1"),
    "variant / speculative crux": _variant,
    "postmortem (D-13)": _record("postmortem"),
    "informal annex (D-31)": _annex,
    "literature status": _record("literature"),
    "gloss": _record("gloss"),
    "explainer": _record("explainer", "done"),
    "withdrawal of words": _record("withdrawal"),
    "defect claim (D-16)": _record("defect"),
    "revision request (D-8)": _record("revision-request"),
    "approach record (D-14)": _record("approach"),
    "precheck record (D-34)": _record("precheck"),
}


def test_the_table_lists_exactly_the_tested_artifacts() -> None:
    assert set(_table()) == set(SETUPS)


@pytest.mark.parametrize("label", sorted(SETUPS))
def test_each_permitted_path_passes_step_2(tmp_path: Path, label: str) -> None:
    b, base = _base(tmp_path)
    patterns = _table()[label]
    assert patterns, label
    SETUPS[label](b, patterns)
    head = git_commit(b.root, label)
    diff = diff_commits(b.root, base, head)
    assert diff.changes, label
    r = run_steps_1_2(diff, load_graph(b.root, commit=base), WHO)
    found = [(d.code, d.path, d.message) for d in r.step1.diagnostics + r.step2.diagnostics]
    assert r.step1.ok and r.step2.ok, found
    placed = {p for a in r.artifacts for p in a.paths}
    assert placed == {c.path for c in diff.changes}
    assert len({(a.target, a.node) for a in r.artifacts}) == 1


def test_the_four_issue_6_paths_are_in_the_table() -> None:
    rows = _table()
    assert "Proof.lean" in rows["proof (D-12 #1)"]
    assert "attempts/<ts>-<pseudonym>-alternate.lean" in rows["alternate proof"]
    assert "attempts/<ts>-<pseudonym>-partial.lean" in rows["partial / skeleton (#5)"]
    assert "attempts/<ts>-<pseudonym>-postmortem.yaml" in rows["postmortem (D-13)"]


# --- numbers -----------------------------------------------------------------------------


def test_the_numbers_are_the_policys_and_gate_specs() -> None:
    text = " ".join(_text().split())  # the page's line breaks are not content
    policy = json.loads((GRAPH / "policy.json").read_text(encoding="utf-8"))
    ttl = policy["claim_ttl"]
    hours = {3600: "one hour"}
    assert f"`min_s` = {ttl['min_s']} ({hours[ttl['min_s']]})" in text
    assert f"`max_s` = {ttl['max_s']} ({ttl['max_s'] // 86400} days)" in text
    assert f"`token_lapse_days` ({policy['token_lapse_days']})" in text
    for name in policy["reserved_pseudonyms"]:
        assert f"`{name}`" in text
    for spec_path in GRAPH.glob("targets/*/gate-spec.json"):
        spec = json.loads(spec_path.read_text(encoding="utf-8"))
        assert f"`{spec['lean_toolchain']}`" in text
        assert f"`{spec['mathlib']['rev']}`" in text
        pre = spec["precheck"]
        assert f"({pre['max_age_s']} s, {pre['max_age_s'] // 86400} days)" in text
        assert ", ".join(f"`{k}`" for k in pre["accepted_signature_kinds"]) in text
        caps = spec["caps"]
        assert (f"CPU {caps['cpu_s']} s, memory {caps['memory_mib']} MiB, wall clock "
                f"{caps['wall_s']} s, {caps['threads']} threads") in text
        assert ", ".join(f"`{a}`" for a in spec["axioms"]) in text
        for hazard in spec["hazard_checkers"]:
            assert f"`{hazard}`" in text


def test_the_postmortem_example_is_a_valid_d13_record() -> None:
    import yaml

    block = re.search(r"```yaml\n(.*?)```", _text(), re.DOTALL)
    assert block is not None
    rec = yaml.safe_load(block.group(1).replace("<pseudonym>", WHO))
    m.Postmortem.model_validate(rec)
    required = [n for n, f in m.Postmortem.model_fields.items()
                if f.is_required() and n != "schema_"]
    listed = _text().split("- Required:", 1)[1].split(";", 1)[0]
    assert sorted(re.findall(r"`([a-z_]+)`", listed)) == sorted(required)


def test_the_skeleton_example_carries_the_labels_the_gate_reads() -> None:
    block = re.search(r"```lean\n(.*?)```", _text(), re.DOTALL)
    assert block is not None
    lean = block.group(1)
    holes = [i for i, line in enumerate(lean.splitlines(), start=1) if ":= sorry" in line]
    assert len(holes) == 2
    assert gate_artifacts.partial_label_findings(lean, "x.lean", holes) == []
    assert re.search(r"^-- annex: ", lean, re.MULTILINE)
