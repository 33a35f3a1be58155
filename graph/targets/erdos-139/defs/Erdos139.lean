import FormalConjecturesUtil

/-!
# Erdős Problem 139: definitions

*Reference:* [erdosproblems.com/139](https://www.erdosproblems.com/139)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/139.lean` (Apache-2.0; © The Formal Conjectures Authors):
the definitions `Erdos139.r`. Formal Conjectures attributes (category, AMS) are removed
here and recorded in the provenance; the source commit is pinned in gate-spec.json and
recorded in META.yaml.
-/

open scoped Topology

namespace Erdos139

noncomputable abbrev r := Set.IsAPOfLengthFree.maxCard

end Erdos139
