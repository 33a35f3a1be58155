import FormalConjecturesUtil

/-!
# Erdős Problem 60

*References:*
- [erdosproblems.com/60](https://www.erdosproblems.com/60)
- [HeMaYa21] He, J. and Ma, J. and Yang, T., *Some extremal results on 4-cycles*. Journal of
  Combinatorial Theory B (2021).

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/60.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos60.erdos_60`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

namespace Erdos60

open SimpleGraph Filter
open scoped Real

/--
Does every graph on $n$ vertices with $>\mathrm{ex}(n;C_4)$ edges contain $\gg n^{1/2}$ many
copies of $C_4$?
-/
theorem erdos_60 :
    ∃ c : ℝ, c > 0 ∧
      ∀ᶠ n : ℕ in atTop,
        ∀ (G : SimpleGraph (Fin n)) [DecidableRel G.Adj],
          (extremalNumber n (cycleGraph 4) < G.edgeFinset.card) →
          (c * Real.sqrt (n : ℝ) ≤ ({ H' : G.Subgraph | Nonempty (H'.coe ≃g cycleGraph 4) }.ncard : ℝ)) := by
  sorry

end Erdos60
