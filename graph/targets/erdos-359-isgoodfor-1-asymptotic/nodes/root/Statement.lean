import FormalConjecturesUtil
import Lemmata.«erdos-359-isgoodfor-1-asymptotic».Defs.Erdos359

/-!
# Erdős Problem 359

*Reference:* [erdosproblems.com/359](https://www.erdosproblems.com/359)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/359.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos359.erdos_359.variants.isGoodFor_1_asymptotic`, statement only. Formal
Conjectures attributes (category, AMS) are removed here and recorded in the provenance;
the source commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos359

open Filter Asymptotics

/-- Suppose monotone sequence $A$ satisfies the following: `A 0 = 1` and for all `j`, `A (j + 1)` is the
smallest natural number that cannot be written as a sum of consecutive terms of `A 0, ..., A j`.
Then it is conjectured that $$a_k ~ \frac{k \log k}{\log \log k}$$. -/
theorem erdos_359.variants.isGoodFor_1_asymptotic (A : ℕ → ℕ) (hA : IsGoodFor A 1) :
    (fun k ↦ (A k : ℝ)) ~[atTop] (fun k ↦ k * (k : ℝ).log / (k : ℝ).log.log) := by
  sorry

end Erdos359
