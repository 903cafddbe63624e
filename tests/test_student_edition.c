/* The student edition (student/, tools/student-edition.py): current, a page for every stage that
 * tools/stages list prints, and free of what the campaigns observed: no *Observe* paragraph of
 * COURSE.md, no observe column of its table of questions, no inline "(Answer: ...)", no measured,
 * profile, scaling or verdict section, no generated block of numbers, no measured time, rate,
 * share or speed-up in a stage's "What to look at". The generator is shown to
 * drop an observation, an answer and a measured section it has not seen before, and --check to
 * fail on a stale edition. The stage READMEs and the guide hold no development history (dates,
 * drafts, fixes). No GPU needed. Run from the repository root. */
#include "test_support.h"

#include <regex.h>

#define TOOL "python3 tools/student-edition.py"
#define PAGE_BYTES (256 * 1024)

static void the_edition_is_current(void **state)
{
    (void)state;
    struct command_result *r = run_shell(TOOL " --check");
    if (r->exit_code != 0 || r->err[0])
        fail_msg("student/ is not what tools/student-edition.py writes (run it; status %d):\n%.2000s",
                 r->exit_code, r->err);
}

/* What no page of the edition may hold. */
static const char *const forbidden[] = {
    "(Answer", "## Verdict", "## Profile", "## Scaling campaign", "<!-- results:begin", "<!-- profile:begin",
    "<!-- scaling:begin", "<!-- medians:", "<!-- stages:begin", "COURSE-ANSWERS.md", "what to observe",
};

static void no_page_holds_observations(void **state)
{
    (void)state;
    static struct stage_list list;
    list_stages(NULL, &list);
    assert_true(list.count >= 70);
    static char page[PAGE_BYTES];
    char path[512];
    regex_t measured;
    assert_int_equal(regcomp(&measured, "[0-9][0-9,.]* ?(µs|ms[^a-z]|GB/s|%|x[^a-zA-Z0-9]|M rays|G rays)",
                             REG_EXTENDED),
                     0);
    int looked = 0;
    for (int k = 0; k <= list.count; k++) {
        if (k == list.count)
            snprintf(path, sizeof path, "student/COURSE.md");
        else
            snprintf(path, sizeof path, "student/stages/%s/README.md", list.names[k]);
        if (access(path, R_OK) != 0)
            fail_msg("%s: missing (python3 tools/student-edition.py writes it)", path);
        test_read_file(path, page, sizeof page);
        for (size_t f = 0; f < sizeof forbidden / sizeof *forbidden; f++)
            if (strstr(page, forbidden[f]))
                fail_msg("%s holds '%s'", path, forbidden[f]);
        /* Its "What to look at" gives no measured time, rate, share or speed-up. */
        const char *look = strstr(page, "\n## What to look at\n");
        if (look) {
            const char *end = strstr(look + 1, "\n## ");
            char section[16384];
            snprintf(section, sizeof section, "%.*s", (int)(end ? end - look : (long)strlen(look)), look);
            regmatch_t match;
            if (regexec(&measured, section, 1, &match, 0) == 0)
                fail_msg("%s: What to look at gives a measurement: '%.*s'", path,
                         (int)(match.rm_eo - match.rm_so), section + match.rm_so);
            looked++;
        }
        /* A stage's page says what the stage does, and where its measurements are. */
        if (k < list.count) {
            char link[512];
            snprintf(link, sizeof link, "(../../../stages/%s/README.md#measured)", list.names[k]);
            assert_non_null(strstr(page, link));
        }
    }
    regfree(&measured);
    assert_true(looked >= 40);
    /* The pattern finds what it should. */
    assert_int_equal(regcomp(&measured, "[0-9][0-9,.]* ?(µs|ms[^a-z]|GB/s|%|x[^a-zA-Z0-9]|M rays|G rays)",
                             REG_EXTENDED),
                     0);
    assert_int_equal(regexec(&measured, "in a mean of 14736 µs", 0, NULL, 0), 0);
    assert_int_equal(regexec(&measured, "about 55 GB/s here", 0, NULL, 0), 0);
    assert_int_equal(regexec(&measured, "1.03x faster", 0, NULL, 0), 0);
    assert_int_not_equal(regexec(&measured, "8192x8192 pixels, 19 spheres", 0, NULL, 0), 0);
    regfree(&measured);
}

/* Every *Observe* paragraph of the teacher's guide, and every observe field of the manifests that
 * is more than a word or two, is absent from the student's. */
static void the_guide_has_no_observation(void **state)
{
    (void)state;
    static char teacher[PAGE_BYTES], student[PAGE_BYTES];
    test_read_file("COURSE.md", teacher, sizeof teacher);
    test_read_file("student/COURSE.md", student, sizeof student);
    int observations = 0;
    for (char *line = strstr(teacher, "\n*Observe*"); line; line = strstr(line + 1, "\n*Observe*")) {
        char text[256];
        size_t n = strcspn(line + 1, "\n");
        snprintf(text, sizeof text, "%.*s", (int)(n < 255 ? n : 255), line + 1);
        if (strlen(text) < 30)
            continue; /* "*Observe*:" alone, a list below it: its first item follows */
        if (strstr(student, text))
            fail_msg("student/COURSE.md holds the teacher's observation: %s", text);
        observations++;
    }
    assert_true(observations >= 13);
    struct command_result *r = run_shell("tools/stages table | awk -F'\\t' 'NR == 1 { for (i = 1; i <= NF; i++) "
                                         "if ($i == \"observe\") c = i; next } length($c) >= 20 { print $c }'");
    assert_int_equal(r->exit_code, 0);
    int fields = 0;
    for (char *line = strtok(r->out, "\n"); line; line = strtok(NULL, "\n"), fields++)
        if (strstr(student, line))
            fail_msg("student/COURSE.md holds a manifest's observe field: %s", line);
    assert_true(fields >= 50);
}

/* On a root of its own (the guide and two stages' READMEs, a made-up observation, answer and
 * measured section in them): the generator drops each, and --check fails on a changed page. */
static void the_generator_drops_what_it_should(void **state)
{
    (void)state;
    char *root = make_temporary_folder();
    assert_int_equal(run_shell("mkdir -p '%s/stages/01-base' '%s/stages/02-static-registers' && "
                               "touch '%s/SPEC.md' && for s in 01-base 02-static-registers; do "
                               "ln -s \"$PWD/stages/$s/manifest\" '%s/stages/'$s/; done",
                               root, root, root, root)->exit_code, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/COURSE.md", root);
    test_write_file(path, "# Guide\n\n**Two editions.** the teacher's.\n\n## Session 1: x (stages 01-02)\n\n"
                          "*Predict*: how fast?\n\n*Observe*: 42.5 ms, made up here.\n\n"
                          "*Exercises*\n1. Why? The answers are in [COURSE-ANSWERS.md](COURSE-ANSWERS.md).\n");
    snprintf(path, sizeof path, "%s/stages/01-base/README.md", root);
    test_write_file(path, "# Stage 01\n\nThe lesson.\n\n## Measured\n\n17.25 ms, made up.\n\n## Verdict\n\n"
                          "It pays.\n\n## Try it\n\n- Count them. (Answer: 7 (seven) of them.) Then more.\n");
    snprintf(path, sizeof path, "%s/stages/02-static-registers/README.md", root);
    test_write_file(path, "# Stage 02\n\nSee [stage 01](../01-base/README.md) and [the spec](../../SPEC.md).\n");
    char env[600];
    snprintf(env, sizeof env, "STAGES_DIR='%s/stages'", root);
    struct command_result *r = run_shell("%s " TOOL " --root '%s'", env, root);
    assert_int_equal(r->exit_code, 0);
    static char page[PAGE_BYTES];
    snprintf(path, sizeof path, "%s/student/COURSE.md", root);
    test_read_file(path, page, sizeof page);
    assert_null(strstr(page, "42.5 ms"));
    assert_null(strstr(page, "COURSE-ANSWERS"));
    assert_non_null(strstr(page, "*Predict*: how fast?"));
    assert_non_null(strstr(page, "student edition"));
    snprintf(path, sizeof path, "%s/student/stages/01-base/README.md", root);
    test_read_file(path, page, sizeof page);
    assert_null(strstr(page, "17.25 ms"));
    assert_null(strstr(page, "It pays"));
    assert_null(strstr(page, "seven"));
    assert_non_null(strstr(page, "The lesson."));
    assert_non_null(strstr(page, "- Count them. Then more.\n"));
    snprintf(path, sizeof path, "%s/student/stages/02-static-registers/README.md", root);
    test_read_file(path, page, sizeof page);
    /* A stage README's link leads to the student copy; any other to the file itself. */
    assert_non_null(strstr(page, "[stage 01](../01-base/README.md)"));
    assert_non_null(strstr(page, "[the spec](../../../SPEC.md)"));
    r = run_shell("%s " TOOL " --root '%s' --check", env, root);
    assert_int_equal(r->exit_code, 0);
    snprintf(path, sizeof path, "%s/student/COURSE.md", root);
    test_write_file(path, "edited by hand\n");
    r = run_shell("%s " TOOL " --root '%s' --check", env, root);
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->err, "stale: student/COURSE.md"));
    remove_temporary_folder(root);
}

/* 1 when text holds a date, YYYY-MM-DD, outside its generated blocks (<!-- X:begin --> to
 * <!-- X:end -->, which the tools fill from the campaigns' data); its first in date. */
static int holds_a_date(const char *text, char *date, size_t size)
{
    int in_block = 0;
    for (const char *p = text; *p; p++) {
        if (strncmp(p, "<!-- ", 5) == 0) {
            const char *end = strstr(p, " -->");
            if (end && end - p > 6 && strncmp(end - 6, ":begin", 6) == 0)
                in_block = 1;
            else if (end && end - p > 4 && strncmp(end - 4, ":end", 4) == 0)
                in_block = 0;
        }
        if (in_block || p[0] != '2' || p[1] != '0')
            continue;
        static const char shape[] = "20dd-dd-dd";
        size_t k = 0;
        while (shape[k] && p[k] && (shape[k] == 'd' ? (p[k] >= '0' && p[k] <= '9') : p[k] == shape[k]))
            k++;
        if (!shape[k]) {
            snprintf(date, size, "%.10s", p);
            return 1;
        }
    }
    return 0;
}

/* What students read is free of the project's history: no stage README (outside its generated
 * blocks), no page of the guide, holds a date or the words of a development log; they are in
 * docs/results.md and the commit history. Shown to catch a date first. */
static void student_material_holds_no_history(void **state)
{
    (void)state;
    char date[16];
    assert_true(holds_a_date("x\ncampaign of 2026-11-27.\n", date, sizeof date));
    assert_string_equal(date, "2026-11-27");
    assert_false(holds_a_date("<!-- results:begin -->\n2026-11-27\n<!-- results:end -->\n20 runs, 2026.",
                              date, sizeof date));
    static const char *const words[] = {"margin fix", "first draft", "time limit", "re-timed after"};
    static struct stage_list list;
    list_stages(NULL, &list);
    static char page[PAGE_BYTES];
    char path[512];
    for (int k = 0; k <= list.count + 2; k++) {
        if (k < list.count)
            snprintf(path, sizeof path, "stages/%s/README.md", list.names[k]);
        else
            snprintf(path, sizeof path, "%s",
                     k == list.count ? "COURSE.md" : k == list.count + 1 ? "student/COURSE.md" : "README.md");
        test_read_file(path, page, sizeof page);
        if (holds_a_date(page, date, sizeof date))
            fail_msg("%s holds the date %s (a campaign's date belongs in docs/results.md)", path, date);
        for (size_t w = 0; w < sizeof words / sizeof *words; w++)
            if (strstr(page, words[w]))
                fail_msg("%s holds '%s': development history (docs/results.md, or the commits)", path,
                         words[w]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_edition_is_current),
        cmocka_unit_test(no_page_holds_observations),
        cmocka_unit_test(the_guide_has_no_observation),
        cmocka_unit_test(the_generator_drops_what_it_should),
        cmocka_unit_test(student_material_holds_no_history),
    };
    return cmocka_run_group_tests_name("student edition", tests, NULL, NULL);
}
