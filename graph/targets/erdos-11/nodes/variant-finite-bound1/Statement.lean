import FormalConjecturesUtil

/-!
# Erdős Problem 11

*Reference:* [erdosproblems.com/11](https://www.erdosproblems.com/11)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/11.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos11.erdos_11.variants.finite_bound1`, statement only. Formal Conjectures
attributes (category, AMS) are removed here and recorded in the provenance; the source
commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos11

/--
Every odd $1 < n < 10^7$ is the sum of a squarefree number and a power of 2.
-/
theorem erdos_11.variants.finite_bound1 (n : ℕ) (hn : Odd n) (h : n < 10^7) (hn' : 1 < n) :
    ∃ k l : ℕ , Squarefree k ∧ n = k + 2^l := by
  sorry

end Erdos11
