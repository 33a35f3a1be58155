import FormalConjecturesUtil

/-!
# Erdős Problem 340

*Reference:* [erdosproblems.com/340](https://www.erdosproblems.com/340)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/340.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos340.erdos_340`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

open Filter Finset
open scoped Real Pointwise

namespace Erdos340

/--
Let $A = \{1, 2, 4, 8, 13, 21, 31, 45, 66, 81, 97, \ldots\}$ be the greedy Sidon sequence:
we begin with $1$ and iteratively include the next smallest integer that preserves the
Sidon property (i.e. there are no non-trivial solutions to $a + b = c + d$). What is the
order of growth of $A$? Is it true that $|A \cap \{1, \ldots, N\}| \gg N^{1/2 - \varepsilon}$
for all $\varepsilon > 0$ and large $N$?
-/
theorem erdos_340 (ε : ℝ) (hε : ε > 0) :
    (fun n : ℕ ↦ √n / n ^ ε) =O[atTop]
      fun n : ℕ ↦ ((Set.range greedySidon ∩ Set.Icc 1 n).ncard : ℝ) := by
  sorry

end Erdos340
