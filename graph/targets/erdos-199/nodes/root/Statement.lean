import FormalConjecturesUtil

/-!
# Erdős Problem 199

*References:*
- [erdosproblems.com/199](https://www.erdosproblems.com/199)
- [Ba75] Baumgartner, James E., *Partitioning vector spaces*. J. Combinatorial Theory
  Ser. A (1975), 231-233.

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/199.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos199.erdos_199`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

namespace Erdos199

/--
If $A\subset \mathbb{R}$ does not contain a 3-term arithmetic progression then must $\mathbb{R}\backslash A$ contain an infinite arithmetic progression?

Baumgartner [Ba75] answered this in the negative.
-/
theorem erdos_199 : answer(False) ↔
    ∀ A : Set ℝ, ThreeAPFree A →
      ∃ S : Set ℝ, S.IsAPOfLength ⊤ ∧ S ⊆ Aᶜ := by
  sorry

end Erdos199
