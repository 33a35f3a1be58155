import FormalConjecturesUtil
import Lemmata.«erdos-236».Defs.Erdos236

/-!
# Erdős Problem 236

*Reference:* [erdosproblems.com/236](https://www.erdosproblems.com/236)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/236.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos236.erdos_236`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

open Filter Asymptotics

namespace Erdos236

/--
Let $f(n)$ count the number of solutions to $n=p+2^k$ for prime $p$ and $k\geq 0$. Show that $f(n)=o(\log n)$.
-/
theorem erdos_236: (fun n => (f n : ℝ)) =o[atTop] (fun n => Real.log (n : ℝ)) := by
  sorry

end Erdos236
