import FormalConjecturesUtil

/-!
# Erdős Problem 11

*Reference:* [erdosproblems.com/11](https://www.erdosproblems.com/11)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/11.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos11.erdos_11.variants.two_pow_two`, statement only. Formal Conjectures
attributes (category, AMS) are removed here and recorded in the provenance; the source
commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos11

/--
Is every odd $n > 1$ the sum of a squarefree number and two powers of 2?
-/
theorem erdos_11.variants.two_pow_two (n : ℕ) (hn : Odd n) (hn' : 1 < n) :
    ∃ k l m : ℕ , Squarefree k ∧ n = k + 2^l + 2^m := by
  sorry

end Erdos11
