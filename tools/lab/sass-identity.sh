#!/usr/bin/env bash
# Proof that a change of layout changed nothing a stage does: every stage's device code and image,
# built from an earlier revision and from the working tree, compared. The device code is
# `cuobjdump -sass` of the stage's executable, normalised (each function's instructions, functions
# sorted by name, so that the order they sit in the file does not count); the image is the stage's
# picture of each scene below (the main track's quick, odd-size, one-sphere and two random scenes;
# the path tracer's pt-quick and two random scenes), compared byte for byte. Images need a GPU:
# without one the image column says "not run". One line a stage, tab-separated, a header first:
#   stage  device_code  image  reason
# device_code and image are `identical` or `changed` (image also `not run`); reason is empty where
# both are identical, else the line of --reasons naming the stage (such a stage is re-timed).
#
# usage: tools/lab/sass-identity.sh (--base REV | --base-source DIR | --base-build DIR) [options]
#   --base REV          the earlier revision: its stages/, common/, tools/, scenes/ and Makefile
#                       (git archive) built into build-identity/base
#   --base-source DIR   the same from a folder that holds that revision's files (no git needed)
#   --base-build DIR    the earlier revision's stages already built there (make BUILD=DIR)
#   --build DIR         the working tree's stages, built there first (default build-identity/now)
#   --arch N            the architecture both are built for and compared on (default: this
#                       machine's GPU, else 90, the H100's)
#   --stages SPEC       only these stages (tools/stages select: 22-31,p13-15; default all)
#   --renames FILE      lines "OLD NEW": a stage folder renamed since (tools/lab/rename-stage.sh)
#   --reasons FILE      lines "STAGE<TAB>why its code or image changed", copied into the report
#   --output FILE       the report (default standard output)
#   --jobs N            builds and runs at once (default nproc)
# Exit status: 0 when every stage's device code and image are identical (or not run); 1 when one
# changed and --reasons does not say why; 2 for a bad option or a build that failed.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
. tools/runner/header-help.sh
die() { echo "sass-identity: $*" >&2; exit 2; }
say() { echo "sass-identity: $*" >&2; }

base_rev='' base_source='' base_build='' build=build-identity/now arch='' spec='' renames='' reasons=''
output='' jobs="$(nproc)"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --base) base_rev="${2:?--base takes a revision}"; shift 2 ;;
        --base-source) base_source="${2:?--base-source takes a folder}"; shift 2 ;;
        --base-build) base_build="${2:?--base-build takes a folder}"; shift 2 ;;
        --build) build="${2:?--build takes a folder}"; shift 2 ;;
        --arch) [[ "${2:-}" =~ ^[0-9]+$ ]] || die "--arch takes a compute capability without the dot: 90"; arch="$2"; shift 2 ;;
        --stages) spec="${2:?--stages takes a list}"; shift 2 ;;
        --renames) [[ -f "${2:-}" ]] || die "--renames: no such file: ${2:-}"; renames="$2"; shift 2 ;;
        --reasons) [[ -f "${2:-}" ]] || die "--reasons: no such file: ${2:-}"; reasons="$2"; shift 2 ;;
        --output) output="${2:?--output takes a file}"; shift 2 ;;
        --jobs) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || die "--jobs takes a positive number"; jobs="$2"; shift 2 ;;
        -h|--help) header_help "${BASH_SOURCE[0]}"; exit 0 ;;
        *) die "unknown option $1 (--help lists them)" ;;
    esac
done
[[ -n "$base_rev$base_source$base_build" ]] || die "name the earlier revision: --base REV, --base-source DIR or --base-build DIR"
command -v cuobjdump >/dev/null || die "cuobjdump not found: it comes with the CUDA Toolkit (its bin/ on PATH)"
if [[ -z "$arch" ]]; then
    arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')" || arch=''
    arch="${arch:-90}"
fi

# The stages of the working tree, and each one's folder in the earlier revision.
if [[ -n "$spec" ]]; then
    stages="$(tools/stages select "$spec" 2>&1)" || die "${stages#stages: }"
else
    stages="$(tools/stages list)"
fi
declare -A old_name=()
for s in $stages; do old_name[$s]="$s"; done
if [[ -n "$renames" ]]; then
    while read -r old new; do
        [[ -z "$old" || "$old" == \#* ]] || old_name[$new]="$old"
    done <"$renames"
fi

# The builds: the earlier revision's from its own Makefile, the working tree's from ours.
build_tree() { # build_tree SOURCE_DIR BUILD_DIR LOG: every stage named, for one architecture
    local source="$1" out="$2" log="$3" targets=()
    for s in "${@:4}"; do targets+=("$out/$s"); done
    say "building ${#targets[@]} stages in $source into $out (sm_$arch; log: $log)"
    (cd "$source" && make -j"$jobs" CUDA_ARCH="$arch" BUILD="$out" "${targets[@]}") >"$log" 2>&1 ||
        die "the build in $source failed: the end of $log says why"
}
mkdir -p build-identity
if [[ -z "$base_build" ]]; then
    if [[ -n "$base_rev" ]]; then
        base_source=build-identity/base-source
        rm -rf "$base_source" && mkdir -p "$base_source"
        git archive "$base_rev" Makefile common stages tools scenes | tar -x -C "$base_source" ||
            die "git archive $base_rev failed"
    fi
    [[ -f "$base_source/Makefile" ]] || die "$base_source holds no Makefile"
    base_build="$repo/build-identity/base"
    old_stages=()
    for s in $stages; do old_stages+=("${old_name[$s]}"); done
    build_tree "$base_source" "$base_build" "$repo/build-identity/base-$(basename "$build").log" "${old_stages[@]}"
fi
base_build="$(cd "$base_build" && pwd)"
build_tree "$repo" "$repo/$build" "$repo/build-identity/$(basename "$build").log" $stages

# The normalised device code: per architecture and function, its instructions and encodings
# (the addresses are the function's own), functions in name order.
sass_of() {
    cuobjdump -sass "$1" | awk '
        /code for sm_/ { arch = $NF }
        /Function : / { name = $NF; n = 0 }
        name != "" && /\/\*[0-9a-f]+\*\// { printf "%s\t%s\t%06d\t%s\n", arch, name, n++, $0 }' |
        LC_ALL=C sort -t $'\t' -k1,1 -k2,2 -k3,3
}

work="$(mktemp -d "${TMPDIR:-/tmp}/sass-identity.XXXXXX")"
trap 'rm -rf "$work"' EXIT
declare -A code=() image=()
for s in $stages; do
    old="$base_build/${old_name[$s]}"
    [[ -x "$old" ]] || die "$old is not built"
    sass_of "$old" >"$work/old.sass"
    sass_of "$build/$s" >"$work/new.sass"
    [[ -s "$work/new.sass" ]] || die "$build/$s: cuobjdump found no sm_$arch code"
    if cmp -s "$work/old.sass" "$work/new.sass"; then code[$s]=identical; else code[$s]=changed; fi
    image[$s]='not run'
done

# The images, where a GPU is.
if nvidia-smi -L >/dev/null 2>&1; then
    mkdir -p "$work/scenes" "$work/images"
    python3 tools/random-scene.py --track main --seeds 3,7 --out-dir "$work/scenes" >/dev/null
    python3 tools/random-scene.py --track pt --seeds 3,7 --out-dir "$work/scenes" >/dev/null
    main_scenes="scenes/quick.scene scenes/odd-size.scene scenes/one-sphere.scene $work/scenes/main-seed-3.scene $work/scenes/main-seed-7.scene"
    pt_scenes="scenes/pt-quick.scene $work/scenes/pt-seed-3.scene $work/scenes/pt-seed-7.scene"
    render_both() { # STAGE OLD_BINARY NEW_BINARY SCENE: "same" or "differs" in a file of its own
        local stage="$1" scene="$4" key
        key="$stage.$(basename "$scene" .scene)"
        "$2" --scene "$scene" --output "$work/images/$key.old.ppm" >/dev/null 2>&1 || true
        "$3" --scene "$scene" --output "$work/images/$key.new.ppm" >/dev/null 2>&1 || true
        # A scene both refuse (over the stage's sphere limit) leaves no image on either side.
        if cmp -s "$work/images/$key.old.ppm" "$work/images/$key.new.ppm" 2>/dev/null ||
           [[ ! -e "$work/images/$key.old.ppm" && ! -e "$work/images/$key.new.ppm" ]]; then
            echo same >"$work/images/$key.verdict"
        else
            echo differs >"$work/images/$key.verdict"
        fi
        rm -f "$work/images/$key".*.ppm
    }
    export -f render_both
    export work
    for s in $stages; do
        if [[ "$(tools/stages get "$s" track)" == pt ]]; then scenes="$pt_scenes"; else scenes="$main_scenes"; fi
        for scene in $scenes; do echo "$s $base_build/${old_name[$s]} $repo/$build/$s $scene"; done
    done | xargs -P "$jobs" -L 1 bash -c 'render_both "$@"' _
    for s in $stages; do
        if grep -qx differs "$work/images/$s".*.verdict; then image[$s]=changed; else image[$s]=identical; fi
    done
fi

# The report.
status=0
report() {
    printf 'stage\tdevice_code\timage\treason\n'
    for s in $stages; do
        reason=''
        if [[ "${code[$s]}" == changed || "${image[$s]}" == changed ]]; then
            [[ -z "$reasons" ]] || reason="$(awk -F'\t' -v s="$s" '$1 == s { print $2; exit }' "$reasons")"
            if [[ -z "$reason" ]]; then
                reason='no reason given'
                status=1
            fi
        fi
        printf '%s\t%s\t%s\t%s\n' "$s" "${code[$s]}" "${image[$s]}" "$reason"
    done
}
if [[ -n "$output" ]]; then report >"$output"; else report; fi
exit "$status"
