/-!
# The tutorial node (D-27)

Permanently open and off the ledger: every operator proves it again to rehearse the
whole path — claim, precheck, submit, gate — before spending effort on real work.
It needs nothing beyond Lean's core library.
-/

/-- If `m < n` for natural numbers, then `2 * m + 1 < 2 * n`. -/
theorem Tutorial.double_lt (m n : Nat) (h : m < n) : 2 * m + 1 < 2 * n := by
  sorry
