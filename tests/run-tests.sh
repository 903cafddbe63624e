#!/usr/bin/env bash
# Runs each cmocka test program given (TAP output), shows what it printed, and ends with one line:
# "N passed, N failed, N skipped". Exit status 1 when anything failed or a program crashed.
# TEST_JOBS: how many programs run at once (default: the cores, at most 4). REQUIRE_GPU=1: a test
# that needs a GPU and finds none working fails instead of skipping (tests/test_support.h's
# gpu_required(); a GPU this machine shows fails such a test anyway); 0 or unset: it skips.
set -u
# Under `make test SANITIZE=1` the programs are built with AddressSanitizer and UBSan. CUDA needs
# protect_shadow_gap=0: with the shadow gap protected, the driver cannot map the address ranges it
# wants and cuInit/cudaMalloc fail (out of memory / no device). Leaks stay detected, except those
# of the CUDA driver and runtime (tests/lsan-cuda.supp). Harmless for a plain build.
here="$(cd "$(dirname "$0")" && pwd)"
export ASAN_OPTIONS="${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$here/lsan-cuda.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# The programs run TEST_JOBS at a time (default: one a core, at most 4, since many of them start
# GPU programs or processes of their own; TEST_JOBS=1 one after another), each into a file of its
# own; their outputs are shown in the order given, each as soon as it and those before it are done.
cores="$(nproc 2>/dev/null || echo 1)"
jobs="${TEST_JOBS:-$((cores < 4 ? cores : 4))}"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "run-tests: TEST_JOBS must be a positive number, got '$jobs'" >&2; exit 2; }
# (A typo such as REQUIRE_GPU=yes would be read as required by the tests; refused here, so that
# what the run requires is never in doubt.)
[[ "${REQUIRE_GPU:-0}" =~ ^[01]$ ]] || { echo "run-tests: REQUIRE_GPU must be 0 or 1, got '$REQUIRE_GPU'" >&2; exit 2; }
outputs="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$outputs"' EXIT
run_one() { # INDEX PROGRAM: its output and exit status into $outputs/INDEX.out and .status
    CMOCKA_MESSAGE_OUTPUT=TAP "$2" >"$outputs/$1.out" 2>&1
    echo $? >"$outputs/$1.status.tmp" && mv "$outputs/$1.status.tmp" "$outputs/$1.status"
}
index=0
for program in "$@"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 0.2; done
    run_one "$index" "$program" &
    index=$((index + 1))
done &
passed=0 failed=0 skipped=0 crashed=()
index=0
for program in "$@"; do
    while [ ! -e "$outputs/$index.status" ]; do sleep 0.2; done
    echo "# ---- ${program##*/}"
    output=$(cat "$outputs/$index.out")
    status=$(cat "$outputs/$index.status")
    printf '%s\n' "$output"
    p=$(grep -cE '^ok [0-9]+' <<<"$output")
    s=$(grep -cE '^not ok [0-9]+ # SKIP' <<<"$output")
    f=$(grep -E '^not ok [0-9]+' <<<"$output" | grep -cv '# SKIP')
    passed=$((passed + p)) skipped=$((skipped + s)) failed=$((failed + f))
    # A program that dies (a crash, a sanitizer report) fails even if its lines looked fine.
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
        crashed+=("${program##*/} (exit status $status)")
        failed=$((failed + 1))
    fi
    index=$((index + 1))
done
wait
for c in "${crashed[@]+"${crashed[@]}"}"; do echo "# crashed: $c"; done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
