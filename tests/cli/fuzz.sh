#!/usr/bin/env bash
# tare fuzz (issue 24), the CI run: a fixed-seed run of SECONDS over BACKENDS (tests/tools.cmake:
# ref, cpu, onednn as built) must end with no finding in tare (exit status 0); its summary.json
# and index.html hold the run; bad arguments fail with one stderr line and exit status 1; a
# non-empty --out is refused, never overwritten. Usage: fuzz.sh TARE WORK_DIR SECONDS BACKENDS
set -u
TARE=$1; WORK=$2; SECS=$3; BACKENDS=$4
rm -rf "$WORK"; mkdir -p "$WORK"
fail=0
"$TARE" fuzz --seconds "$SECS" --seed 1 --backends "$BACKENDS" --out "$WORK/run" > "$WORK/out.txt" 2> "$WORK/err.txt"
status=$?
cat "$WORK/out.txt"
if [ "$status" -ne 0 ]; then
  echo "FAIL: tare fuzz exited $status: a finding in tare (reproducers in $WORK/run/findings) or an error: $(cat "$WORK/err.txt")"
  fail=1
fi
python3 - "$WORK/run/summary.json" "$BACKENDS" <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))
assert s["seed"] == 1, s["seed"]
assert s["models"] > 0 and s["nodes"] >= s["models"], s
assert s["engines"] == sys.argv[2].split(","), s["engines"]
assert s["node_checks"] == s["nodes"] * len(s["engines"]), (s["node_checks"], s["nodes"])
assert s["groups"] == [], s["groups"]
print("summary.json: %d models, %d nodes, %d node checks, no findings" % (s["models"], s["nodes"], s["node_checks"]))
PY
grep -q "No findings." "$WORK/run/index.html" || { echo "FAIL: index.html does not say 'No findings.'"; fail=1; }
# Bad arguments: one line on stderr, exit status 1.
check_bad() {
  local want=$1; shift
  "$TARE" fuzz "$@" > /dev/null 2> "$WORK/bad.txt"
  local st=$?
  if [ "$st" -ne 1 ] || [ "$(wc -l < "$WORK/bad.txt")" -ne 1 ] || ! grep -qF -- "$want" "$WORK/bad.txt"; then
    echo "FAIL: tare fuzz $* gave status $st and: $(cat "$WORK/bad.txt") (wanted '$want')"; fail=1
  fi
}
check_bad "--seconds must be" --seconds 0
check_bad "--max-nodes must be" --max-nodes 0
check_bad "unknown or unavailable backend 'nope'" --backends nope --seconds 1
check_bad "ref64 is the oracle" --backends ref64 --seconds 1
check_bad "unknown peer 'zz'" --peers zz --seconds 1
check_bad "exists and is not empty" --seconds 1 --out "$WORK/run"
[ -f "$WORK/run/summary.json" ] || { echo "FAIL: the refused run touched the earlier output"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS"
exit $fail
