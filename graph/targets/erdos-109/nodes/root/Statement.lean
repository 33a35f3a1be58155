import FormalConjecturesUtil

/-!
# Erdős Problem 109

*References:*
- [erdosproblems.com/109](https://www.erdosproblems.com/109)
- [MRR19] J. Moreira, F.K. Richter, and D. Robertson, A proof of a sumset conjecture of Erdős,
  Annals of Math. 189 (2019), 605-652.

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/109.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos109.erdos_109`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

open Pointwise

namespace Erdos109

/--
Any $A\subseteq \mathbb{N}$ of positive upper density contains a sumset $B+C$ where both $B$ and $C$
are infinite.

The Erdős sumset conjecture. Proved by Moreira, Richter, and Robertson [MRR19].
-/
theorem erdos_109 (A : Set ℕ) (h : A.upperDensity > 0) :
    ∃ B C : Set ℕ, B.Infinite ∧ C.Infinite ∧ B + C ⊆ A := by
  sorry

end Erdos109
