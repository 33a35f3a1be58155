import FormalConjecturesUtil

/-!
# Erdős Problem 340

*Reference:* [erdosproblems.com/340](https://www.erdosproblems.com/340)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/340.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos340.erdos_340.variants._22_mem_sub`, statement only. Formal Conjectures
attributes (category, AMS) are removed here and recorded in the provenance; the source
commit is pinned in gate-spec.json and recorded in META.yaml.
-/

open Filter Finset
open scoped Real Pointwise

namespace Erdos340

/--
Erdős and Graham [ErGr80] also asked about the difference set $A - A$ and whether this
contains $22$, which it does.

[ErGr80] Erdős, P. and Graham, R., Old and new problems and results in combinatorial number
theory. Monographies de L'Enseignement Mathematique (1980).
-/
theorem erdos_340.variants._22_mem_sub :
    22 ∈ Set.range greedySidon - Set.range greedySidon := by
  sorry

end Erdos340
