#!/usr/bin/env bash
# Runs each cmocka test program given (TAP output), shows what it printed, and ends with one line:
# "N passed, N failed, N skipped". Exit status 1 when anything failed or a program crashed.
set -u
# Under `make test SANITIZE=1` the programs are built with AddressSanitizer and UBSan. CUDA needs
# protect_shadow_gap=0: with the shadow gap protected, the driver cannot map the address ranges it
# wants and cuInit/cudaMalloc fail (out of memory / no device). Leaks stay detected, except those
# of the CUDA driver and runtime (tests/lsan-cuda.supp). Harmless for a plain build.
here="$(cd "$(dirname "$0")" && pwd)"
export ASAN_OPTIONS="${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$here/lsan-cuda.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
passed=0 failed=0 skipped=0 crashed=()
for program in "$@"; do
    echo "# ---- ${program##*/}"
    output=$(CMOCKA_MESSAGE_OUTPUT=TAP "$program" 2>&1)
    status=$?
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
done
for c in "${crashed[@]+"${crashed[@]}"}"; do echo "# crashed: $c"; done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
