/* The course's exactness record at full size, results/reference/nvidia-h200/compare-stages.txt
 * (tools/compare-stages.sh on the H200, compare-stages.env.txt beside it says which revision and
 * GPU made it: the benchmark at 8192x8192 by every
 * stage against the CPU reference, the path-tracing stages against build/pt-reference): every stage
 * folder (tools/stages list) must have its row there with no pixel differing from the reference,
 * or, for a stage that changes the arithmetic on purpose, no more than its manifest's
 * max-differing-percent; a row naming no stage folder means the record is out of date. A stage not
 * yet in the record is listed in tests/exactness-pending.tsv, with why, until the record is made
 * again; a stage listed there that the record holds, or that is no stage folder, is a problem too,
 * so the list cannot outlive its reason. The record is read, not made: no GPU needed. The check is
 * shown to fail on made-up records and lists. Run from the repository root. */
#include "test_support.h"

#define RECORD "results/reference/nvidia-h200/compare-stages.txt"
#define PENDING "tests/exactness-pending.tsv"
#define TEXT_MAX (1 << 20)

/* The share of pixels stage may differ in (its manifest's max-differing-percent; 0 without it). */
static double allowed_percent(const char *stage)
{
    struct command_result *r = run_shell("tools/stages get '%s' max-differing-percent", stage);
    return r->exit_code == 0 && r->out[0] ? atof(r->out) : 0.0;
}

/* 1 when line (NUL-terminated) of text lists name as its first word. */
static int first_word_is(const char *line, const char *name)
{
    size_t n = strlen(name);
    return strncmp(line, name, n) == 0 && (line[n] == ' ' || line[n] == '\t' || line[n] == '\0');
}

/* The line of text whose first word is name, copied into out; 0 when there is none. */
static int find_line(const char *text, const char *name, char *out, size_t size)
{
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        char copy[2048];
        snprintf(copy, sizeof copy, "%.*s", (int)(length < sizeof copy ? length : sizeof copy - 1), line);
        if (first_word_is(copy, name)) {
            snprintf(out, size, "%s", copy);
            return 1;
        }
        line = end ? end + 1 : NULL;
    }
    return 0;
}

/* Checks record and pending (their texts) against the stages of list; returns how many problems
 * it found, each printed on a line of its own. */
static int check(const char *record, const char *pending, const struct stage_list *list)
{
    static struct problems problems;
    memset(&problems, 0, sizeof problems);
    char line[2048], listed_line[2048];
    for (int k = 0; k < list->count; ++k) {
        const char *stage = list->names[k];
        const int in_record = find_line(record, stage, line, sizeof line);
        const int listed = find_line(pending, stage, listed_line, sizeof listed_line);
        if (in_record && listed) {
            add_problem(&problems, "%s: %s is in " RECORD ": take it off the list", PENDING, stage);
        } else if (!in_record && !listed) {
            add_problem(&problems,
                        RECORD ": no row for %s: run tools/compare-stages.sh on a GPU, or list "
                               "it in " PENDING " with why",
                        stage);
        } else if (in_record) {
            long long differing = -1, pixels = 0;
            const char *p = strstr(line, "differing pixels: ");
            if (!p || sscanf(p, "differing pixels: %lld of %lld", &differing, &pixels) != 2 ||
                pixels <= 0) {
                add_problem(&problems, RECORD ": the row of %s says no count of differing pixels",
                            stage);
            } else if (100.0 * (double)differing / (double)pixels > allowed_percent(stage)) {
                add_problem(&problems,
                            RECORD ": %s differs from the reference in %lld of %lld pixels, more "
                                   "than its manifest allows",
                            stage, differing, pixels);
            }
        }
    }
    /* Rows and list lines that name no stage folder. */
    const char *texts[2] = {record, pending}, *names[2] = {RECORD, PENDING};
    for (int t = 0; t < 2; ++t)
        for (const char *cursor = texts[t]; cursor && *cursor;) {
            const char *end = strchr(cursor, '\n');
            char word[256] = "";
            sscanf(cursor, "%255s", word);
            int known = word[0] == '\0' || word[0] == '#' || strcmp(word, "stage") == 0 ||
                        strncmp(word, "compare-stages", 14) == 0;
            for (int k = 0; !known && k < list->count; ++k)
                known = strcmp(word, list->names[k]) == 0;
            if (!known) {
                add_problem(&problems, "%s: '%s' is no stage folder", names[t], word);
            }
            cursor = end ? end + 1 : NULL;
        }
    print_problems(NULL, &problems);
    return problems.count;
}

static void every_stage_is_exact_at_full_size_or_pending(void **state)
{
    (void)state;
    static char record[TEXT_MAX], pending[TEXT_MAX];
    static struct stage_list list;
    test_read_file(RECORD, record, sizeof record);
    test_read_file(PENDING, pending, sizeof pending);
    assert_true(record[0] != '\0');
    list_stages(NULL, &list);
    assert_int_equal(check(record, pending, &list), 0);
}

/* The check fails where it should: a stage neither recorded nor listed, one both, a row that
 * differs beyond its bound, a list line or a row naming no stage. */
static void the_check_finds_what_is_wrong(void **state)
{
    (void)state;
    static struct stage_list list;
    list_stages(NULL, &list);
    static char record[TEXT_MAX], pending[TEXT_MAX];
    const char *row = "differing pixels: 0 of 100 (0.000000%), largest channel difference: 0\n";
    record[0] = pending[0] = '\0';
    for (int k = 0; k < list.count; ++k) {
        size_t used = strlen(record);
        snprintf(record + used, sizeof record - used, "%s %s", list.names[k], row);
    }
    assert_int_equal(check(record, pending, &list), 0);
    /* The first stage left out of the record: a problem until it is listed. */
    const char *after_first = strchr(record, '\n') + 1;
    assert_int_equal(check(after_first, pending, &list), 1);
    snprintf(pending, sizeof pending, "%s\tnot yet run\n", list.names[0]);
    assert_int_equal(check(after_first, pending, &list), 0);
    /* Listed and recorded: a problem. */
    assert_int_equal(check(record, pending, &list), 1);
    pending[0] = '\0';
    /* A row of stage 01 with one pixel differing: beyond its bound of 0. */
    static char differing[TEXT_MAX];
    snprintf(differing, sizeof differing, "%s differing pixels: 1 of 100 (1%%)\n%s", list.names[0],
             after_first);
    assert_int_equal(check(differing, pending, &list), 1);
    /* A row and a list line naming no stage folder. */
    static char extra[TEXT_MAX];
    snprintf(extra, sizeof extra, "%s99z-no-such-stage %s", record, row);
    assert_int_equal(check(extra, "98z-gone\tgone\n", &list), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_stage_is_exact_at_full_size_or_pending),
        cmocka_unit_test(the_check_finds_what_is_wrong),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
