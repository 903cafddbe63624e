/* The course's front door: a README whose first screen is the course (at most 250 lines, the two
 * commands in its first 60, at least 20 stages in its first 90), links that lead somewhere in
 * every page a reader opens, no compiled Python tracked, the scripts the pages run directly
 * executable, and every script answering --help (docs/tools.md says so). No GPU needed. Run from
 * the repository root. */
#include "test_support.h"

#define MAX_README_LINES 250

/* The line (from 1) of the first line of path that contains needle, or 0. */
static int line_of(const char *path, const char *needle)
{
    FILE *file = fopen(path, "r");
    assert_non_null(file);
    char line[4096];
    int number = 0, found = 0;
    while (!found && fgets(line, sizeof line, file)) {
        ++number;
        if (strstr(line, needle))
            found = number;
    }
    fclose(file);
    return found;
}

static void readme_opens_with_the_course(void **state)
{
    (void)state;
    struct command_result *r = run_shell("wc -l < README.md");
    int lines = atoi(r->out);
    if (lines > MAX_README_LINES)
        fail_msg("README.md has %d lines; at most %d (reference material goes to docs/)", lines,
                 MAX_README_LINES);
    int make_test = line_of("README.md", "make test"), run = line_of("README.md", "./run.sh");
    assert_true(make_test > 0 && make_test <= 60);
    assert_true(run > 0 && run <= 60);
    /* The generated index names the stages early: at least 20 in the first 90 lines. */
    r = run_shell("head -n 90 README.md | grep -o 'stages/[0-9p][0-9a-z-]*/README.md' | sort -u | wc -l");
    int stages = atoi(r->out);
    if (stages < 20)
        fail_msg("the first 90 lines of README.md name %d stages; at least 20", stages);
    /* Every stage is in the index, once: a chain stage as a row of its chapter's table, a side
     * stage in the line of side stages under it. */
    r = run_shell("tools/stages list | while read -r s; do "
                  "if tools/stages get \"$s\" kind | grep -qx side; then "
                  "  grep '^Side stages: ' README.md | grep -o \"\\[$s\\](stages/$s/README.md)\" | wc -l; "
                  "else grep -c \"^| \\[$s\\](stages/$s/README.md) |\" README.md; fi; "
                  "done | grep -vx 1 | wc -l");
    assert_string_equal(r->out, "0\n");
}

/* Every relative link of the pages a reader opens leads to a file or folder that exists. */
static void every_relative_link_resolves(void **state)
{
    (void)state;
    struct command_result *r = run_shell(
        "for page in README.md COURSE.md COURSE-ANSWERS.md SPEC.md docs/*.md results/reference/README.md "
        "results/reported/README.md stages/*/README.md; do "
        "  dir=$(dirname \"$page\"); "
        "  grep -o '](\\([^)#]*\\)[)#]' \"$page\" | sed 's/^](//; s/[)#]$//' | grep -v '^[a-z]*://' | grep -v '^$' | "
        "  while read -r target; do [ -e \"$dir/$target\" ] || echo \"$page: $target\"; done; "
        "done");
    if (r->out[0])
        fail_msg("links to nothing:\n%s", r->out);
    assert_int_equal(r->exit_code, 0);
}

static void no_compiled_python_and_runnable_scripts(void **state)
{
    (void)state;
    struct command_result *r = run_shell("git ls-files 2>/dev/null | grep -E '__pycache__|\\.pyc$' || true");
    assert_string_equal(r->out, "");
    /* The scripts the pages run as ./name or tools/name carry the execute bit. */
    const char *scripts[] = {"run.sh", "tools/stages", "tools/noise.py", "tools/sweep.sh",
                             "tools/profile.sh", "tools/compare-stages.sh", "tools/sanitize.sh",
                             "tools/install-deps.sh", "tools/stage-diff.sh", ".ci/run"};
    for (size_t k = 0; k < sizeof scripts / sizeof *scripts; k++)
        if (access(scripts[k], X_OK) != 0)
            fail_msg("%s is not executable", scripts[k]);
}

/* Every script, those people run and those run.sh and the tools call, answers --help with its
 * usage (two lines at least: what it does and how it is called) on stdout and status 0, before it
 * looks for a GPU, a campaign or its arguments (tools/runner/header-help.sh, which the helpers
 * source to do so, is not run itself). */
static void every_script_answers_help(void **state)
{
    (void)state;
    struct command_result *r = run_shell(
        "for s in ./run.sh tools/stages tools/*.sh tools/*.py tools/runner/*.sh tools/runner/*.py tools/lab/*.sh tools/lab/*.py; do "
        "  [ $s = tools/runner/header-help.sh ] && continue; "
        "  case $s in *.py) cmd=\"python3 $s\" ;; *) cmd=$s ;; esac; "
        "  out=$(RUN_NVIDIA_SMI=false NVIDIA_SMI=false timeout 60 $cmd --help </dev/null "
        "        2>/dev/null); rc=$?; "
        "  lines=$(printf '%%s\\n' \"$out\" | grep -c .); "
        "  [ $rc -eq 0 ] && [ $lines -ge 2 ] || echo \"$s --help: status $rc, $lines lines\"; "
        "done");
    if (r->out[0])
        fail_msg("scripts that do not answer --help:\n%s", r->out);
}

/* Every generated table, index and block is current: what the reference data and the manifests
 * say (tools/update_readmes.py --check lists any stale file). */
static void generated_pages_are_current(void **state)
{
    (void)state;
    struct command_result *r = run_shell("python3 tools/update_readmes.py --check");
    if (r->exit_code != 0)
        fail_msg("stale (run python3 tools/update_readmes.py): %s", r->err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(readme_opens_with_the_course),
        cmocka_unit_test(every_relative_link_resolves),
        cmocka_unit_test(no_compiled_python_and_runnable_scripts),
        cmocka_unit_test(every_script_answers_help),
        cmocka_unit_test(generated_pages_are_current),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
