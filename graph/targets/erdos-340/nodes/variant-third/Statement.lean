import FormalConjecturesUtil

/-!
# Erdős Problem 340

*Reference:* [erdosproblems.com/340](https://www.erdosproblems.com/340)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/340.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos340.erdos_340.variants.third`, statement only. Formal Conjectures
attributes (category, AMS) are removed here and recorded in the provenance; the source
commit is pinned in gate-spec.json and recorded in META.yaml.
-/

open Filter Finset
open scoped Real Pointwise

namespace Erdos340

/--
It is trivial that this sequence grows at least like $\gg N^{1/3}$.
-/
theorem erdos_340.variants.third (ε : ℝ) (hε : ε > 0) :
    (fun n : ℕ ↦ (n : ℝ) ^ ((1 : ℝ) / 3)) =O[atTop]
      fun n : ℕ ↦ ((Set.range greedySidon ∩ Set.Icc 1 n).ncard : ℝ) := by
  sorry

end Erdos340
