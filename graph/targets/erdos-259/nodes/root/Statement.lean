import FormalConjecturesUtil

/-!
# Erdős Problem 259

*Reference:* [erdosproblems.com/259](https://www.erdosproblems.com/259)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/259.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos259.erdos_259`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

open scoped ArithmeticFunction.Moebius

namespace Erdos259

/--
Is $\sum_{n} \mu(n)^2\frac{n}{2^n}$ irrational?

This is true, and was proved by Chen and Ruzsa.

[ChRu99] Chen, Yong-Gao and Ruzsa, Imre Z., On the irrationality of certain series. Period. Math. Hungar. (1999), 31--37.
-/
theorem erdos_259 : Irrational (∑' n : ℕ, (μ n) ^ 2 * n / (2 ^ n)) := by
  sorry

end Erdos259
