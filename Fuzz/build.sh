#!/usr/bin/env bash
# Builds every target of this package (each fuzz target and SeedCorpus) without fuzzing them:
# `make fuzz-build`, part of `make test`, so that a change to the root package that breaks a target
# fails the tests. Then each fuzz target starts and takes one empty input (`-runs=0`, under a
# second each): a target checks at its start what the compiler cannot, e.g. `RegistryState` that it
# copies every stored property of `RoomRegistry`, and `FuzzToken` that it signs as `HandMadeToken`.
#
# A debug build under .build/check, apart from `run.sh`'s release build and SeedCorpus' own debug
# build. It compiles the same sources as `run.sh` without instrumentation and links libFuzzer's
# `LLVMFuzzerRunDriver` from the toolchain's `libclang_rt.fuzzer_no_main` (libFuzzer and the `lld`
# the targets link with ship with the Swift toolchain on Linux). `-sanitize=fuzzer` would not do
# here: it links libFuzzer's `main`, which a debug build pulls in (SwiftPM renames an executable's
# `main` when testable), asking for an `LLVMFuzzerTestOneInput` no target has, and SeedCorpus has
# a `main` of its own.
set -euo pipefail
cd "$(dirname "$0")"

resources=$(swiftc -print-target-info | sed -n 's/.*"runtimeResourcePath": "\(.*\)".*/\1/p')
libfuzzer="$resources/clang/lib/linux"
arch=$(uname -m)
[[ -f $libfuzzer/libclang_rt.fuzzer_no_main-$arch.a ]] \
  || { echo "build.sh: no $libfuzzer/libclang_rt.fuzzer_no_main-$arch.a (the Swift toolchain's libFuzzer)" >&2; exit 1; }
# The build plan is made again each time: SwiftPM keeps a file the root package has since removed
# in the plan of a path dependency ("missing inputs"), and a new plan costs a few seconds.
# The manifest lists the targets from Sources/: evaluated each time, as in run.sh.
rm -f .build/check/debug.yaml
swift build --manifest-cache none --scratch-path .build/check \
  -Xlinker -L"$libfuzzer" -Xlinker -lclang_rt.fuzzer_no_main-"$arch" -Xlinker -lstdc++

bin=$(swift build --manifest-cache none --scratch-path .build/check --show-bin-path)
mkdir -p .build/check/logs
failed=0
for dir in Sources/Fuzz*/; do
  name=$(basename "$dir")
  [[ $name == FuzzSupport ]] && continue
  if ! SWIFT_BACKTRACE=enable=no "$bin/$name" -runs=0 >".build/check/logs/$name.log" 2>&1; then
    echo "build.sh: $name failed at its start:" >&2
    head -n 5 ".build/check/logs/$name.log" >&2
    failed=1
  fi
done
exit "$failed"
