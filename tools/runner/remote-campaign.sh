#!/usr/bin/env bash
# The campaign on one GNU parallel sshlogin (a line of run.sh --hosts FILE), started by run.sh.
# ":" runs it here. Otherwise the repository goes over as a tar stream on the job's stdin
# (parallel --pipe, ssh command $RUN_SSH), run.sh runs there, and its results come back on
# stdout (base64 tar between markers) into $RUN_OUT/<gpu-slug>/ (its runs in runs.csv.gz, as run.sh
# leaves them; tools/runner/runs-file.sh reads either form).
# Environment: RUN_FORWARD (quoted run.sh options), RUN_OUT, RUN_SSH, RUN_REMOTE_DIR.
. "$(dirname "${BASH_SOURCE[0]}")/header-help.sh" "$@"
set -euo pipefail
login="$1"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [[ "$login" == ':' ]]; then
    eval "\"\$repo/run.sh\" $RUN_FORWARD --out \"\$RUN_OUT\""
    exit
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf -v remote_dir '%q' "${RUN_REMOTE_DIR:-cuda-raytracer-campaign}"
# The copy goes without .git: the campaign there records this checkout's revision
# (tools/runner/provenance.sh reads PROVENANCE_REVISION).
printf -v revision '%q' "$("$repo/tools/runner/provenance.sh" revision)"
export RUN_REMOTE_CMD="mkdir -p $remote_dir && cd $remote_dir && base64 -d | tar xzf - && rc=0 && \
{ PROVENANCE_REVISION=$revision ./run.sh $RUN_FORWARD --out campaign-results >&2 || rc=\$?; } && \
echo '--- run.sh results begin ---' && tar czf - -C campaign-results . | base64 && \
echo '--- run.sh results end ---' && exit \$rc"
status=0
# The whole repository is one --pipe block, so that exactly one job (one campaign) runs there;
# the block is sized to the stream rather than to a huge fixed size that perl must allocate.
tar czf - -C "$repo" --exclude=./.git --exclude=./build --exclude=./build-sanitize \
    --exclude=./results . | base64 >"$tmp/repo.b64"
block=$(( $(wc -c <"$tmp/repo.b64") + 1024 ))
parallel --will-cite --ssh "$RUN_SSH" -S "$login" --pipe --block "$block" -j1 -u \
    --env RUN_REMOTE_CMD 'eval "$RUN_REMOTE_CMD"' <"$tmp/repo.b64" >"$tmp/stdout" || status=$?
mkdir -p "$tmp/results"
sed -n '/^--- run.sh results begin ---$/,/^--- run.sh results end ---$/p' "$tmp/stdout" | sed '1d;$d' |
    base64 -d | tar xzf - -C "$tmp/results" || {
        echo "run.sh: $login: no results came back (parallel exit status $status); it printed:" >&2
        head -c 2000 "$tmp/stdout" >&2
        exit 1
    }
# The hosts a folder's runs were measured on, one a line.
hosts_of() { "$repo/tools/runner/runs-file.sh" --rows "$1" | awk -F',' 'NR > 1 { print $4 }' | sort -u; }
for folder in "$tmp/results"/*/; do
    "$repo/tools/runner/runs-file.sh" "$folder" >/dev/null 2>&1 || continue
    dest="$RUN_OUT/$(basename "$folder")"
    # A folder measured on another host keeps its data: this host's copy gets the host's name.
    if "$repo/tools/runner/runs-file.sh" "$dest" >/dev/null 2>&1 && ! cmp -s <(hosts_of "$dest") <(hosts_of "$folder"); then
        dest="$dest-$("$repo/tools/runner/slug.sh" "$login")"
    fi
    rm -rf "$dest"
    cp -r "$folder" "$dest"
    echo "run.sh: $login: results in $dest" >&2
done
[[ "$status" -eq 0 ]] || echo "run.sh: $login: the campaign there failed (status $status)" >&2
exit "$status"
