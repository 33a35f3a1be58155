import FormalConjecturesUtil
import Lemmata.«erdos-359-i».Defs.Erdos359

/-!
# Erdős Problem 359

*Reference:* [erdosproblems.com/359](https://www.erdosproblems.com/359)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/359.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos359.erdos_359.parts.i`, statement only. Formal Conjectures attributes
(category, AMS) are removed here and recorded in the provenance; the source commit is
pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos359

open Filter Asymptotics

/-- Let $a_1< a_2 < ⋯ $ be an infinite sequence of integers such that $a_1=1$ and $a_{i+1}$ is the
least integer which is not a sum of consecutive earlier $a_j$s. Show that $a_k / k \to \infty$. -/
theorem erdos_359.parts.i (A : ℕ → ℕ) (hA : IsGoodFor A 1) :
    atTop.Tendsto (fun k ↦ (A k : ℝ) / k) atTop := by
  sorry

end Erdos359
