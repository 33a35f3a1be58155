import FormalConjecturesUtil

/-!
# Erdős Problem 218

*Reference:* [erdosproblems.com/218](https://www.erdosproblems.com/218)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/218.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos218.erdos_218.variants.infinite_equal_prime_gap`, statement only. Formal
Conjectures attributes (category, AMS) are removed here and recorded in the provenance;
the source commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos218

/--
There are infinitely many indices $n$ such that the prime gap at $n$ is equal to the prime gap
at $n+1$. This is equivalent to the existence of infinitely many arithmetic progressions of
length $3$, see `erdos_141.variants.infinite_three`.
-/
theorem erdos_218.variants.infinite_equal_prime_gap : {n | primeGap n = primeGap (n + 1)}.Infinite := by
  sorry

end Erdos218
