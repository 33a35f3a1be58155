import FormalConjecturesUtil
import Lemmata.«erdos-41».Defs.Erdos41

/-!
# Erdős Problem 41

*Reference:* [erdosproblems.com/41](https://www.erdosproblems.com/41)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/41.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos41.erdos_41.variants.pairwise`, statement only. Formal Conjectures
attributes (category, AMS) are removed here and recorded in the provenance; the source
commit is pinned in gate-spec.json and recorded in META.yaml.
-/

open Filter Set

namespace Erdos41

variable {α : Type} [AddCommMonoid α]

/--
Erdős proved the following pairwise version.
Let `A ⊆ ℕ` be an infinite set such that the pairwise sums `a + b` are all distinct for `a, b`
in `A` (aside from the trivial coincidences).
Is it true that `liminf n → ∞ |A ∩ {1, …, N}| / N^(1/2) = 0`?
-/
theorem erdos_41.variants.pairwise (A : Set ℕ) (hA₂ : NtupleCondition A 2) (hA : A.Infinite) :
    Filter.atTop.liminf (fun N => (A ∩ Icc 1 N).ncard / (N : ℝ).sqrt) = 0 := by
  sorry

end Erdos41
