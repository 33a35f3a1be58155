import FormalConjecturesUtil
import Lemmata.«erdos-41».Defs.Erdos41

/-!
# Erdős Problem 41

*Reference:* [erdosproblems.com/41](https://www.erdosproblems.com/41)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/41.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos41.erdos_41`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

open Filter Set

namespace Erdos41

variable {α : Type} [AddCommMonoid α]

/--
Let `A ⊆ ℕ` be an infinite set such that the triple sums `a + b + c` are all distinct for
`a, b, c` in `A` (aside from the trivial coincidences). Is it true that
`liminf n → ∞ |A ∩ {1, …, N}| / N^(1/3) = 0`?
-/
theorem erdos_41 (A : Set ℕ) (h_triple : NtupleCondition A 3) (h_infinite : A.Infinite) :
    Filter.atTop.liminf (fun N => (A ∩ Icc 1 N).ncard / (N : ℝ)^(1/3 : ℝ)) = 0 := by
  sorry

end Erdos41
