import FormalConjecturesUtil

/-!
# Erdős Problem 1094

*Reference:* [erdosproblems.com/1094](https://www.erdosproblems.com/1094)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/1094.lean` (Apache-2.0; © The Formal Conjectures
Authors): declaration `Erdos1094.erdos_1094`, statement only. Formal Conjectures
attributes (category, AMS) are removed here and recorded in the provenance; the source
commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos1094

open scoped Nat

/--
For all $n\ge 2k$ the least prime factor of $\binom{n}{k}$ is $\le\max(n/k,k)$, with only
finitely many exceptions.
-/
theorem erdos_1094 :
    {(n, k) : ℕ × ℕ | 0 < k ∧ 2 * k ≤ n ∧ (n.choose k).minFac > max (n / k) k}.Finite := by
  sorry

end Erdos1094
