#!/usr/bin/env bash
# Builds the libFuzzer targets of this package (release, -sanitize=fuzzer,address) and runs each
# one in turn; exits non-zero on the first crash, leak, timeout or out-of-memory (libFuzzer's exit
# status), after the rest have run. `make fuzz` calls it from the repository root.
#
#   FUZZ_SECONDS   seconds per target (default 60)           -> -max_total_time
#   FUZZ_RUNS      executions per target instead of a time    -> -runs (a campaign: 10000000);
#                  with FUZZ_SECONDS as well, whichever comes first
#   FUZZ_TARGETS   which targets (default: every Sources/Fuzz*/ but FuzzSupport), e.g. "JSON Op"
#   FUZZ_JOBS      targets run at once (default 1; the machine is shared)
#   FUZZ_TIMEOUT   seconds one input may take before it counts as a hang (default 10)
#
# Each target's new inputs go to .build/fuzz/<Name>/ (the committed seeds in corpus/<Name>/ are only
# read); a failing input is saved as .build/fuzz/<Name>-crash-* (or -leak-, -timeout-, -oom-) and its
# log is .build/fuzz/logs/<Name>.log. The summary line of each run (executions, seconds, exit status)
# is printed at the end.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${FUZZ_SECONDS:-60}
runs=${FUZZ_RUNS:-}
jobs=${FUZZ_JOBS:-1}
timeout=${FUZZ_TIMEOUT:-10}
if [[ -n ${FUZZ_TARGETS:-} ]]; then
  read -r -a targets <<<"$FUZZ_TARGETS"
else
  targets=()
  for dir in Sources/Fuzz*/; do
    name=$(basename "$dir")
    [[ $name == FuzzSupport ]] || targets+=("${name#Fuzz}")
  done
fi

# The build plan is made again: SwiftPM keeps a file the root package has since removed in the plan
# of a path dependency ("missing inputs").
rm -f .build/release.yaml
# One product per call: `swift build` honours only the last of several `--product` flags. The
# manifest lists the targets from Sources/, so it is evaluated each time (`--manifest-cache none`):
# a cached evaluation keeps the list it had, and a target added since is "no product named".
for name in "${targets[@]}"; do
  swift build --manifest-cache none -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing \
    --product "Fuzz$name"
done

mkdir -p .build/fuzz/logs
# -timeout: one input taking 10 s is a hang (inputs are at most -max_len bytes, 4 KiB by default;
#   each takes well under 0.1 s); a campaign of an hour or more may set FUZZ_TIMEOUT=60, since a
#   pause of the whole VM longer than 10 s (a host snapshot) stops a run with a false timeout;
# -rss_limit_mb: Swift with ASan's quarantine sits near 500 MB, 2 GB is a real blow-up;
# -detect_leaks=1: LeakSanitizer at exit and on growth (the Swift runtime's caches are not reported).
# -dict: json.dict, plus Fuzz/<Name>.dict when the target has one of its own (libFuzzer takes one).
limit=(-timeout="$timeout" -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1)
# FUZZ_RUNS alone runs to that count; with FUZZ_SECONDS too, whichever comes first.
if [[ -n $runs ]]; then limit+=(-runs="$runs"); fi
if [[ -z $runs || -n ${FUZZ_SECONDS:-} ]]; then limit+=(-max_total_time="$seconds"); fi
# A campaign (FUZZ_RUNS) records no allocation stacks (malloc_context_size=0): ASan took about a
# sixth of a target's time saving the stack of every malloc and free. Detection is the same; a
# report then lacks the allocation and free stacks, so re-run the saved input
# (`.build/release/Fuzz<Name> <input>`) for the full report.
if [[ -n $runs ]]; then export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}; fi

run_one() {
  local name=$1 start status
  mkdir -p ".build/fuzz/$name" "corpus/$name"
  start=$(date +%s)
  set +e
  local dict=json.dict
  if [[ -f $name.dict ]]; then
    dict=".build/fuzz/$name.dict"
    cat json.dict "$name.dict" >"$dict"
  fi
  ".build/release/Fuzz$name" "${limit[@]}" -dict="$dict" -artifact_prefix=".build/fuzz/$name-" \
    ".build/fuzz/$name" "corpus/$name" >".build/fuzz/logs/$name.log" 2>&1
  status=$?
  set -e
  local executions
  executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' ".build/fuzz/logs/$name.log" | grep -o '[0-9]*$' || echo '?')
  echo "$name: executions=$executions seconds=$(($(date +%s) - start)) exit=$status" \
    | tee ".build/fuzz/logs/$name.summary"
  return "$status"
}

failed=0
pids=()
names=()
for name in "${targets[@]}"; do
  run_one "$name" &
  pids+=($!)
  names+=("$name")
  if ((${#pids[@]} >= jobs)); then
    wait "${pids[0]}" || { failed=1; echo "FAILED: ${names[0]} (see Fuzz/.build/fuzz/logs/${names[0]}.log)"; }
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { failed=1; echo "FAILED: ${names[$i]} (see Fuzz/.build/fuzz/logs/${names[$i]}.log)"; }
done
exit "$failed"
