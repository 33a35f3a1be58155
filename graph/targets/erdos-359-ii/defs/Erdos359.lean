import FormalConjecturesUtil

/-!
# Erdős Problem 359: definitions

*Reference:* [erdosproblems.com/359](https://www.erdosproblems.com/359)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/359.lean` (Apache-2.0; © The Formal Conjectures Authors):
the definitions `Erdos359.IsGoodFor`. Formal Conjectures attributes (category, AMS) are
removed here and recorded in the provenance; the source commit is pinned in gate-spec.json
and recorded in META.yaml.
-/

namespace Erdos359

open Filter Asymptotics

/-- The predicate that `A` is monotone, `A 0 = n` and for all `j`, `A (j + 1)` is the smallest natural number that
cannot be written as a sum of consecutive terms of `A 0, ..., A j` -/
def IsGoodFor (A : ℕ → ℕ) (n : ℕ) : Prop := A 0 = n ∧ StrictMono A ∧
  ∀ j, IsLeast
    {m : ℕ | A j < m ∧ ∀ a b, Finset.Icc a b ⊆ Finset.Iic j → m ≠ ∑ i ∈ Finset.Icc a b, A i}
    (A <| j + 1)

end Erdos359
