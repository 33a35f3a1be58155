import FormalConjecturesUtil
import Lemmata.«erdos-41».Defs.Erdos41

/-!
non-vacuity witness for `Erdos41.erdos_41.variants.pairwise` (D-4 step 7): its hypotheses
are satisfiable; the curator proves this before the import merges
-/

open Filter Set

namespace Erdos41

variable {α : Type} [AddCommMonoid α]

theorem erdos_41.variants.pairwise.witness : ∃ (A : Set ℕ) (hA₂ : NtupleCondition A 2) (hA : A.Infinite), True := by
  sorry

end Erdos41
