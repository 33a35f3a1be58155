import FormalConjecturesUtil

/-!
# Erdős Problem 340

*Reference:* [erdosproblems.com/340](https://www.erdosproblems.com/340)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/340.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos340.erdos_340.variants.cofinite_sub`, statement only. Formal Conjectures
attributes (category, AMS) are removed here and recorded in the provenance; the source
commit is pinned in gate-spec.json and recorded in META.yaml.
-/

open Filter Finset
open scoped Real Pointwise

namespace Erdos340

/--
It may be true that all or almost all integers are in $A - A$.
-/
theorem erdos_340.variants.cofinite_sub : answer(sorry) ↔
    ∀ᶠ n in cofinite, n ∈ Set.range greedySidon - Set.range greedySidon := by
  sorry

end Erdos340
