import FormalConjecturesUtil

/-!
# Erdős Problem 60

*References:*
- [erdosproblems.com/60](https://www.erdosproblems.com/60)
- [HeMaYa21] He, J. and Ma, J. and Yang, T., *Some extremal results on 4-cycles*. Journal of
  Combinatorial Theory B (2021).

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/60.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos60.erdos_60.variants.he_ma_yang`, statement only. Formal Conjectures
attributes (category, AMS) are removed here and recorded in the provenance; the source
commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos60

open SimpleGraph Filter
open scoped Real

/--
He, Ma, and Yang [HeMaYa21] proved the conjecture when $n = q^2 + q + 1$ for some even integer $q$.
-/
theorem erdos_60.variants.he_ma_yang :
    ∃ c : ℝ, c > 0 ∧
      ∀ (q : ℕ) (_hq : Even q),
        ∀ (G : SimpleGraph (Fin (q^2 + q + 1))) [DecidableRel G.Adj],
          (extremalNumber (q^2 + q + 1) (cycleGraph 4) < G.edgeFinset.card) →
          (c * Real.sqrt ((q^2 + q + 1) : ℝ) ≤ ({ H' : G.Subgraph | Nonempty (H'.coe ≃g cycleGraph 4) }.ncard : ℝ)) := by
  sorry

end Erdos60
