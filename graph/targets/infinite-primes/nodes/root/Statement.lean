import Mathlib

/-!
# The infinitude of primes (calibration)

Euclid, *Elements* IX.20. A result already in the literature, listed as a calibration
target (D-6 on-ramp): a proof here settles no open question. Mathlib proves the same
proposition as `Nat.exists_infinite_primes` (Mathlib/Data/Nat/Prime/Infinite.lean).
-/

namespace InfinitePrimes

/-- For every natural number `n` there is a prime `p` with `n ≤ p`. -/
theorem infinite_primes : ∀ n : ℕ, ∃ p, n ≤ p ∧ Nat.Prime p := by
  sorry

end InfinitePrimes
