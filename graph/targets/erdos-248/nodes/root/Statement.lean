import FormalConjecturesUtil

/-!
# Erdős Problem 248

*References:*
- [erdosproblems.com/248](https://www.erdosproblems.com/248)
- [TaTe25] T. Tao and J. Teräväinen, Quantitative correlations and some problems on prime factors of consecutive integers. arXiv:2512.01739 (2025).

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/248.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos248.erdos_248`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

open scoped ArithmeticFunction.omega

namespace Erdos248

/--
Are there infinitely many $n$ such that $\omega(n + k) \ll k$ for all $k \geq 1$?
Here $\omega(n)$ is the number of distinct prime divisors of $n$.
-/
theorem erdos_248 : (∃ C > (0 : ℝ), { n | ∀ k ≥ 1, ω (n + k) ≤ C * k }.Infinite) := by
  sorry

end Erdos248
