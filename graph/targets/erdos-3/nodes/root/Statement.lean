import FormalConjecturesUtil

/-!
# Erdős Problem 3

*Reference:* [erdosproblems.com/3](https://www.erdosproblems.com/3)

Imported from google-deepmind/formal-conjectures, `FormalConjectures/ErdosProblems/3.lean`
(Apache-2.0; © The Formal Conjectures Authors): declaration `Erdos3.erdos_3`, statement
only. Formal Conjectures attributes (category, AMS) are removed here and recorded in the
provenance; the source commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos3

/--
If $A \subset \mathbb{N}$ has $\sum_{n \in A}\frac 1 n = \infty$, then must $A$ contain arbitrarily
long arithmetic progressions?
-/
theorem erdos_3 : answer(sorry) ↔ ∀ A : Set ℕ,
    (¬ Summable fun a : A ↦ 1 / (a : ℝ)) →
    ∃ᶠ (k : ℕ) in Filter.atTop, ∃ S ⊆ A, S.IsAPOfLength k := by
  sorry

end Erdos3
