/* COURSE.md's commands exist and take the options it shows: every line of its ```sh blocks is
 * run from the repository root, in order, with the GPU hidden (CUDA_VISIBLE_DEVICES empty,
 * nvidia-smi replaced by `false`): a campaign or a profile inside a test would take long and
 * write results/. So a command passes when it succeeds, or when it stops with status 2 and one
 * of the "no GPU" messages (after parsing its options: a bad option is reported first), or, for
 * a command that reads an image a GPU-only command would have written, when that image is
 * missing (a --output or --record of a command stopped for want of a GPU, or a scene `make
 * scenes`, run as make -n, names). `make` goals other than diff and profile run as `make -n`
 * (make test inside make test would recurse). A line ending in "# fails: TEXT" must fail with
 * TEXT on stderr. /tmp/ in a command becomes a fresh folder.
 * The sessions are held to tools/course-check.py's rules (fourteen, each of two to three hours in
 * parts required or optional, every stage after the stage it builds on, nothing used before it
 * is introduced). The guide is kept current by two more checks: every stage that `tools/stages list` prints is
 * named by the parenthesised list of some "## Session N: ..." heading (items: a stage id such as
 * 07, 07a or p08, a folder name, or FIRST-LAST: every stage from FIRST to LAST in the list's
 * order), and the guide holds the block between <!-- stages:begin --> and <!-- stages:end -->
 * that tools/update_readmes.py generates from the manifests, up to date. Each check is shown to
 * fail on a made-up guide. Run from the repository root. */
#include "test_support.h"

#define GUIDE "COURSE.md"
#define MAX_COMMANDS 256
#define NO_GPU_ENV "CUDA_VISIBLE_DEVICES= RUN_NVIDIA_SMI=false NVIDIA_SMI=false"

static const char *no_gpu_messages[] = {
    "no CUDA-capable GPU", "no NVIDIA GPU found", "profile: no GPU", "ncu (Nsight Compute) not found",
};

struct command {
    char text[1024];
    char expected_failure[256]; /* from "# fails: TEXT", or empty */
};

/* The commands of the guide's ```sh blocks, comments removed. */
static int read_commands(const char *path, struct command *commands, int max)
{
    static char guide[256 * 1024];
    test_read_file(path, guide, sizeof guide);
    int count = 0, in_block = 0;
    for (char *line = strtok(guide, "\n"); line; line = strtok(NULL, "\n")) {
        while (*line == ' ') /* a block may be indented, inside a list item */
            line++;
        if (strncmp(line, "```", 3) == 0) {
            in_block = !in_block && strcmp(line, "```sh") == 0;
            continue;
        }
        if (!in_block || *line == '\0' || *line == '#')
            continue;
        assert_true(count < max);
        struct command *c = &commands[count++];
        c->expected_failure[0] = '\0';
        char *comment = strstr(line, " #");
        if (comment) {
            const char *fails = strstr(comment, "# fails: ");
            if (fails)
                snprintf(c->expected_failure, sizeof c->expected_failure, "%s", fails + 9);
            *comment = '\0';
        }
        for (char *end = line + strlen(line); end > line && end[-1] == ' '; *--end = '\0')
            ;
        snprintf(c->text, sizeof c->text, "%s", line);
    }
    return count;
}

/* The command as run: /tmp/ moved into folder, build/ at the start of a word into the build
 * folder of this test run (build-sanitize/ under make SANITIZE=1 test), `make GOAL` as
 * `make -n GOAL` unless GOAL is diff or profile. */
static void as_run(const char *text, const char *folder, char *out, size_t size)
{
    char moved[2048] = "";
    assert_true(strlen(text) + 64 < sizeof moved);
    for (const char *p = text; *p;) {
        int word_start = p == text || p[-1] == ' ';
        if (strncmp(p, "/tmp/", 5) == 0) {
            snprintf(moved + strlen(moved), sizeof moved - strlen(moved), "%s/", folder);
            p += 5;
        } else if (word_start && strncmp(p, "build/", 6) == 0) {
            snprintf(moved + strlen(moved), sizeof moved - strlen(moved), "%s/", test_build_dir());
            p += 6;
        } else {
            size_t n = strlen(moved);
            moved[n] = *p++;
            moved[n + 1] = '\0';
        }
    }
    if (strncmp(moved, "make ", 5) == 0 && strncmp(moved, "make diff", 9) != 0 &&
        strncmp(moved, "make profile", 12) != 0)
        snprintf(out, size, "make -n %.2000s", moved + 5);
    else
        snprintf(out, size, "%.2040s", moved);
}

/* 1 when the result is what the guide promises; otherwise 0 and why. gpu_outputs holds the
 * --output files of commands that stopped for want of a GPU (a later command may read them). */
static int passes(const struct command *c, const struct command_result *r, const char *run,
                  const char *gpu_outputs, char *why, size_t size)
{
    if (c->expected_failure[0]) {
        if (r->exit_code != 0 && strstr(r->err, c->expected_failure))
            return 1;
        snprintf(why, size, "expected a failure with '%s'", c->expected_failure);
        return 0;
    }
    if (r->exit_code == 0)
        return 1;
    if (r->exit_code == 2)
        for (size_t k = 0; k < sizeof no_gpu_messages / sizeof *no_gpu_messages; k++)
            if (strstr(r->err, no_gpu_messages[k]))
                return 1;
    if (strstr(r->err, "cannot read image") || strstr(r->err, "cannot open image") ||
        strstr(r->err, "cannot open scene file")) {
        char copy[2048];
        snprintf(copy, sizeof copy, "%s", run);
        /* A word of the command that is an output not written here, or lies in a folder that is
         * (a --record folder, the scenes `make scenes` names). */
        for (char *word = strtok(copy, " "); word; word = strtok(NULL, " ")) {
            for (const char *out = gpu_outputs; *out && strstr(word, "/"); out += strcspn(out, "\n") + 1) {
                size_t n = strcspn(out, "\n");
                if (n && strncmp(word, out, n) == 0 && (word[n] == '\0' || out[n - 1] == '/'))
                    return 1;
            }
        }
    }
    snprintf(why, size, "exit status %d, and no 'no GPU' message", r->exit_code);
    return 0;
}

/* 1, with why, when the command runs a stage that this build left out for want of what it links
 * (stage 42 without NCCL: tools/stages built-here says so); such a command is skipped. */
static int runs_a_stage_left_out(const char *text, char *why, size_t size)
{
    for (const char *p = strstr(text, "build/"); p; p = strstr(p + 1, "build/")) {
        if (p != text && p[-1] != ' ')
            continue;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(p + 6, " "), p + 6);
        struct command_result *r =
            run_shell("tools/stages built-here '%s' '%s' 2>&1 >/dev/null", test_build_dir(), name);
        if (strstr(r->out, " left out: ")) {
            snprintf(why, size, "%.*s", (int)strcspn(r->out, "\n"), r->out);
            return 1;
        }
    }
    return 0;
}

static void test_every_command_of_the_guide(void **state)
{
    (void)state;
    static struct command commands[MAX_COMMANDS];
    int count = read_commands(GUIDE, commands, MAX_COMMANDS);
    /* Fourteen sessions, each with a block or two: a guide that lost its blocks fails here. */
    assert_true(count >= 40);
    char *folder = make_temporary_folder();
    static char gpu_outputs[8192];
    gpu_outputs[0] = '\0';
    int failures = 0, skipped = 0;
    for (int i = 0; i < count; i++) {
        char run[2048], why[512];
        as_run(commands[i].text, folder, run, sizeof run);
        /* run.sh and sweep.sh install GNU parallel when run as root and it is missing: not here. */
        if ((strncmp(run, "./run.sh", 8) == 0 || strncmp(run, "tools/sweep.sh", 14) == 0) &&
            !has_parallel()) {
            print_message("# skipped (no GNU parallel here): %s\n", commands[i].text);
            skipped++;
            continue;
        }
        if (runs_a_stage_left_out(commands[i].text, why, sizeof why)) {
            print_message("# skipped (%s): %s\n", why, commands[i].text);
            skipped++;
            continue;
        }
        /* RUN_BIN_DIR: run.sh and sweep.sh look for the stages where this test run built them. */
        struct command_result *r =
            run_shell(CLEAN_ENV " " NO_GPU_ENV " RUN_BIN_DIR=%s %s", test_build_dir(), run);
        if (!passes(&commands[i], r, run, gpu_outputs, why, sizeof why)) {
            print_error("COURSE.md: `%s`: %s; stderr: %.400s\n", commands[i].text, why, r->err);
            failures++;
        } else if (r->exit_code == 0 && strncmp(commands[i].text, "make scenes", 11) == 0) {
            /* make -n scenes writes nothing: the scenes it names are outputs not made here. */
            snprintf(gpu_outputs + strlen(gpu_outputs), sizeof gpu_outputs - strlen(gpu_outputs),
                     "%s/scenes/\n", test_build_dir());
        } else if (r->exit_code != 0) {
            for (const char *flag = strstr(run, " --"); flag; flag = strstr(flag + 1, " --")) {
                size_t n = strncmp(flag, " --output ", 10) == 0   ? 10
                           : strncmp(flag, " --record ", 10) == 0 ? 10
                                                                   : 0;
                if (n)
                    snprintf(gpu_outputs + strlen(gpu_outputs), sizeof gpu_outputs - strlen(gpu_outputs),
                             "%.*s\n", (int)strcspn(flag + n, " "), flag + n);
            }
        }
    }
    print_message("# %d commands of COURSE.md checked, %d skipped\n", count - skipped, skipped);
    remove_temporary_folder(folder);
    assert_int_equal(failures, 0);
}

/* The checker itself: a bad option is not mistaken for "no GPU", and "# fails:" is held. */
static void test_the_checker_rejects_what_it_should(void **state)
{
    (void)state;
    struct command c = {"build/01-base --bogus", ""};
    char why[512], run[2048];
    as_run(c.text, "/x", run, sizeof run);
    struct command_result *r = run_shell(CLEAN_ENV " " NO_GPU_ENV " %s", run);
    assert_int_equal(r->exit_code, 2);
    assert_false(passes(&c, r, run, "", why, sizeof why));
    struct command d = {"build/01-base --scene scenes/quick.scene", "this text is not in the error"};
    as_run(d.text, "/x", run, sizeof run);
    r = run_shell(CLEAN_ENV " " NO_GPU_ENV " %s", run);
    assert_false(passes(&d, r, run, "", why, sizeof why));
    as_run("make test", "/x", run, sizeof run);
    assert_string_equal(run, "make -n test");
    as_run("make diff STAGE=02", "/x", run, sizeof run);
    assert_string_equal(run, "make diff STAGE=02");
    as_run("build/cpu-reference --output /tmp/a.png", "/x", run, sizeof run);
    char expected[256];
    snprintf(expected, sizeof expected, "%s/cpu-reference --output /x/a.png", test_build_dir());
    assert_string_equal(run, expected);
}

/* ---- Every stage in a session's heading ------------------------------------------------- */

#define STAGES_READER "tools/stages"
#define SESSION_HEADING "## Session "

/* The position in list of the stage that id names (`tools/stages resolve`: 7, 07, 07a, p8, p08,
 * a folder name), or -1. */
static int stage_position(const char *id, const struct stage_list *list)
{
    if (!*id || strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(id))
        return -1;
    struct command_result *r = run_shell(STAGES_READER " resolve '%s' 2>/dev/null", id);
    if (r->exit_code != 0)
        return -1;
    r->out[strcspn(r->out, "\n")] = '\0';
    for (int k = 0; k < list->count; k++)
        if (strcmp(list->names[k], r->out) == 0)
            return k;
    return -1;
}

/* Marks in covered the stages one item of a heading names: a stage, or FIRST-LAST, every stage
 * from FIRST to LAST in course order. 0, or -1 with why. */
static int mark_item(const char *item, const struct stage_list *list, int *covered, char *why,
                     size_t size)
{
    int k = stage_position(item, list);
    if (k >= 0) {
        covered[k] = 1;
        return 0;
    }
    for (const char *dash = strchr(item, '-'); dash; dash = strchr(dash + 1, '-')) {
        char first[64];
        snprintf(first, sizeof first, "%.*s", (int)(dash - item), item);
        int from = stage_position(first, list), to = from < 0 ? -1 : stage_position(dash + 1, list);
        if (from < 0 || to < 0)
            continue;
        if (from > to) {
            snprintf(why, size, "'%s' runs backwards (%s comes after %s)", item, list->names[from],
                     list->names[to]);
            return -1;
        }
        for (int s = from; s <= to; s++)
            covered[s] = 1;
        return 0;
    }
    snprintf(why, size, "'%s' names no stage (tools/stages resolve) and no range FIRST-LAST of stages",
             item);
    return -1;
}

/* Marks the stages of one session heading's parenthesised list, "(stages 07, 07a-07f, 11)" at
 * its end. 0, or -1 with why. */
static int mark_heading(const char *heading, const struct stage_list *list, int *covered, char *why,
                        size_t size)
{
    char text[512];
    snprintf(text, sizeof text, "%s", heading);
    size_t length = strlen(text);
    while (length && (text[length - 1] == ' ' || text[length - 1] == '\r'))
        text[--length] = '\0';
    char *open = strrchr(text, '(');
    if (!length || text[length - 1] != ')' || !open) {
        snprintf(why, size, "the heading does not end with its stages in parentheses, e.g. (stages 07, 07a-07f)");
        return -1;
    }
    text[length - 1] = '\0';
    char *items = open + 1;
    if (strncmp(items, "stages ", 7) == 0)
        items += 7;
    else if (strncmp(items, "stage ", 6) == 0)
        items += 6;
    else {
        snprintf(why, size, "its parentheses do not start with 'stage' or 'stages'");
        return -1;
    }
    char *save = NULL;
    for (char *item = strtok_r(items, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ')
            item++;
        for (char *end = item + strlen(item); end > item && end[-1] == ' '; *--end = '\0')
            ;
        if (mark_item(item, list, covered, why, size))
            return -1;
    }
    return 0;
}

/* Writes into report what is wrong with the session headings of the guide at path, one problem
 * a line: a heading without its list, an item that names no stage, a guide without sessions,
 * and every stage that no heading names. Returns the number of problems. */
static int heading_problems(const char *path, char *report, size_t size)
{
    static char guide[256 * 1024];
    static struct stage_list list;
    int covered[STAGE_LIST_MAX] = {0}, problems = 0, sessions = 0;
    list_stages(NULL, &list);
    test_read_file(path, guide, sizeof guide);
    report[0] = '\0';
    char *save = NULL;
    for (char *line = strtok_r(guide, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, SESSION_HEADING, strlen(SESSION_HEADING)) != 0)
            continue;
        sessions++;
        char why[512];
        if (mark_heading(line, &list, covered, why, sizeof why)) {
            snprintf(report + strlen(report), size - strlen(report), "%s: '%.120s': %s\n", path, line, why);
            problems++;
        }
    }
    if (!sessions) {
        snprintf(report + strlen(report), size - strlen(report), "%s: no '" SESSION_HEADING "N: ...' heading\n",
                 path);
        problems++;
    }
    for (int k = 0; k < list.count; k++)
        if (!covered[k]) {
            snprintf(report + strlen(report), size - strlen(report),
                     "%s: no session heading names stage %s\n", path, list.names[k]);
            problems++;
        }
    return problems;
}

static void test_every_stage_is_in_a_session_heading(void **state)
{
    (void)state;
    static char report[16384];
    if (heading_problems(GUIDE, report, sizeof report))
        fail_msg("%s(name each stage in the parentheses of a session heading: 07, 07a, p08, a folder "
                 "name, or a range such as 07a-07f)", report);
}

/* A file in folder with the given text; its path in path. */
static void write_guide(const char *folder, const char *name, const char *text, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", folder, name);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fputs(text, file);
    assert_int_equal(fclose(file), 0);
}

/* The heading check fails where it should: on made-up guides, and on a copy of the guide in
 * which the heading that names the last stage it covers is no longer a heading. */
static void test_heading_check_fails_when_a_stage_is_missing(void **state)
{
    (void)state;
    static char report[16384];
    char *folder = make_temporary_folder();
    char path[256];
    /* Every stage, by ranges in course order from the first stage of each track (a folder name,
     * an id) to its last (an id, a folder name): nothing to report, whatever stages there are. */
    struct command_result *r = run_shell(
        "printf '## Session 1: all (stages %%s-%%s, %%s-%%s)\\n' \"$(" STAGES_READER " list main | head -n 1)\" "
        "\"$(" STAGES_READER " get \"$(" STAGES_READER " list main | tail -n 1)\" id)\" "
        "\"$(" STAGES_READER " get \"$(" STAGES_READER " list pt | head -n 1)\" id)\" "
        "\"$(" STAGES_READER " list pt | tail -n 1)\"");
    assert_int_equal(r->exit_code, 0);
    write_guide(folder, "all.md", r->out, path, sizeof path);
    if (heading_problems(path, report, sizeof report))
        fail_msg("a guide naming every stage was refused:\n%s", report);
    struct {
        const char *text, *expected;
    } bad[] = {
        {"## Session 1: x (stages 01-20, p01-p09f)\n", "no session heading names stage 21-persistent-rows"},
        {"## Session 1: x (stages 01-21, p01-p09e)\n", "no session heading names stage p09f-morton-sort"},
        {"## Session 1: x (stages 01-21, p01-p09f, p99)\n", "'p99' names no stage"},
        {"## Session 1: x (stages 21-01, p01-p09f)\n", "'21-01' runs backwards"},
        {"## Session 1: x\n## Session 2: y (stages 01-21, p01-p09f)\n", "does not end with its stages"},
        {"## Session 1: x (01-21, p01-p09f)\n", "do not start with 'stage'"},
        {"# A guide without sessions\n", "no '## Session N: ...' heading"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        write_guide(folder, "bad.md", bad[k].text, path, sizeof path);
        if (heading_problems(path, report, sizeof report) == 0 || !strstr(report, bad[k].expected))
            fail_msg("guide %zu: expected '%s'; got: %s", k, bad[k].expected, report);
    }
    /* The real guide, with the heading(s) that name the last stage it covers made plain text. */
    static char guide[256 * 1024], copy[256 * 1024];
    static struct stage_list list;
    list_stages(NULL, &list);
    test_read_file(GUIDE, guide, sizeof guide);
    int last = -1;
    for (int pass = 0; pass < 2; pass++) {
        copy[0] = '\0';
        int demoted = 0;
        for (char *line = guide; *line;) {
            size_t n = strcspn(line, "\n");
            char heading[512], why[512];
            snprintf(heading, sizeof heading, "%.*s", (int)(n < 511 ? n : 511), line);
            int covered[STAGE_LIST_MAX] = {0}, skip = 0;
            if (strncmp(heading, SESSION_HEADING, strlen(SESSION_HEADING)) == 0 &&
                mark_heading(heading, &list, covered, why, sizeof why) == 0) {
                for (int k = 0; k < list.count; k++) {
                    if (covered[k] && pass == 0 && k > last)
                        last = k; /* the first pass finds the last stage a heading names */
                    else if (covered[k] && pass == 1 && k == last)
                        skip = 3; /* the second drops the "## " of the headings naming it */
                }
            }
            demoted += skip != 0;
            snprintf(copy + strlen(copy), sizeof copy - strlen(copy), "%.*s\n", (int)(n - skip), line + skip);
            line += n + (line[n] == '\n');
        }
        assert_true(last >= 0);
        assert_true(pass == 0 || demoted > 0);
    }
    write_guide(folder, "COURSE.md", copy, path, sizeof path);
    char expected[128];
    snprintf(expected, sizeof expected, "no session heading names stage %s\n", list.names[last]);
    if (heading_problems(path, report, sizeof report) == 0 || !strstr(report, expected))
        fail_msg("a guide without the heading of %s: expected '%s'; got: %s", list.names[last], expected,
                 report);
    remove_temporary_folder(folder);
}

/* ---- Sessions that fit their slots, in the stages' order, nothing used before it is introduced */

#define COURSE_CHECK "python3 tools/course-check.py"

/* The guide: fourteen sessions of at most three hours, each part required or optional, every
 * stage after the stage it builds on, no command, /tmp/ file or generated scene used before a
 * code block introduces it (tools/course-check.py says the rules). */
static void test_the_sessions_fit_and_follow_the_stages(void **state)
{
    (void)state;
    struct command_result *r = run_shell(COURSE_CHECK " " GUIDE);
    if (r->exit_code != 0 || r->err[0])
        fail_msg("tools/course-check.py " GUIDE " (status %d):\n%s", r->exit_code, r->err);
}

/* The check fails where it should: on made-up guides of one or two sessions, each breaking one
 * rule, and on the guide with its `make scenes` taken out. */
static void test_the_session_check_fails_when_it_should(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char path[256];
#define BUDGET "**Time budget: 150 min**\n- 100 min, required: a\n- 50 min, optional: b\n\n"
    static const struct {
        int sessions;
        const char *text, *expected;
    } bad[] = {
        {1, "## Session 1: x (stages 01, 02)\n\n" BUDGET, NULL}, /* the rules kept: no problem */
        {2, "## Session 1: x (stages 01)\n\n" BUDGET, "1 sessions numbered [1]; want 1 to 2"},
        {1, "## Session 1: x (stages 01)\n\n**Time budget: 200 min**\n- 200 min, required: a\n",
         "session 1: 200 min, outside a lab of 120 to 180 min"},
        {1, "## Session 1: x (stages 01)\n\n**Time budget: 150 min**\n- 100 min, required: a\n",
         "the parts add up to 100 min, not the 150 stated"},
        {1, "## Session 1: x (stages 01)\n\n**Time budget: 150 min**\n- 150 min, optional: a\n",
         "session 1: no required part"},
        {1, "## Session 1: x (stages 01)\n\n**Time budget: 150 min**\n- 150 min, maybe: a\n",
         "a part is neither required nor optional"},
        {1, "## Session 1: x (stages 01)\n\nno budget\n", "no \"**Time budget: N min**\""},
        {2, "## Session 1: x (stages 01, 08)\n\n" BUDGET "## Session 2: y (stages 07)\n\n" BUDGET,
         "stage 08-rgb8-framebuffer comes before 07-shared-spheres (session 2)"},
        {1, "## Session 1: x (stages 02)\n\n" BUDGET,
         "stage 02-static-registers builds on 01-base, which no session names"},
        {1, "## Session 1: x (stages 01)\n\n" BUDGET "```sh\nbuild/compare-images /tmp/a.png /tmp/b.png\n"
            "build/01-base --output /tmp/a.png\n```\n",
         "`build/compare-images /tmp/a.png /tmp/b.png` reads /tmp/a.png, which no earlier command"},
        {2, "## Session 1: x (stages 01)\n\n" BUDGET "```sh\nbuild/01-base --output /tmp/a.png\n```\n"
            "## Session 2: y (stages 02)\n\n" BUDGET "Look at `/tmp/a.png`.\n",
         "session 2: the text names /tmp/a.png, which no command of this session writes"},
        {1, "## Session 1: x (stages 01)\n\n" BUDGET "Then `make profile STAGE=01`.\n",
         "the text names `make profile STAGE=01`, but no code block of this session or an earlier one "
         "runs make profile"},
        {1, "## Session 1: x (stages 01)\n\n" BUDGET "```sh\nbuild/walk-work --scene build/scenes/a.scene\n"
            "make scenes\n```\n",
         "uses build/scenes/ before `make scenes`"},
        {1, "## Session 1: x (stages 01)\n\n" BUDGET "Your `results/local/<gpu>/summary.md`.\n",
         "session 1: results/local/ before any command that writes there"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        write_guide(folder, "bad.md", bad[k].text, path, sizeof path);
        struct command_result *r = run_shell(COURSE_CHECK " --sessions %d '%s'", bad[k].sessions, path);
        if (!bad[k].expected) {
            if (r->exit_code != 0 || r->err[0])
                fail_msg("guide %zu: expected no problem; got (%d): %s", k, r->exit_code, r->err);
        } else if (r->exit_code != 1 || !strstr(r->err, bad[k].expected)) {
            fail_msg("guide %zu: expected '%s'; got (%d): %s", k, bad[k].expected, r->exit_code, r->err);
        }
    }
    /* The real guide without its `make scenes`: a later session's generated scenes are refused. */
    struct command_result *r = run_shell("grep -v '^make scenes$' " GUIDE " > '%s/course.md' && "
                                         COURSE_CHECK " '%s/course.md'", folder, folder);
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->err, "before `make scenes`"));
    remove_temporary_folder(folder);
}

/* ---- The generated table of questions ------------------------------------------------------ */

#define BLOCK_BEGIN "<!-- stages:begin -->"
#define BLOCK_END "<!-- stages:end -->"

/* 0 when ROOT/COURSE.md holds the block tools/update_readmes.py generates from ROOT/stages/'s
 * manifests and `update_readmes.py --check` does not call it stale; else 1 and why. extra: more
 * arguments for update_readmes.py (e.g. --results DIR). */
static int stages_block_problem(const char *root, const char *extra, char *why, size_t size)
{
    static char guide[256 * 1024];
    char path[512];
    snprintf(path, sizeof path, "%s/" GUIDE, root);
    test_read_file(path, guide, sizeof guide);
    const char *begin = strstr(guide, BLOCK_BEGIN), *end = begin ? strstr(begin, BLOCK_END) : NULL;
    if (!begin || !end) {
        snprintf(why, size, "%s has no block between " BLOCK_BEGIN " and " BLOCK_END
                 " (python3 tools/update_readmes.py fills it from the manifests)", path);
        return 1;
    }
    struct command_result *r =
        run_shell("python3 tools/update_readmes.py --check --root '%s' %s", root, extra);
    if (r->exit_code != 0 && r->exit_code != 1) {
        snprintf(why, size, "tools/update_readmes.py --check failed (%d): %.400s", r->exit_code, r->err);
        return 1;
    }
    if (strstr(r->err, "stale: " GUIDE "\n")) {
        snprintf(why, size, "%s: the table of questions is stale: run python3 tools/update_readmes.py", path);
        return 1;
    }
    return 0;
}

static void test_the_table_of_questions_is_generated_and_current(void **state)
{
    (void)state;
    char why[1024];
    if (stages_block_problem(".", "", why, sizeof why))
        fail_msg("%s", why);
}

/* The same check on a root of its own: the stages' manifests (linked) and a copy of the guide,
 * made current by update_readmes.py, then with a made-up row in its block, then without the
 * block. */
static void test_table_check_fails_when_it_should(void **state)
{
    (void)state;
    char *folder = make_temporary_folder(), why[1024], extra[256];
    assert_int_equal(run_shell("mkdir -p '%s/stages' '%s/results' && for s in $(" STAGES_READER " list); do "
                               "mkdir '%s/stages/'$s && ln -s \"$PWD/stages/$s/manifest\" '%s/stages/'$s/; done",
                               folder, folder, folder, folder)->exit_code, 0);
    snprintf(extra, sizeof extra, "--results '%s/results'", folder);
    static char guide[256 * 1024];
    test_read_file(GUIDE, guide, sizeof guide);
    char path[256];
    write_guide(folder, GUIDE, guide, path, sizeof path);
    assert_int_equal(run_shell("python3 tools/update_readmes.py --root '%s' %s", folder, extra)->exit_code, 0);
    if (stages_block_problem(folder, extra, why, sizeof why))
        fail_msg("a copy of the guide, regenerated: %s", why);
    test_read_file(path, guide, sizeof guide);
    /* A row the manifests do not make. */
    static char changed[256 * 1024];
    char *end = strstr(guide, BLOCK_END);
    assert_non_null(end);
    snprintf(changed, sizeof changed, "%.*s| made-up | row | here |\n%s", (int)(end - guide), guide, end);
    write_guide(folder, GUIDE, changed, path, sizeof path);
    assert_int_equal(stages_block_problem(folder, extra, why, sizeof why), 1);
    assert_non_null(strstr(why, "the table of questions is stale"));
    /* No block: update_readmes.py would leave the guide alone, so the check must say so itself. */
    char *begin = strstr(guide, BLOCK_BEGIN);
    assert_non_null(begin);
    snprintf(changed, sizeof changed, "%.*s%s", (int)(begin - guide), guide, end + strlen(BLOCK_END));
    write_guide(folder, GUIDE, changed, path, sizeof path);
    assert_int_equal(stages_block_problem(folder, extra, why, sizeof why), 1);
    assert_non_null(strstr(why, "has no block between"));
    remove_temporary_folder(folder);
}

/* A README's <!-- table:PATH:begin --> block is a copy of the committed file PATH, refilled by
 * tools/update_readmes.py (replace_table_blocks): a changed file changes the block, a block naming
 * no file is refused in one line. */
static void test_table_blocks_copy_their_file(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    char path[128];
    snprintf(path, sizeof path, "%s/t.md", dir);
    test_write_file(path, "| a |\n|---|\n| 2 |\n");
    /* The block of a page, filled from the folder given (update_readmes.py runs from the root). */
    snprintf(path, sizeof path, "%s/fill.py", dir);
    test_write_file(path,
                    "import os, sys\nsys.path.insert(0, 'tools')\nimport update_readmes as u\n"
                    "os.chdir(sys.argv[1])\nname = sys.argv[2]\n"
                    "print(u.replace_table_blocks(f'x\\n<!-- table:{name}:begin -->\\nold\\n"
                    "<!-- table:{name}:end -->\\n'), end='')\n");
    struct command_result *r = run_shell("python3 '%s' '%s' t.md", path, dir);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(r->out, "x\n<!-- table:t.md:begin -->\n<!-- copied by "
                                "tools/update_readmes.py from t.md; do not edit by hand -->\n\n"
                                "| a |\n|---|\n| 2 |\n\n<!-- table:t.md:end -->\n");
    r = run_shell("python3 '%s' '%s' none.md", path, dir);
    assert_int_equal(r->exit_code, 1);
    assert_string_equal(r->err, "update_readmes.py: error: a table block names none.md, which "
                                "is no file under the repository\n");
    /* A file outside the root, though it exists. */
    r = run_shell("mkdir -p '%s/root' && cp '%s/t.md' '%s/root/' && python3 '%s' '%s/root' ../t.md",
                  dir, dir, dir, path, dir);
    assert_int_equal(r->exit_code, 1);
    assert_string_equal(r->err, "update_readmes.py: error: a table block names ../t.md, which "
                                "is no file under the repository\n");
    /* A begin without its end: refused, never a replacement up to a later block's end. */
    char here[512];
    assert_non_null(getcwd(here, sizeof here));
    r = run_shell("cd '%s' && python3 -c \"import sys; sys.path.insert(0, '%s/tools'); "
                  "import update_readmes as u; u.replace_table_blocks('<!-- table:t.md:begin -->"
                  " keep <!-- table:t.md:begin --> x <!-- table:t.md:end -->')\"", dir, here);
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->err, "update_readmes.py: error: table marker "
                                   "<!-- table:t.md:begin --> out of place"));

    /* Wired into update_readmes.py's run: a stage README's stale block is reported by --check,
     * then filled. */
    assert_int_equal(
        run_shell("mkdir -p '%s/root/stages/01-base' '%s/root/results' && "
                  "ln -s \"$PWD/stages/01-base/manifest\" '%s/root/stages/01-base/' && "
                  "printf '<!-- table:t.md:begin -->\\nold\\n<!-- table:t.md:end -->\\n' "
                  "> '%s/root/stages/01-base/README.md'", dir, dir, dir, dir)->exit_code, 0);
    assert_int_equal(run_shell("python3 tools/update_readmes.py --root '%s/root' --results "
                               "'%s/root/results' --check", dir, dir)->exit_code, 1);
    assert_int_equal(run_shell("python3 tools/update_readmes.py --root '%s/root' --results "
                               "'%s/root/results'", dir, dir)->exit_code, 0);
    char readme[256 * 4];
    snprintf(path, sizeof path, "%s/root/stages/01-base/README.md", dir);
    test_read_file(path, readme, sizeof readme);
    assert_non_null(strstr(readme, "\n| a |\n|---|\n| 2 |\n"));
    assert_null(strstr(readme, "old"));
    remove_temporary_folder(dir);
}

/* A medians block: the stages' medians from the campaign folders given, a column per GPU and
 * stage, each stage's speed-up over the first beside it (a time: the first's over its own; a
 * rate: its own over the first's), none where the stages are timed on different scenes; a stage
 * or a metric that is not there, or a begin without its end, refused in one line. */
static void test_medians_blocks_show_the_campaigns_medians(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    const char *stages[] = {"p08-megakernel", "p08a-image-tiles", "p08b-next-event"};
    for (int i = 0; i < 3; ++i)
        assert_int_equal(run_shell("mkdir -p '%s/stages/%s' && ln -s \"$PWD/stages/%s/manifest\" "
                                   "'%s/stages/%s/'", dir, stages[i], stages[i], dir, stages[i])
                             ->exit_code, 0);
    /* Two runs of each stage on one GPU: medians 300 and 600 µs, 12 and 6 G rays/s, p08b 4 ms. */
    char path[256];
    snprintf(path, sizeof path, "%s/results/gpu/runs.csv", dir);
    assert_int_equal(run_shell("mkdir -p '%s/results/gpu'", dir)->exit_code, 0);
    const char *head = "order,run,stage,host,gpu,gpu_uuid,width,height,spheres,block,host_memory,"
                       "metric,value,unit,status,image\n";
    char csv[4096];
    int n = snprintf(csv, sizeof csv, "%s", head);
    const struct { const char *stage; double us[2]; double rays[2]; } runs[] = {
        {"p08-megakernel", {290, 310}, {12e9, 12e9}},
        {"p08a-image-tiles", {590, 610}, {6e9, 6e9}},
        {"p08b-next-event", {4000, 4000}, {1e9, 1e9}},
    };
    for (int s = 0; s < 3; ++s)
        for (int r = 0; r < 2; ++r)
            n += snprintf(csv + n, sizeof csv - (size_t)n,
                          "1,%d,%s,h,NVIDIA H100 80GB HBM3,GPU-1,1024,1024,19,16x16,pageable,"
                          "kernel_events,%g,us,ok,\n1,%d,%s,h,NVIDIA H100 80GB HBM3,GPU-1,1024,1024,"
                          "19,16x16,pageable,rays_per_second,%g,rays/s,ok,\n",
                          r + 1, runs[s].stage, runs[s].us[r], r + 1, runs[s].stage, runs[s].rays[r]);
    test_write_file(path, csv);
    snprintf(path, sizeof path, "%s/stages/p08a-image-tiles/README.md", dir);
    test_write_file(path, "x\n<!-- medians:p08-megakernel,p08a-image-tiles,p08b-next-event:begin -->\n"
                          "old\n<!-- medians:p08-megakernel,p08a-image-tiles,p08b-next-event:end -->\n");
    const char *update = "python3 tools/update_readmes.py --root '%s' --results '%s/results'";
    char command[512];
    snprintf(command, sizeof command, "%s --check", update);
    assert_int_equal(run_shell(command, dir, dir)->exit_code, 1);
    assert_int_equal(run_shell(update, dir, dir)->exit_code, 0);
    char readme[8192];
    test_read_file(path, readme, sizeof readme);
    assert_null(strstr(readme, "old"));
    assert_non_null(strstr(readme, "|  | H100 p08 | H100 p08a | H100 p08b |\n"));
    assert_non_null(strstr(readme, "| timed with (`campaign-args`) | – | `--tiles 4` | "
                                   "`--scene scenes/pt-many-lights.scene` |\n"));
    assert_non_null(strstr(readme, "| render loop, CUDA events (`kernel_events`) | 300.0 µs | "
                                   "600.0 µs (0.50x) | 4,000 µs |\n"));
    assert_non_null(strstr(readme, "| rays per second | 12,000 M | 6,000 M (0.50x) | 1,000 M |\n"));
    assert_non_null(strstr(readme, "| runs | 2 | 2 | 2 |\n"));
    assert_non_null(strstr(readme, "in brackets each stage's speed-up over p08 on the same GPU"));

    /* What cannot be shown is refused, the README left as it was. */
    const struct { const char *key; const char *error; } bad[] = {
        {"p08-megakernel,p99-none", "update_readmes.py: error: a medians block names p99-none, "
                                    "which is no stage folder\n"},
        {"p08-megakernel:kernel_events,launches",
         "update_readmes.py: error: a medians block names the metric launches, which no campaign "
         "of p08-megakernel measured (summary.csv's metric column)\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char text[512];
        snprintf(text, sizeof text, "<!-- medians:%s:begin -->\nkeep\n<!-- medians:%s:end -->\n",
                 bad[i].key, bad[i].key);
        test_write_file(path, text);
        struct command_result *r = run_shell(update, dir, dir);
        assert_int_equal(r->exit_code, 1);
        assert_string_equal(r->err, bad[i].error);
        test_read_file(path, readme, sizeof readme);
        assert_string_equal(readme, text);
    }
    test_write_file(path, "<!-- medians:p08-megakernel:begin -->\nkeep\n<!-- medians:p08-megakernel:begin -->"
                          "\n<!-- medians:p08-megakernel:end -->\n");
    struct command_result *r = run_shell(update, dir, dir);
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->err, "update_readmes.py: error: medians marker "
                                   "<!-- medians:p08-megakernel:begin --> out of place"));
    remove_temporary_folder(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_command_of_the_guide),
        cmocka_unit_test(test_the_checker_rejects_what_it_should),
        cmocka_unit_test(test_every_stage_is_in_a_session_heading),
        cmocka_unit_test(test_heading_check_fails_when_a_stage_is_missing),
        cmocka_unit_test(test_the_sessions_fit_and_follow_the_stages),
        cmocka_unit_test(test_the_session_check_fails_when_it_should),
        cmocka_unit_test(test_the_table_of_questions_is_generated_and_current),
        cmocka_unit_test(test_table_check_fails_when_it_should),
        cmocka_unit_test(test_table_blocks_copy_their_file),
        cmocka_unit_test(test_medians_blocks_show_the_campaigns_medians),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
