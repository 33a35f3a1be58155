import FormalConjecturesUtil
import Lemmata.«erdos-41».Defs.Erdos41

/-!
non-vacuity witness for `Erdos41.erdos_41` (D-4 step 7): its hypotheses are satisfiable;
the curator proves this before the import merges
-/

open Filter Set

namespace Erdos41

variable {α : Type} [AddCommMonoid α]

theorem erdos_41.witness : ∃ (A : Set ℕ) (h_triple : NtupleCondition A 3) (h_infinite : A.Infinite), True := by
  sorry

end Erdos41
