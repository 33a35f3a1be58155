import FormalConjecturesUtil

/-!
# Erdős Problem 28

*Reference:* [erdosproblems.com/28](https://www.erdosproblems.com/28)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/28.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos28.erdos_28`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

open Filter Set AdditiveCombinatorics
open scoped Pointwise

namespace Erdos28

/--
If $A ⊆ \mathbb{N}$ is such that $A + A$ contains all but finitely many integers then
 $\limsup 1_A ∗ 1_A(n) = \infty$.
-/
theorem erdos_28 (A : Set ℕ) (h : (A + A)ᶜ.Finite) :
    limsup (fun (n : ℕ) => (sumRep A n : ℕ∞)) atTop = (⊤ : ℕ∞) := by
  sorry

end Erdos28
