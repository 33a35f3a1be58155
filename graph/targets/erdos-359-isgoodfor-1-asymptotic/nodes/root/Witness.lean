import FormalConjecturesUtil
import Lemmata.«erdos-359-isgoodfor-1-asymptotic».Defs.Erdos359

/-!
non-vacuity witness for `Erdos359.erdos_359.variants.isGoodFor_1_asymptotic` (D-4 step 7):
its hypotheses are satisfiable; the curator proves this before the import merges
-/

namespace Erdos359

open Filter Asymptotics

theorem erdos_359.variants.isGoodFor_1_asymptotic.witness : ∃ (A : ℕ → ℕ) (hA : IsGoodFor A 1), True := by
  sorry

end Erdos359
