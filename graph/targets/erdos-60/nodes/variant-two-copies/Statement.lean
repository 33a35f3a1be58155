import FormalConjecturesUtil

/-!
# Erdős Problem 60

*References:*
- [erdosproblems.com/60](https://www.erdosproblems.com/60)
- [HeMaYa21] He, J. and Ma, J. and Yang, T., *Some extremal results on 4-cycles*. Journal of
  Combinatorial Theory B (2021).

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/60.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos60.erdos_60.variants.two_copies`, statement only. Formal Conjectures
attributes (category, AMS) are removed here and recorded in the provenance; the source
commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos60

open SimpleGraph Filter
open scoped Real

/--
Erdős and Simonovits conjectured that at least 2 copies of $C_4$ are guaranteed.
-/
theorem erdos_60.variants.two_copies :
    ∀ᶠ n : ℕ in atTop,
      ∀ (G : SimpleGraph (Fin n)) [DecidableRel G.Adj],
        (extremalNumber n (cycleGraph 4) < G.edgeFinset.card) →
        (2 ≤ { H' : G.Subgraph | Nonempty (H'.coe ≃g cycleGraph 4) }.ncard) := by
  sorry

end Erdos60
