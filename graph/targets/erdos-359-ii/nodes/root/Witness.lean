import FormalConjecturesUtil
import Lemmata.«erdos-359-ii».Defs.Erdos359

/-!
non-vacuity witness for `Erdos359.erdos_359.parts.ii` (D-4 step 7): its hypotheses are
satisfiable; the curator proves this before the import merges
-/

namespace Erdos359

open Filter Asymptotics

theorem erdos_359.parts.ii.witness : ∃ (A : ℕ → ℕ) (hA : IsGoodFor A 1) (c : ℝ) (hc : 0 < c), True := by
  sorry

end Erdos359
