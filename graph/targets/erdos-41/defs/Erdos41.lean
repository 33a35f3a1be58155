import FormalConjecturesUtil

/-!
# Erdős Problem 41: definitions

*Reference:* [erdosproblems.com/41](https://www.erdosproblems.com/41)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/41.lean` (Apache-2.0; © The Formal Conjectures Authors):
the definitions `Erdos41.NtupleCondition`. Formal Conjectures attributes (category, AMS)
are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

open Filter Set

namespace Erdos41

variable {α : Type} [AddCommMonoid α]

/--
For a given set `A`, the n-tuple sums `a₁ + ... + aₙ` are all distinct for `a₁, ..., aₙ` in `A`
(aside from the trivial coincidences).
-/
def NtupleCondition (A : Set α) (n : ℕ) : Prop := ∀ (I : Finset α) (J : Finset α),
  ↑I ⊆ A ∧ ↑J ⊆ A ∧ I.card = n ∧ J.card = n ∧
  (∑ i ∈ I, i = ∑ j ∈ J, j) → I = J

end Erdos41
