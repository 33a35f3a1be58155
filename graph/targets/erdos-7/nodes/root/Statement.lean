import FormalConjecturesUtil

/-!
# Erdős Problem 7

*Reference:* [erdosproblems.com/7](https://www.erdosproblems.com/7)

Imported from google-deepmind/formal-conjectures, `FormalConjectures/ErdosProblems/7.lean`
(Apache-2.0; © The Formal Conjectures Authors): declaration `Erdos7.erdos_7`, statement
only. Formal Conjectures attributes (category, AMS) are removed here and recorded in the
provenance; the source commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos7

open Set

/--
Is there a covering system all of whose moduli are odd (and greater than 1)?
-/
theorem erdos_7 : answer(sorry) ↔
    ∃ (C : StrictCoveringSystem ℤ), ∀ i,
      ¬ C.moduli i ≤ Ideal.span {2} ∧ C.moduli i ≠ ⊤ := by
  sorry

end Erdos7
