import FormalConjecturesUtil

/-!
# Erdős Problem 617

*References:*
- [erdosproblems.com/617](https://www.erdosproblems.com/617)
- [ErGy99] Erdős, Paul and Gyárfás, András, Split and balanced colorings of complete graphs.
  Discrete Math. (1999), 79-86.

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/617.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos617.erdos_617.variants.r2`, statement only. Formal Conjectures
attributes (category, AMS) are removed here and recorded in the provenance; the source
commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos617

/--
Erdős and Gyárfás [ErGy99] showed this property fails for infinitely many $r$ if we replace $r^2+1$
by $r^2$.
-/
theorem erdos_617.variants.r2 :
    {r : ℕ | ∃ (V : Type) (_ : Fintype V) (_ : DecidableEq V), Fintype.card V = r^2 ∧
      ∃ (coloring : Sym2 V → Fin r),
        ∀ (S : Finset V), S.card = r + 1 →
          ∀ (k : Fin r), ∃ u ∈ S, ∃ v ∈ S, u ≠ v ∧ coloring s(u, v) = k}.Infinite := by
  sorry

end Erdos617
