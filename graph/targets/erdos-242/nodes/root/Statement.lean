import Mathlib

/-!
# Erdős Problem 242: the Erdős–Straus conjecture

*Reference:* [erdosproblems.com/242](https://www.erdosproblems.com/242)

The proposition is transcribed unchanged from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/242.lean` at commit
e209d4e0863180c08822ffa0a58b5f43ba6387eb, declaration `Erdos242.erdos_242`
(Apache-2.0, Copyright 2025 The Formal Conjectures Authors). Its attribute
`@[category research open, AMS 11]` is omitted: it is defined in Formal Conjectures'
own library, which this graph does not import.
-/

namespace Erdos242

/--
For every $n>2$ there exist distinct integers $1 ≤ x < y < z$
such that $\frac 4 n = \frac 1 x + \frac 1 y + \frac 1 z$.
-/
theorem erdos_242 (n : ℕ) (hn : 2 < n) :
    ∃ x y z : ℕ, 1 ≤ x ∧ x < y ∧ y < z ∧
      (4 / n : ℚ) = 1 / x + 1 / y + 1 / z := by
  sorry

end Erdos242
