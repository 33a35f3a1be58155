import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos28.erdos_28` (D-4 step 7): its hypotheses are satisfiable;
the curator proves this before the import merges
-/

open Filter Set AdditiveCombinatorics
open scoped Pointwise

namespace Erdos28

theorem erdos_28.witness : ∃ (A : Set ℕ) (h : (A + A)ᶜ.Finite), True := by
  sorry

end Erdos28
