"""Step 2's D-33 evidence gate on a dormancy declaration (issue 18).

A ``target-status/v1`` record declaring ``dormant`` is refused at step 2 unless it names the
D-25 series at its date and condition (a) holds on the base graph: every ready node carries
at least K attempts, or no progress artifact landed in N days (K, N: ``policy.json``'s
``dormancy_k_attempts``, ``dormancy_n_days``); and its reasoning is published, (b). The
series and the judgment are :mod:`network.record.dormancy`'s, so the service's refusal
before a pull request opens and the gate's agree. "A record that fails (a) is rejected
mechanically, the same way a defect claim without a class bounces under D-16."
"""

from __future__ import annotations

from network.errors import define
from network.gate.artifacts import Artifact, Kind
from network.gate.diff import Diff
from network.gate.result import Diagnostic
from network.record import dormancy
from network.record import models as m
from network.record.read.loader import Graph, parse_record

define("dormancy-series-missing", 2, 422,
       "A dormancy declaration does not name the D-25 series at declaration (D-33).",
       "Give starvation_series with k_attempts, n_days, ready, ready_below_k, "
       "last_progress and days_since_progress as the record's date reads them (the "
       "refusal's message names the values).")
define("dormancy-series-mismatch", 2, 422,
       "A value the dormancy declaration names is not the series at its date (D-33).",
       "Copy the values the refusal's message names; the series is derived from the record.")
define("dormancy-evidence-insufficient", 2, 422,
       "A dormancy declaration fails D-33 (a): a ready node carries fewer than K attempts "
       "and a progress artifact landed within N days.",
       "Wait until every ready node has K attempts or N days pass without progress "
       "(policy.json dormancy_k_attempts, dormancy_n_days).")
define("dormancy-date-out-of-range", 2, 422,
       "A dormancy declaration is dated before the last merge or after its own commit "
       "(D-33: the series is the one at declaration).",
       "Date the declaration today, after the last merge, and name the series as of it.")
define("dormancy-reasoning-empty", 2, 422,
       "A dormancy declaration publishes no reasoning (D-33 (b)).",
       "Write the reasoning in the record's reasoning field.")


def dormancy_findings(diff: Diff, base: Graph, art: Artifact,
                      head_date: str | None = None) -> list[Diagnostic]:
    """The D-33 findings on each dormancy declaration the pull request adds, judged on
    ``base`` (records that do not parse are the schema check's, and are skipped here);
    ``head_date`` is the head commit's date, the latest a declaration may be dated.

    Returns:
        :class:`Diagnostic` list with the codes of
        :func:`network.record.dormancy.evidence_findings`.
    """
    if art.kind is not Kind.DORMANCY or art.target not in base.targets:
        return []
    out: list[Diagnostic] = []
    for ch in diff.changes:
        if ch.path not in art.paths or not ch.path.endswith(".yaml"):
            continue
        rec, problems = parse_record(ch.path, diff.new_bytes(ch), m.TargetStatusRecord)
        if problems or not isinstance(rec, m.TargetStatusRecord):
            continue
        for code, message in dormancy.evidence_findings(
                base, art.target, rec.declaration, str(rec.date), rec.reasoning,
                rec.starvation_series, not_after=head_date):
            out.append(Diagnostic(code, message, ch.path))
    return out
