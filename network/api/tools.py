"""The MCP adapter (D-28): a lens over the protocol, never a channel in it.

:data:`TOOLS` is the one table mapping each MCP tool to its plain HTTP route and to the
one function both call. The bijection rule is held by ``tests/test_api_tools.py``: a tool
without a route, or an agent-facing route without a tool, fails it. Routes that are not
agent-facing (D-35's "no tool" rows, the service's own documentation) are listed in
:data:`NO_TOOL` with the reason.

The server is served two ways from the same table: streamable HTTP mounted in the
service's app at ``/mcp`` (see :func:`network.api.app.create_app`), and stdio
(``lemmata mcp``). Write tools take the write token as their ``token`` argument; over
HTTP an ``Authorization: Bearer`` header on the MCP request is used when the argument is
absent, and over stdio the ``LEMMATA_TOKEN`` the operator started ``lemmata mcp`` with.
Every answer is one text block of compact JSON (:func:`tool_result`); a refusal, an
argument that fails validation and an unknown tool come back as a tool error whose text
is the catalog's error shape ``{code, detail, action, path, field, http_status}``
(STYLE.md rule 2), never the SDK's or pydantic's text.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, Tool
from pydantic import ValidationError

from network.api import reads
from network.api.deps import client_address
from network.api.frontier import claims
from network.api.identity import identity
from network.api.people import display_names
from network.api.records import literature, registrations, reviews, words
from network.api.service import Caller, Service
from network.api.submit import checks, precheck, records, submissions
from network.errors import LemmataError


@dataclass(frozen=True)
class Param:
    """One tool argument and the keyword of the operation function it feeds.

    Attributes:
        name: the argument's name in the tool (D-28's names: target_id, node_id, ttl).
        kwarg: the operation function's keyword it is passed as.
        annotation: its Python type (drives the tool's JSON Schema).
        required: whether the tool requires it; optional ones default to None.
        convert: applied to the validated value before the operation gets it (the
            frontier's filters take JSON booleans and numbers and pass their text).
    """

    name: str
    kwarg: str
    annotation: Any
    required: bool = True
    convert: Callable[[Any], Any] | None = None


@dataclass(frozen=True)
class Op:
    """One row of the bijection: an MCP tool, its HTTP route, and the function both call.

    Attributes:
        tool: the MCP tool name.
        method: the HTTP method of the plain route.
        path: the plain route's path, FastAPI style (``/claims/{claim_id}``).
        function: ``function(svc, caller?, **kwargs) -> dict``; the one implementation.
        auth: ``bearer`` when the route needs a write token, ``session`` when it is a
            person's act on a web session (the tool then takes no token and its function
            refuses ``role-act-needs-session``: D-35 v3.33), else ``none``.
        takes_caller: whether ``function`` takes the :class:`Caller` second.
        params: the tool's arguments.
        description: what the tool does and what the agent should do next.
        token_optional: the route needs no token for some calls (``precheck_submission``
            of the tutorial node) but checks one when given: the tool takes ``token``.
    """

    tool: str
    method: Literal["GET", "POST", "DELETE"]
    path: str
    function: Callable[..., dict[str, Any]]
    auth: Literal["none", "bearer", "session"]
    takes_caller: bool
    params: tuple[Param, ...]
    description: str
    token_optional: bool = False


_T = Param("target_id", "target", str)
_N = Param("node_id", "node", str)

TOOLS: tuple[Op, ...] = (
    Op("server_info", "GET", "/info.json", reads.info, "none", False, (),
       "Protocol version, gate-spec hashes, schema index and the service's limits (claim TTLs, "
       "rates, DCO version). Call it first."),
    Op("list_routes", "GET", "/", reads.route_index, "none", False, (),
       "Every plain HTTP route with its method, auth, purpose and the tool that mirrors it:"
       " nothing here is MCP-only (D-28)."),
    Op("list_error_codes", "GET", "/errors.json", reads.error_codes, "none", False,
       (Param("prefix", "prefix", str | None, False),),
       "The error codes the gate and the service emit, with meaning and action, one page "
       "per `prefix` (a code, or a first word such as `token-`)."),
    Op("get_dco", "GET", "/dco.json", identity.dco_info, "none", False, (),
       "The Developer Certificate of Origin and its version: pass `version` as `dco` to "
       "get_token, your sign-off on what you submit (D-23)."),
    Op("list_targets", "GET", "/targets/index.json", reads.targets_index, "none", False, (),
       "Every target: id, root statement hash, fidelity grade, status (D-33), pinned "
       "Mathlib commit (D-28), panel and counts."),
    Op("get_target", "GET", "/targets/{target_id}", reads.target_view, "none", False, (_T,),
       "A target's record, graph structure and statuses, approach records and defs/ index."),
    Op("get_defs", "GET", "/targets/{target_id}/defs", reads.defs_view, "none", False, (_T,),
       "The target's shared definitions with their text and content hashes."),
    Op("get_gate_spec", "GET", "/targets/{target_id}/gate-spec.json", reads.gate_spec_view,
       "none", False, (_T,),
       "The toolchain, Mathlib commit, axiom allowlist, hazard checkers, resource caps and "
       "precheck policy the gate pins for this target."),
    Op("get_node", "GET", "/targets/{target_id}/nodes/{node_id}", reads.node_bundle, "none",
       False, (_T, _N, Param("include", "include", list[str] | None, False)),
       "A node's bundle: Lean files, META, attempts with postmortems, derived state, claims, "
       "open submissions and the prose sections `include` names (default all), marked untrusted."),
    Op("list_frontier", "GET", "/frontier.json", reads.frontier, "none", False,
       (Param("filters", "filters", dict[str, str | bool | int | float] | None, False,
              convert=lambda f: filter_text(f)),
        Param("where", "where", list[str] | None, False),
        Param("limit", "limit", int | None, False), Param("cursor", "cursor", str | None, False)),
       "The frontier with live claims and claim history. `filters`: field=value; `where`: "
       "predicates, op = != < > <= >=, e.g. `failure_classes.missing-library=0`. Unranked."),
    Op("list_sufficient_sets", "GET", "/targets/{target_id}/sufficient-sets.json",
       reads.sufficient_sets_view, "none", False, (_T,),
       "A target's routes, its sufficient sets (statements whose proofs would settle the root, "
       "with what is still needed) and the selector tree (D-25 v3.40). Unranked."),
    Op("list_registrations", "GET", "/registrations.json", reads.registrations_view, "none",
       False, (Param("target_id", "target", str | None, False),),
       "Every registration of a target in a public registry such as Palomar (D-10 v3.37): "
       "registry, id, version, state, wrapper commit, filer."),
    Op("get_ledger", "GET", "/ledger.json", reads.ledger, "none", False,
       (Param("identity", "identity", str | None, False),),
       "The credit ledger (D-19): lines with target, node, artifact and merge order, revoked "
       "ones marked; `identity` for one."),
    Op("get_hosted_checkers", "GET", "/hosted-checkers.json", reads.hosted_checkers, "none",
       False, (),
       "Which targets the hosted fast checker serves, and whether it matches the pinned "
       "Mathlib exactly (D-4 v3.14)."),
    Op("get_token", "POST", "/tokens", identity.issue_token, "none", True,
       (Param("pseudonym", "pseudonym", str), Param("dco", "dco", str),
        Param("proof", "proof", dict[str, Any])),
       "Make or re-prove an identity; get a write token. proof: {kind: 'github', token} or "
       "{kind: 'precheck', job_id}; dco: get_dco's. Keep the token where this machine remembers "
       "it; the recovery_code goes to your operator."),
    Op("renew_token", "POST", "/tokens/renew", identity.renew_token, "bearer", True, (),
       "Trade the current token for a new one for the same identity; the old one stops "
       "working at once. Never required: a token in use does not lapse."),
    Op("claim_node", "POST", "/claims", claims.claim_node, "bearer", True,
       (_T, _N, Param("ttl", "ttl_s", int | None, False)),
       "An advisory claim on a node for `ttl` s within the caps (default: the minimum). "
       "It reserves nothing: others may race, the first merged proof wins (D-25); "
       "`other_holders` names them. Keep claim_id; release_claim or renew_claim."),
    Op("release_claim", "DELETE", "/claims/{claim_id}", claims.release_claim, "bearer", True,
       (Param("claim_id", "claim_id", str),),
       "Release your claim early so others see the node free. Lost the id? list_my_claims."),
    Op("renew_claim", "POST", "/claims/{claim_id}/renew", claims.renew_claim, "bearer", True,
       (Param("claim_id", "claim_id", str), Param("ttl", "ttl_s", int | None, False)),
       "Extend your live claim: it then ends `ttl` seconds from now (within the caps). An "
       "expired claim cannot be renewed: claim_node again."),
    Op("list_my_claims", "GET", "/claims/mine", claims.my_claims, "bearer", True, (),
       "Your live claims with their ids (for release_claim) and each node's other holders."),
    Op("precheck_submission", "POST", "/precheck", precheck.precheck_submission, "none", True,
       (_T, _N, Param("artifact_type", "artifact_type", str),
        Param("text", "text", str | None, False),
        Param("files", "files", dict[str, str] | None, False)),
       "The gate's steps 1-2 and 4-8 in the service's sandbox (D-4). artifact_type: proof, "
       "alternate, counterexample, vacuity, reduction or partial; `files`: node-relative. "
       "Poll get_precheck with the job_id every 10-30 s.",
       token_optional=True),
    Op("get_precheck", "GET", "/precheck/{job_id}", precheck.get_precheck, "none", False,
       (Param("job_id", "job_id", str),),
       "A precheck's state, diagnostics per step and attestation. pass: submit_proof with "
       "precheck_id; fail: fix the first failing step; toolchain-missing: nothing checked."),
    Op("submit_proof", "POST", "/submissions", submissions.submit_proof, "bearer", True,
       (Param("precheck_id", "precheck_id", str | None, False),
        Param("target_id", "target", str | None, False),
        Param("node_id", "node", str | None, False),
        Param("artifact_type", "artifact_type", str | None, False),
        Param("text", "text", str | None, False),
        Param("files", "files", dict[str, str] | None, False),
        Param("attestation", "attestation", str | None, False),
        Param("title", "title", str | None, False),
        Param("description", "description", str | None, False),
        Param("disclosure", "disclosure", dict[str, Any] | None, False)),
       "Open the pull request for a passing precheck_id, or text and files with "
       "pregate.sh's attestation (D-25). The node is claimed for you; poll get_submission. "
       "disclosure {method, models, framework}: the models that helped (D-23)."),
    Op("get_submission", "GET", "/submissions/{submission_id}", submissions.get_submission,
       "none", False, (Param("submission_id", "submission_id", str),),
       "A submission's state, queue place and attestations; poll after submit_proof. closed: "
       "fix the first failing step."),
    Op("list_submissions", "GET", "/submissions.json", submissions.list_submissions, "none",
       False, (),
       "Every open pull request on the graph, in merge-queue order, with node, kind and "
       "pseudonym. Check it before working on a node."),
    Op("get_my_submissions", "GET", "/submissions/mine", submissions.my_submissions, "bearer",
       True, (),
       "Your own submissions: open ones with their merge-queue place, recent merged or "
       "closed ones with how they ended."),
    Op("withdraw_submission", "DELETE", "/submissions/{submission_id}",
       submissions.withdraw_submission, "bearer", True,
       (Param("submission_id", "submission_id", str),),
       "Close, unmerged, a pull request the service opened for you, delete its branch and "
       "release your claim. A merged one cannot be withdrawn."),
    # --- record writes that are pull requests, words, check_lean (network/api/submit/records.py,
    # words.py, checks.py) -----------------------------------------------------------------
    Op("submit_postmortem", "POST", "/postmortems", records.submit_postmortem, "bearer", True,
       (_T, _N, Param("yaml", "yaml_text", str)),
       "Record a failed attempt as a D-13 postmortem: `yaml` is the d13/v1 document "
       "(get_schema('postmortem', 'v1')); node and contributor are filled in. Opens one "
       "pull request: poll get_my_submissions."),
    Op("submit_informal_annex", "POST", "/annexes", records.submit_informal_annex, "bearer",
       True, (_T, _N, Param("text", "text", str), Param("licence", "licence", str),
              Param("title", "title", str),
              Param("source", "source", dict[str, Any] | None, False)),
       "Attach an informal argument to a node as a content-hashed annex (D-31): untrusted, "
       "earns nothing."),
    Op("submit_approach_record", "POST", "/approaches", records.submit_approach_record,
       "bearer", True, (_T, Param("record", "record", dict[str, Any])),
       "Record a strategy that never reached a statement (D-14, approach/v2): `record` "
       "holds route, outcome (D-13's), model_and_tooling {method, models, framework}, "
       "nodes?, references?, detail?. It earns nothing."),
    Op("propose_witness", "POST", "/proposals/witness", records.propose_witness, "bearer", True,
       (_T, _N, Param("witness", "witness", str),
        Param("attestation", "attestation", str | None, False)),
       "Fill the witness slot of a blocked hole (D-29) with its Witness.lean. Pass a precheck's "
       "attestation JSON, or the gate bounces it."),
    Op("propose_variant", "POST", "/proposals/variant", records.propose_variant, "bearer", True,
       (_T, _N, Param("stmt", "statement", str), Param("witness", "witness", str),
        Param("declaration", "declaration", str),
        Param("relation", "relation", str | None, False),
        Param("relation_proof", "relation_proof", str | None, False),
        Param("of", "of", str | None, False),
        Param("pertinence", "pertinence", str | None, False),
        Param("attestation", "attestation", str | None, False)),
       "Propose a labelled variant of the root as a new node (D-30): relation resolves, "
       "partial, related (default) or refutes; all but related need relation_proof. `of`: what "
       "it varies; `pertinence`: why a related one matters."),
    Op("propose_speculative_node", "POST", "/proposals/speculative",
       records.propose_speculative_node, "bearer", True,
       (_T, _N, Param("stmt", "statement", str), Param("witness", "witness", str),
        Param("declaration", "declaration", str),
        Param("attestation", "attestation", str | None, False)),
       "Enter the one formal statement a strategy hinges on as a speculative crux node "
       "(D-14): body sorry, with a non-vacuity witness."),
    Op("file_defect_claim", "POST", "/defects", records.file_defect_claim, "bearer", True,
       (_T, _N, Param("defect_class", "defect_class", str), Param("line", "line", int),
        Param("claim", "claim", str), Param("exhibit", "exhibit", str | None, False)),
       "Claim the node's statement is defective (D-16): a class, the Statement.lean line, "
       "the claim and an optional exhibit path. Filing blocks nothing."),
    Op("file_revision_request", "POST", "/revision-requests", records.file_revision_request,
       "bearer", True,
       (_T, _N, Param("operation", "operation", str), Param("evidence", "evidence", str),
        Param("proposed_statement_sha256", "proposed_statement_sha256", str | None, False)),
       "Ask a curator to revise a defective statement (D-8): operation revise-statement, "
       "add-relation or revise-definition, with evidence."),
    Op("submit_gloss", "POST", "/glosses", words.submit_gloss, "bearer", True,
       (Param("subject", "subject", str), Param("text", "text", str | None, False),
        Param("supersedes", "supersedes", str | None, False),
        Param("dry_run", "dry_run", bool | None, False),
        Param("amends", "amends", str | None, False),
        Param("label", "label", str | None, False),
        Param("licence", "licence", str | None, False),
        Param("kind", "kind", str | None, False),
        Param("sections", "sections", list[dict[str, Any]] | None, False),
        Param("drafted_with", "drafted_with", list[str] | None, False)),
       "Words for a Lean file (D-3 v3.30): a gloss of a statement, witness, relation or "
       "partial, or an explainer of a merged proof; subject: its path (list_words_needed). "
       "dry_run first; amends fixes your open one."),
    Op("withdraw_gloss", "POST", "/glosses/withdrawals", words.withdraw_gloss, "bearer", True,
       (Param("record", "record", str), Param("reason", "reason", str)),
       "Withdraw one gloss or explainer version (its author, a steward or a curator) by a "
       "withdrawal record. To correct words, supersede instead."),
    # --- names (network/api/people/display_names.py) --------------------------------------------
    Op("set_display_name", "POST", "/me/name", display_names.set_display_name, "bearer",
       True, (Param("name", "name", str | None, False), Param("link", "link", str | None, False)),
       "The name (and link) the site shows for your pseudonym (D-3 v3.37); none "
       "withdraws it."),
    # --- literature and registrations (network/api/records/literature.py, registrations.py) ------
    Op("propose_literature", "POST", "/literature", literature.propose_literature, "bearer",
       True, (_T, _N, Param("status", "status", str), Param("summary", "summary", str),
              Param("references", "references", list[dict[str, Any]] | None, False)),
       "What the literature says of a node's statement (D-25 v3.35): status known-true, "
       "known-false, open, partial-results or unknown; a steward confirms it."),
    Op("confirm_literature", "POST", "/literature/confirm", literature.confirm_literature,
       "session", True,
       (Param("literature", "literature", str), Param("action", "action", str),
        Param("status", "status", str | None, False),
        Param("summary", "summary", str | None, False)),
       "A steward's signed reading of a literature proposal: a person's act on the site; "
       "this tool answers role-act-needs-session."),
    Op("register_target", "POST", "/registrations", registrations.register_target,
       "session", True,
       (_T, Param("registry_id", "registry_id", str),
        Param("wrapper_commit", "wrapper_commit", str),
        Param("graph_commit", "graph_commit", str)),
       "A target's registration (D-10 v3.37): a curator's act on the site; this tool "
       "answers role-act-needs-session."),
    # --- the formalization review (network/api/records/reviews.py; D-9 v3.39) -----------
    Op("get_review", "GET", "/reviews/{review_id}", reviews.get_review, "none", True,
       (Param("target_id", "review_id", str),),
       "A target's formalization review (D-9 v3.39): words, cases, candidates with authors "
       "and stage-3 results, pairs, clusters, questions, signatures, grade and what it "
       "lacks. Candidates' Lean only once one of yours is merged (the blind rule): pass "
       "`token`.", token_optional=True),
    Op("list_review_questions", "GET", "/review-questions", reviews.list_review_questions,
       "none", False, (Param("target_id", "target", str | None, False),),
       "The questions reviews wait on, each in words with the case that raised it and who "
       "is asked (the intent signer). Read them; only the intent signer answers."),
    Op("list_open_pairs", "GET", "/review-pairs", reviews.list_open_pairs, "none", False,
       (Param("target_id", "target", str | None, False),),
       "Pair directions of review candidates left open or untried, with both candidates "
       "and the attempts recorded: prove one with submit_review_exhibit (implies), or "
       "record a failed try with file_review_attempt."),
    Op("submit_candidate", "POST", "/reviews/{review_id}/candidates",
       reviews.submit_candidate, "bearer", True,
       (Param("target_id", "review_id", str), Param("lean", "lean", str),
        Param("models", "models", list[str] | None, False),
        Param("read_others", "read_others", bool | None, False),
        Param("declaration", "declaration", str | None, False),
        Param("concepts", "concepts", dict[str, str] | None, False),
        Param("origin", "origin", str | None, False),
        Param("registry", "registry", dict[str, Any] | None, False),
        Param("mutant_of", "mutant_of", str | None, False),
        Param("defect_class", "defect_class", str | None, False),
        Param("wraps", "wraps", str | None, False),
        Param("claim", "claim", str | None, False)),
       "One candidate Lean statement of a review's words (D-9 v3.39), as a pull request. "
       "`models`: those that made or helped it (origin model); a person declares "
       "`read_others`. `concepts`: each concept of the opening → its own predicate (the "
       "format rule). A mutant (stage 6) names `mutant_of` and `defect_class`."),
    Op("submit_review_exhibit", "POST", "/reviews/{review_id}/exhibits",
       reviews.submit_exhibit, "bearer", True,
       (Param("target_id", "review_id", str), Param("kind", "kind", str),
        Param("candidate", "candidate", str), Param("theorem", "theorem", str),
        Param("lean", "lean", str), Param("other", "other", str | None, False),
        Param("test", "test", str | None, False),
        Param("tool", "tool", str | None, False)),
       "A kernel-checked review exhibit with its Lean proof (D-9 v3.39): kind proves, "
       "negation or vacuity of a candidate, implies (candidate → other) for a pair "
       "direction from list_open_pairs, or probe-holds/probe-fails answering intent test "
       "`test`. The gate checks it in Lean."),
    Op("file_review_attempt", "POST", "/reviews/{review_id}/attempts", reviews.file_attempt,
       "bearer", True,
       (Param("target_id", "review_id", str), Param("candidate", "candidate", str),
        Param("tool", "tool", str), Param("budget", "budget", str),
        Param("other", "other", str | None, False),
        Param("screen", "screen", str | None, False)),
       "Record a screen (screen) or pair direction (other) of a review candidate tried "
       "without a result: who, tool, budget (D-9 v3.39). Never a refutation."),
    Op("file_review_test", "POST", "/reviews/{review_id}/tests", reviews.file_test,
       "bearer", True,
       (Param("target_id", "review_id", str), Param("concept", "concept", str),
        Param("args", "args", list[str]), Param("source", "source", str),
        Param("expected", "expected", str | None, False),
        Param("answer", "answer", str | None, False),
        Param("citation", "citation", str | None, False),
        Param("probe", "probe", str | None, False)),
       "An intent test of a review (D-9 v3.39), probe holds (does `concept` hold at "
       "`args`?), covers or witness (the claim with it empty, or exactly `args`); source "
       "answer (the intent signer's answer's path), cited (citation) or computation (no "
       "expected value). Each candidate answers it with a probe exhibit."),
    Op("file_review_question", "POST", "/reviews/{review_id}/questions", reviews.file_question,
       "bearer", True,
       (Param("target_id", "review_id", str), Param("question", "question", str),
        Param("case", "case", str),
        Param("candidates", "candidates", list[str] | None, False),
        Param("raised_by", "raised_by", str | None, False)),
       "Ask a review's intent signer a question in mathematics, never Lean, with the case "
       "that raised it and the candidates that disagree on it (D-9 v3.39 stage 5)."),
    Op("check_lean", "POST", "/check", checks.check_lean, "none", True,
       (_T, Param("content", "content", str), Param("mode", "mode", str | None, False),
        Param("node_id", "node", str | None, False)),
       "Check Lean on the hosted fast checker at the target's Mathlib (D-4 v3.14): errors, "
       "goals and, in verify mode with node_id, the match with the statement. Non-authoritative.", token_optional=True),
    Op("get_check", "GET", "/checks/{check_id}", checks.get_check, "bearer", True,
       (Param("check_id", "check_id", str),),
       "Your own record of one check_lean call: the text's hash and size, the checker and "
       "how it ended."),
    Op("list_words_needed", "GET", "/words-needed.json", words.list_words_needed, "none",
       False, (Param("target_id", "target", str | None, False),
               Param("kind", "kind", str | None, False)),
       "Lean files and merged proofs lacking words, with any open pull request writing one "
       "(skip those). Then submit_gloss."),
    Op("get_schema", "GET", "/schemas/{name}/{version}.json", records.get_schema, "none",
       False, (Param("name", "name", str), Param("version", "version", str)),
       "A JSON Schema by kind and version (d13/v1, gloss/v1 ...) or by D-28 name (postmortem, "
       "defect-claim, approach-record ...)."),
)

def filter_text(filters: dict[str, Any] | None) -> dict[str, str] | None:
    """list_frontier's filters as the text the plain route's query string carries: a JSON
    boolean is ``true``/``false`` (as ``?claimable=true``), a number its decimal text."""
    if filters is None:
        return None
    return {k: ("true" if v else "false") if isinstance(v, bool) else str(v)
            for k, v in filters.items()}


#: Routes with no tool, and why (D-35's "no tool" rows and the service's own docs).
NO_TOOL: dict[tuple[str, str], str] = {
    ("POST", "/dco/accept"): "D-35 v3.37: POST /dco/accept has no tool; get_token takes `dco`.",
    ("POST", "/tokens/recover"): "D-19 v3.29: the recovery code is the human operator's, "
                                 "never the agent's.",
    ("GET", "/openapi.json"): "the OpenAPI description of the routes themselves",
    ("GET", "/docs"): "human documentation of the routes (Swagger UI)",
    ("GET", "/docs/oauth2-redirect"): "part of the Swagger UI",
    ("GET", "/redoc"): "human documentation of the routes (ReDoc)",
    ("POST", "/shelvings"): "D-35 v3.47: shelving (no tool): only a person shelves, a steward "
                            "of the target or a curator signed in on the site.",
    ("POST", "/pertinence-signatures"): "D-30 v3.12: a related variant's pertinence "
                                        "sentence carries one human act, a signed-in "
                                        "steward's of the target or a curator's.",
    ("POST", "/reviews"): "D-35 v3.39 reviews: opening a review is a signed-in steward's "
                          "of the target or a curator's act; only a person holds the role.",
    ("POST", "/reviews/{review_id}/answers"): "D-9 v3.39 the evidence page: only the intent "
                                              "signer answers, signed in on the site; "
                                              "agents read the questions "
                                              "(list_review_questions).",
    ("POST", "/reviews/{review_id}/signatures"): "D-9 v3.39 stage 7: a signature is a "
                                                 "decision written by a person signed in "
                                                 "on the site.",
    ("GET", "/reviews/{review_id}/questions"): "the one-review path of GET /review-questions "
                                               "(list_review_questions with target_id)",
    ("GET", "/me"): "D-32 v3.35: a steward's own page of what waits for them, read on a web "
                    "session; an agent reads the same facts from get_node and the frontier.",
    ("*", "/mcp"): "the MCP adapter itself",
    ("POST", "/approvals"): "D-35 v3.33: a words approval is a steward's or curator's act "
                            "on a web session; only a person holds the role.",
    ("POST", "/motions"): "D-35 v3.34, the panel (no tool): only a person sits on a panel.",
    ("POST", "/votes"): "D-35 v3.34, the panel (no tool): only a person sits on a panel.",
    ("POST", "/writeups"): "D-35 v3.34, the panel (no tool): only a person sits on a panel.",
    ("POST", "/stewards"): "D-35 v3.33/v3.34: the steward form (join, step-down, accept an "
                           "invitation) is a person's act on a web session; only a person "
                           "holds a steward's role.",
    ("POST", "/status-records"): "D-33 and D-35 v3.33: a target's status declaration is a "
                                 "listed curator's signed act on a web session; only a "
                                 "person holds the role.",
    ("POST", "/withdrawals"): "D-18 v3.27 and D-35 v3.33: withdrawing a record is a listed "
                              "curator's signed act on a web session; only a person holds "
                              "the role.",
    ("POST", "/corrections"): "D-19 v3.27 and D-35 v3.33: a credit correction is a listed "
                              "curator's signed act on a web session; only a person holds "
                              "the role.",
    ("*", "/git/graph.git/{rest:path}"): "the forge over git's smart HTTP (clone, fetch, push "
                                         "to submit/<name>, issue 11): git is its client",
    ("POST", "/proof-reviews"): "D-4 v3.15 and D-35 v3.33: a held proof's review is a "
                                "signed-in steward's or curator's act; only a person may "
                                "hold the role",
    ("GET", "/auth/github/start"): "D-35 v3.33 web session: GitHub sign-in is a person's, "
                                   "in a browser; an agent cannot sign in with GitHub",
    ("GET", "/auth/github/callback"): "D-35 v3.33 web session: GitHub's redirect back to the "
                                      "browser that signed in",
    ("GET", "/auth/link"): "D-35 v3.33 web session: an operator's one-time sign-in link, "
                           "opened in a browser (ruling 14)",
    ("GET", "/session"): "D-35 v3.33 web session (no tool): only a person holds one",
    ("POST", "/session/end"): "D-35 v3.33 web session (no tool): only a person holds one",
    ("POST", "/session/pseudonym"): "D-35 v3.33 web session (no tool): a signed-in person's "
                                    "first identity; agents use POST /tokens (get_token)",
}


def tool_by_route() -> dict[tuple[str, str], Op]:
    """(method, path) → row of :data:`TOOLS`."""
    return {(op.method, op.path): op for op in TOOLS}


def compact_json(body: Any) -> str:
    """``body`` as compact JSON: no indentation, no spaces after separators, sorted keys,
    UTF-8 kept (what every tool answer's text is)."""
    return json.dumps(body, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def tool_result(body: dict[str, Any]) -> CallToolResult:
    """A tool's answer: one text block holding the JSON object, compact. The SDK requires
    ``content`` and nothing more; ``structuredContent`` is optional in the protocol and
    would repeat every field of the text, so it is not sent, and no output schema is
    published (every tool answers one JSON object; the schema said nothing more)."""
    return CallToolResult(content=[TextContent(type="text", text=compact_json(body))])


def error_body(exc: LemmataError) -> dict[str, Any]:
    """The catalog's error shape (:class:`network.api.contract.ErrorBody`: code, detail,
    action, path, field) plus ``http_status``, the status the plain route answers."""
    body = exc.to_dict()
    body["http_status"] = exc.entry.http_status
    return body


def error_result(exc: LemmataError) -> CallToolResult:
    """A refusal as a tool error whose one text block is :func:`error_body`'s compact JSON
    (STYLE.md rule 2)."""
    return CallToolResult(content=[TextContent(type="text", text=compact_json(error_body(exc)))],
                          is_error=True)


def _caller_from(svc: Service, ctx: Context | None, token: str | None,
                 default_token: str | None) -> Caller:
    """The caller of a tool: the ``token`` argument or the ``Authorization: Bearer`` header
    (else ``default_token``, stdio's ``$LEMMATA_TOKEN``), and the client address as the
    HTTP routes read it (:func:`network.api.deps.client_address`).

    Raises:
        LemmataError: ``credentials-conflict`` when the argument and the header name
            different tokens (issue 39: neither silently wins).
    """
    headers: Any = None
    request: Any = None
    if ctx is not None:
        try:
            headers = ctx.headers
            request = ctx.request_context.request
        except (ValueError, AttributeError):
            headers = None
    header_token = None
    if headers is not None:
        auth = headers.get("authorization") or ""
        if auth.lower().startswith("bearer "):
            header_token = auth[7:].strip() or None
    if token and header_token and token.strip() != header_token:
        raise LemmataError("credentials-conflict", "the token argument and the "
                           "Authorization header name different tokens")
    token = token or header_token or default_token
    client = getattr(request, "client", None)
    peer = getattr(client, "host", None)
    if peer:
        forwarded = request.headers.getlist("x-forwarded-for") if request is not None else []
        address = client_address(str(peer), forwarded, svc.settings.trusted_proxies)
    else:
        address = "mcp-http" if headers is not None else "stdio"
    return Caller(token=token, address=address, transport="mcp")


def _sdk_annotation(annotation: Any) -> Any:
    """The annotation the SDK sees: an optional text argument (``str | None``) becomes
    ``str`` (default None; an explicit ``null`` is dropped by :meth:`LemmataMCP.call_tool`),
    because the SDK ``json.loads`` every string argument whose annotation is not exactly
    ``str``, so a JSON text passed as a string (an attestation, a YAML record that is also
    JSON) would reach the route as an object and be refused."""
    return str if annotation == (str | None) else annotation


def in_tool_names(exc: LemmataError, op: Op) -> LemmataError:
    """``exc`` as the tool's caller should read it (issue 35, item 7): where the operation
    names an argument by its route name (``ttl_s``) and the tool by another (``ttl``), the
    detail and the field say the tool's name. Other errors, and tools whose argument names
    are the route's, come back unchanged; ``retry_after`` is kept."""
    renames = {p.kwarg: p.name for p in op.params if p.kwarg != p.name}
    if not renames:
        return exc
    detail = exc.detail
    for kwarg, name in renames.items():
        detail = re.sub(rf"\b{re.escape(kwarg)}\b", name, detail)
    field = renames.get(exc.field, exc.field) if exc.field else exc.field
    if detail == exc.detail and field == exc.field:
        return exc
    out = LemmataError(exc.code, detail, path=exc.path, field=field)
    retry = getattr(exc, "retry_after", None)
    if retry is not None:
        out.retry_after = retry  # type: ignore[attr-defined]
    return out


def _make_tool(svc: Service, op: Op, default_token: str | None) -> Callable[..., CallToolResult]:
    """A function with the tool's own signature that calls ``op.function`` and answers
    :func:`tool_result` (a refusal: :func:`error_result`)."""

    def tool(**kwargs: Any) -> CallToolResult:
        ctx = kwargs.pop("ctx", None)
        token = kwargs.pop("token", None)
        args = {p.kwarg: (p.convert(kwargs.get(p.name)) if p.convert is not None
                          else kwargs.get(p.name)) for p in op.params}
        try:
            if op.takes_caller:
                return tool_result(op.function(svc, _caller_from(svc, ctx, token,
                                                                 default_token), **args))
            return tool_result(op.function(svc, **args))
        except LemmataError as exc:
            return error_result(in_tool_names(exc, op))

    params = [inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY,
                                annotation=_sdk_annotation(p.annotation),
                                **({} if p.required else {"default": None}))
              for p in op.params]
    annotations: dict[str, Any] = {p.name: _sdk_annotation(p.annotation) for p in op.params}
    if op.auth == "bearer" or op.token_optional:
        params.append(inspect.Parameter("token", inspect.Parameter.KEYWORD_ONLY,
                                        annotation=str, default=None))
        annotations["token"] = str
    params.append(inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context))
    annotations["ctx"] = Context
    annotations["return"] = CallToolResult
    tool.__signature__ = inspect.Signature(params, return_annotation=CallToolResult)  # type: ignore[attr-defined]
    tool.__annotations__ = annotations
    tool.__name__ = op.tool
    tool.__doc__ = op.description
    return tool


def lean_schema(schema: Any) -> Any:
    """A tool's input JSON Schema without what tells an agent nothing: pydantic's
    ``title`` on every level, and the ``null`` branch and ``default: null`` of an optional
    argument (leaving it out is how an agent passes none; a ``null`` sent anyway is still
    accepted), and ``additionalProperties: true``, JSON Schema's default. Everything that
    constrains a value is kept."""
    if isinstance(schema, list):
        return [lean_schema(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "default" and value is None:
            continue
        if key == "additionalProperties" and value is True:
            continue  # JSON Schema's default
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: lean_schema(sub) for name, sub in value.items()}
        else:
            out[key] = lean_schema(value)
    branches = out.get("anyOf")
    if isinstance(branches, list) and {"type": "null"} in branches:
        rest = [b for b in branches if b != {"type": "null"}]
        del out["anyOf"]
        if len(rest) == 1 and isinstance(rest[0], dict):
            out = {**rest[0], **out}
        elif rest:
            out["anyOf"] = rest
    return out


def first_sentence(text: str) -> str:
    """The whole first sentence of ``text`` (whitespace joined): up to the first ``.``,
    ``!`` or ``?`` that ends the text or is followed by a space and not by a lowercase
    letter or digit (so ``e.g. x`` and ``v3.14`` do not end it)."""
    flat = " ".join(text.split())
    for i, ch in enumerate(flat):
        if ch in ".!?":
            nxt = flat[i + 1: i + 3]
            if nxt == "" or (nxt[0] == " " and not (len(nxt) > 1 and
                                                    (nxt[1].islower() or nxt[1].isdigit()))):
                return flat[: i + 1]
    return flat


class LemmataMCP(MCPServer):
    """The SDK's server with the service's answers: a tool whose arguments fail
    validation, or that is unknown, answers the catalog's JSON error (``bad-request``,
    ``route-not-found``), never pydantic's text; ``tools/list`` publishes each input
    schema through :func:`lean_schema` and no output schema (see :func:`tool_result`)."""

    async def list_tools(self) -> list[Tool]:
        """Every tool, its description and its lean input schema."""
        return [t.model_copy(update={"input_schema": lean_schema(t.input_schema),
                                     "output_schema": None})
                for t in await super().list_tools()]

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Any = None) -> Any:
        """As the SDK's, with argument and lookup failures answered as catalog errors.
        An argument sent as ``null`` is taken as left out (every optional argument defaults
        to None; see :func:`_sdk_annotation`)."""
        if isinstance(arguments, dict):
            arguments = {k: v for k, v in arguments.items() if v is not None}
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                problems = [f"{'.'.join(str(p) for p in err.get('loc', ())) or 'arguments'}: "
                            f"{err.get('msg')}" for err in cause.errors()]
                return error_result(LemmataError("bad-request", f"{name}: "
                                                 + "; ".join(problems)))
            if cause is None and self._tool_manager.get_tool(name) is None:
                return error_result(LemmataError(
                    "route-not-found", f"no tool {name!r}; list_routes names every tool"))
            raise


def build_mcp(svc: Service, *, default_token: str | None = None) -> MCPServer:
    """An MCP server exposing every row of :data:`TOOLS` over ``svc``.

    Args:
        svc: the service the tools call into.
        default_token: the write token used when a call passes none (stdio: the
            operator's ``LEMMATA_TOKEN``).
    """
    server: MCPServer = LemmataMCP(
        "lemmata",
        instructions=(
            "Lemmata is a git-backed proof network for open mathematics in Lean 4. Start with "
            "server_info and list_frontier; read get_node before working; claim_node before "
            "a long run. To write, get_token once (get_dco first), keep the token where this "
            "machine remembers it, and tell your human operator the recovery code. Every tool "
            "has a plain HTTP route: list_routes."
        ),
    )
    for op in TOOLS:
        bearer = " Needs `token`." if op.auth == "bearer" else (
            " Takes `token` where the node needs one." if op.token_optional else "")
        server.add_tool(_make_tool(svc, op, default_token), name=op.tool,
                        description=op.description + bearer,
                        structured_output=False)
    return server
