import FormalConjecturesUtil

/-!
# Erdős Problem 11

*Reference:* [erdosproblems.com/11](https://www.erdosproblems.com/11)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/11.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos11.erdos_11.variants.granville_soundararajan`, statement only. Formal
Conjectures attributes (category, AMS) are removed here and recorded in the provenance;
the source commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos11

/--
Suppose that every odd $n$ is the sum of a squarefree number and a power of 2. Then the set of primes
$p$ such that $2 ^ p ≡ 2 \mod p ^ 2$ is infinite. This is Theorem 1 in [GrSo98].
[GrSo98] Granville, A. and Soundararajan, K., A Binary Additive Problem of Erdős and the Order of $2$ mod $p^2$. The Ramanujan Journal (1998), 283-298.
-/
theorem erdos_11.variants.granville_soundararajan (H : type_of% erdos_11) :
    {p : ℕ | p.Prime ∧ 2 ^ p ≡ 2 [MOD p ^ 2]}.Infinite := by
  sorry

end Erdos11
