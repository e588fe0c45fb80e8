# awk -v tolerance=T -f compare_results.awk REFERENCE RESULTS
# Both files hold one array a line: a name, then its values. Fails (exit 1,
# saying which) unless RESULTS has the same arrays, in the same order, each
# with as many values, and every value within T times the array's largest
# magnitude in REFERENCE of its reference value: rounding, not a different
# answer.
FNR == NR { reference[FNR] = $0; arrays = FNR; next }
{
  split(reference[FNR], want)
  if ($1 != want[1] || NF != length(want)) {
    print "FAIL: array " FNR " is " $1 " with " NF - 1 " values, expected " want[1] " with " length(want) - 1
    failed = 1; exit 1
  }
  scale = 0
  for (i = 2; i <= NF; i++) if (abs(want[i]) > scale) scale = abs(want[i])
  worst = 0
  for (i = 2; i <= NF; i++) if (abs($i - want[i]) > worst) worst = abs($i - want[i])
  if (worst > tolerance * scale) {
    printf "FAIL: %s differs by %.3g, more than %g of its largest magnitude %.3g\n", $1, worst, tolerance, scale
    failed = 1
  }
}
END {
  if (!failed && FNR != arrays) { print "FAIL: " FNR " arrays, expected " arrays; failed = 1 }
  exit failed
}
function abs(x) { return x < 0 ? -x : x }
