import FormalConjecturesUtil
import Lemmata.«erdos-359-i».Defs.Erdos359

/-!
non-vacuity witness for `Erdos359.erdos_359.parts.i` (D-4 step 7): its hypotheses are
satisfiable; the curator proves this before the import merges
-/

namespace Erdos359

open Filter Asymptotics

theorem erdos_359.parts.i.witness : ∃ (A : ℕ → ℕ) (hA : IsGoodFor A 1), True := by
  sorry

end Erdos359
