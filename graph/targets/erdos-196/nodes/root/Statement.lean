import FormalConjecturesUtil

/-!
# Erdős Problem 196

*Reference:* [erdosproblems.com/196](https://www.erdosproblems.com/196)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/196.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos196.erdos_196`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

namespace Erdos196

/-- Must every permutation of $\mathbb{N}$, contain a monotone 4-term arithmetic progression?-/
theorem erdos_196 : answer(sorry) ↔ ∀ (f : ℕ ≃ ℕ), HasMonotoneAP f 4 := by
  sorry

end Erdos196
