/-!
Non-vacuity witness for `Tutorial.double_lt` (D-4 step 7): its hypotheses are
satisfiable, here at `m = 0`, `n = 1`.
-/

theorem Tutorial.double_lt.witness : ∃ m n : Nat, m < n :=
  ⟨0, 1, by decide⟩
