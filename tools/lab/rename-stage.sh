#!/usr/bin/env bash
# Renames a stage folder, and every committed record keyed on its name with it, so that the
# course's history stays attached to the stage: the folder (git mv), every tracked text file that
# names it (manifests' builds-on, includes of its parts, READMEs, docs, tests, results' CSV,
# Markdown, logs and reports), the rows of every gzipped CSV under results/ (runs.csv.gz,
# superseded-runs.csv.gz: rewritten, deterministic gzip), and every tracked file or folder whose
# own name holds it (profiles, resource reports, sweeps). The id stays the stage's number and
# letter: only the name after it may change. Each rename is recorded as a line "OLD NEW" in
# results/reference/renamed-stages.txt, which tools/lab/sass-identity.sh --renames reads.
#
# usage: tools/lab/rename-stage.sh OLD NEW
#   OLD  the stage's folder name today (NNx-old-name)
#   NEW  its new name, with the same id (NNx-new-name)
# Exit status: 0 renamed; 2 with one line on stderr for a bad name, an id that changes, a NEW
# that exists, or a working tree with changes under the paths it rewrites.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
. tools/runner/header-help.sh
die() { echo "rename-stage: $*" >&2; exit 2; }

[[ $# -eq 2 ]] || die "usage: tools/lab/rename-stage.sh OLD NEW (see --help)"
old=$1 new=$2
[[ -d "stages/$old" ]] || die "no stage folder stages/$old"
[[ ! -e "stages/$new" ]] || die "stages/$new exists already"
rule='^(p?[0-9][0-9][a-z]?)-[a-z0-9]+(-[a-z0-9]+)*$'
[[ "$old" =~ $rule ]] || die "'$old' is not a stage folder name"
old_id=${BASH_REMATCH[1]}
[[ "$new" =~ $rule ]] || die "'$new' does not follow the rule NN-name, NNx-name, pNN-name or pNNx-name"
[[ "${BASH_REMATCH[1]}" == "$old_id" ]] || die "'$new' has another id than '$old' ($old_id): rename the name, not the number"
[[ -z "$(git status --porcelain -- stages results docs tests tools common README.md COURSE.md COURSE-ANSWERS.md SPEC.md)" ]] ||
    die "the working tree has changes under the paths this rewrites: commit them first"

# The name as a word: not followed by another letter, digit or dash (07-name is not 07-name-more).
pattern="$(sed 's/[.[\*^$/]/\\&/g' <<<"$old")"
word="(^|[^a-z0-9-])$pattern([^a-z0-9-]|\$)"

git mv "stages/$old" "stages/$new"

# Every tracked text file that names it.
git grep -lIE -e "$word" | while IFS= read -r file; do
    sed -E -i "s/(^|[^a-z0-9-])$pattern([^a-z0-9-]|\$)/\\1$new\\2/g; s/(^|[^a-z0-9-])$pattern([^a-z0-9-]|\$)/\\1$new\\2/g" "$file"
done
# Gzipped CSV under results/: rewritten in place, without a timestamp (gzip -n).
git ls-files 'results/*.csv.gz' | while IFS= read -r file; do
    # (grep reads it all: with -q, zcat could die of the closed pipe, and the test read false.)
    if zcat "$file" | grep -E -e "$word" >/dev/null; then
        zcat "$file" | sed -E "s/(^|[^a-z0-9-])$pattern([^a-z0-9-]|\$)/\\1$new\\2/g; s/(^|[^a-z0-9-])$pattern([^a-z0-9-]|\$)/\\1$new\\2/g" |
            gzip -n -9 >"$file.renamed"
        mv "$file.renamed" "$file"
    fi
done
# Tracked files whose path holds it, in a file's name or a folder's.
git ls-files | grep -E -e "$word" | while IFS= read -r file; do
    renamed=$(sed -E "s/(^|[^a-z0-9-])$pattern([^a-z0-9-]|\$)/\\1$new\\2/g" <<<"$file")
    [[ "$renamed" == "$file" ]] && continue
    mkdir -p "$(dirname "$renamed")"
    git mv "$file" "$renamed"
done
printf '%s %s\n' "$old" "$new" >>results/reference/renamed-stages.txt
git add -A stages results docs tests tools common README.md COURSE.md COURSE-ANSWERS.md SPEC.md
echo "rename-stage: $old is now $new ($(git diff --cached --name-only | wc -l) files changed; review with git diff --cached, then commit)"
