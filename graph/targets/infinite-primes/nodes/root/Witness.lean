import Mathlib

/-!
Non-vacuity witness for `InfinitePrimes.infinite_primes` (D-4 step 7). The statement
has no hypotheses beyond its binder `n : ℕ`, which is inhabited, here by `n = 2`.
-/

theorem InfinitePrimes.infinite_primes.witness : ∃ _n : ℕ, True :=
  ⟨2, trivial⟩
