import FormalConjecturesUtil

/-!
# Erdős Problem 617

*References:*
- [erdosproblems.com/617](https://www.erdosproblems.com/617)
- [ErGy99] Erdős, Paul and Gyárfás, András, Split and balanced colorings of complete graphs.
  Discrete Math. (1999), 79-86.

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/617.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos617.erdos_617.variants.r_eq_3`, statement only. Formal Conjectures
attributes (category, AMS) are removed here and recorded in the provenance; the source
commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos617

/--
Erdős and Gyárfás [ErGy99] proved the conjecture for $r=3$.
-/
theorem erdos_617.variants.r_eq_3 (r : ℕ) (hr : r ≥ 3) {V : Type} [Fintype V] [DecidableEq V]
    (hV : Fintype.card V = 3^2 + 1) (coloring : Sym2 V → Fin 3) :
    ∃ (S : Finset V) (k : Fin 3),
      S.card = 3 + 1 ∧
      ∀ u ∈ S, ∀ v ∈ S, u ≠ v → coloring s(u, v) ≠ k := by
  sorry

end Erdos617
