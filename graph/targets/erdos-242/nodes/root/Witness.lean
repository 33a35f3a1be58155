import Mathlib

/-!
Non-vacuity witness for `Erdos242.erdos_242` (D-4 step 7): its hypotheses are
satisfiable, here at `n = 3`. (At `n = 3` the conclusion also holds:
4/3 = 1/1 + 1/4 + 1/12 with 1 < 4 < 12; that instance is not what step 7 asks for.)
-/

theorem Erdos242.erdos_242.witness : ∃ n : ℕ, 2 < n :=
  ⟨3, by norm_num⟩
