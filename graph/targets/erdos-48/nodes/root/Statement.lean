import FormalConjecturesUtil

/-!
# Erdős Problem 48

*Reference:* [erdosproblems.com/48](https://www.erdosproblems.com/48)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/48.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos48.erdos_48`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

open scoped ArithmeticFunction.sigma

namespace Erdos48

/--
Are there infinitely many integers $n, m$ such that $ϕ(n) = σ(m)$?
-/
theorem erdos_48 :
    answer(True) ↔ {(n, m) : ℕ × ℕ | n.totient = σ 1 m}.Infinite := by
  sorry

end Erdos48
