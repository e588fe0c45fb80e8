# check_forced_route TRACE ROUTINE ROUTE: every call of ROUTINE in the
# Switchyard trace TRACE took the forced ROUTE, but quick returns, workspace
# queries, shapes the route declines (TSQR of a wide matrix) and forms no route
# takes (xGEMQR of T in xLATSQR's blocks), and some call did. Returns 0 when so, 77 (a skip) when the route cannot run here (no
# device), else 1; says why on stdout. Sourced by the tests' shell scripts.
check_forced_route() {
  local trace=$1 routine=$2 route=$3 unusable wrong taken
  unusable=$(grep " $routine " "$trace" | grep -m1 -o "reason=\"forced $route: [^\"]*" || true)
  if [ -n "$unusable" ] && ! grep " $routine " "$trace" | grep -q " route=$route "; then
    echo "SKIP: ${unusable#reason=\"}"
    return 77
  fi
  wrong=$(grep " $routine " "$trace" \
    | grep -v "reason=\"quick return\|reason=\"workspace query\|reason=\"no route takes\|reason=\"$route route declines" \
    | grep -vc " route=$route ")
  [ "$wrong" -eq 0 ] || { echo "FAIL: $wrong $routine calls did not take the forced route $route"; return 1; }
  taken=$(grep " $routine " "$trace" | grep -c " route=$route ")
  [ "$taken" -gt 0 ] || { echo "FAIL: no $routine call took the forced route $route"; return 1; }
}
