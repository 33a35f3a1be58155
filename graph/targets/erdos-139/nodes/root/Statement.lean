import FormalConjecturesUtil
import Lemmata.«erdos-139».Defs.Erdos139

/-!
# Erdős Problem 139

*Reference:* [erdosproblems.com/139](https://www.erdosproblems.com/139)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/139.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos139.erdos_139`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

open scoped Topology

namespace Erdos139

/--
**Erdős Problem 139**:
Let $r_k(N)$ be the size of the largest subset of ${1,...,N}$ which does not contain a non-trivial
$k$-term arithmetic progression. Prove that $r_k(N) = o(N)$.
-/
theorem erdos_139 (k : ℕ) (hk : 1 < k) :
    Filter.Tendsto (fun N => (r k N / N : ℝ)) Filter.atTop (𝓝 0) := by
  sorry

end Erdos139
