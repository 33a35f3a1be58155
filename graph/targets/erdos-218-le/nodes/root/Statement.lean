import FormalConjecturesUtil

/-!
# Erdős Problem 218

*Reference:* [erdosproblems.com/218](https://www.erdosproblems.com/218)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/218.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos218.erdos_218.variants.le`, statement only. Formal Conjectures
attributes (category, AMS) are removed here and recorded in the provenance; the source
commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos218

/--
The set of indices $n$ for which a prime gap is followed by a larger or equal prime gap has a
natural density of $\frac 1 2$.
-/
theorem erdos_218.variants.le : {n | primeGap n ≤ primeGap (n + 1)}.HasDensity <| 1 / 2 := by
  sorry

end Erdos218
