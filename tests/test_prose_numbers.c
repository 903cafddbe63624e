/* The times the READMEs quote beside a campaign are that campaign's: tools/check-prose-numbers.py
 * reads every paragraph of stages/<stage>/README.md and docs/results.md (outside the generated blocks)
 * that links a campaign's data under results/reference/ and checks each time it quotes ("N ms",
 * "N µs", and the numbers compared with them) against the mean, median, minimum and maximum of
 * the times in that data (the rule in the tool's header and docs/maintainers.md). Shown to pass on
 * the repository, and on a made-up tree to fail on a wrong number (in a sentence or in a table
 * its caption ties to the campaign), on a median that is only the mean where the paragraph says
 * medians, and on a link to no data, and to leave alone what the
 * rule does not check: a generated block, an estimate, a round target, a paragraph that cites
 * no campaign. No GPU needed. */
#include "test_support.h"

#define CHECK "python3 tools/check-prose-numbers.py"

/* The repository as it is: every quoted time matches the campaign its paragraph cites. */
static void the_repository_quotes_its_campaigns(void **state)
{
    (void)state;
    struct command_result *r = run_shell(CHECK);
    if (r->exit_code != 0)
        fail_msg("times in prose that their campaign does not hold (status %d):\n%.3000s", r->exit_code, r->err);
    /* It did check something: the chapter 5 and P5 stages quote their development runs. */
    long checked = 0;
    assert_int_equal(sscanf(r->out, "%ld quoted times checked", &checked), 1);
    assert_true(checked >= 50);
}

/* A made-up tree: a campaign of 01-base (kernel_events 1000, 2000, 6000 µs: median 2.00 ms, mean
 * 3.00 ms) and 02-next (kernel_events 4400 µs), and a stage README quoting PROSE beside a link to
 * it. Returns the checker's result. */
static struct command_result *check_made_up(const char *folder, const char *prose)
{
    char path[512];
    snprintf(path, sizeof path, "%s/results/reference/fake-gpu", folder);
    assert_int_equal(run_shell("mkdir -p '%s' '%s/stages/02-next' && "
                               "{ echo order,run,stage,host,gpu,gpu_uuid,metric,value,unit,status; "
                               "for v in 1:1000 2:2000 3:6000; do "
                               "echo \"${v%%:*},${v%%:*},01-base,h,Fake GPU,GPU-fake-0,kernel_events,${v#*:},us,ok\"; done; "
                               "echo '4,1,02-next,h,Fake GPU,GPU-fake-0,kernel_events,4400,us,ok'; } "
                               "| gzip -n >'%s/runs.csv.gz'", path, folder, path)->exit_code, 0);
    snprintf(path, sizeof path, "%s/stages/02-next/README.md", folder);
    test_write_file(path, prose);
    return run_shell(CHECK " --root '%s'", folder);
}

#define LINK "[summary.md](../../results/reference/fake-gpu/summary.md)"

static void a_wrong_number_fails(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    /* Right: the median, at the precision printed, and a time compared with it. */
    struct command_result *r = check_made_up(folder, "# 02\n\nThe campaign (" LINK "): 4.40 ms against stage "
                                                     "01's 2.00, 4.4 ms to 2.0 ms.\n");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "4 quoted times checked"));
    /* Wrong: 2.50 ms is no statistic of the campaign; the message names the page, the line, the
     * number and the nearest statistic. */
    r = check_made_up(folder, "# 02\n\nThe campaign (" LINK "): 4.40 ms against stage 01's 2.50.\n");
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->err, "stages/02-next/README.md:3: 2.50 ms is no"));
    assert_non_null(strstr(r->err, "nearest 2 ms (median of kernel_events, 01-base)"));
    /* The number compared with a time takes its unit: 2.5 against 4.40 ms is a time too. */
    r = check_made_up(folder, "# 02\n\n" LINK ": 2.5 against 4.40 ms.\n");
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->err, "2.5 ms is no"));
    /* 3.00 ms is 01's mean: right where the paragraph names no statistic, wrong where it says the
     * figures are medians. */
    r = check_made_up(folder, "# 02\n\n" LINK ": 01 took 3.00 ms.\n");
    assert_int_equal(r->exit_code, 0);
    r = check_made_up(folder, "# 02\n\nMedians (" LINK "): 01 took 3.00 ms.\n");
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->err, "3.00 ms is no median"));
    /* A table whose caption links the campaign and names the unit: its decimal cells are times. */
    r = check_made_up(folder, "# 02\n\nMedians in ms (" LINK "):\n\n| stage | kernel |\n| --- | --- |\n"
                              "| 01 | 2.00 |\n| 02 | 4.40 |\n");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "2 quoted times checked"));
    r = check_made_up(folder, "# 02\n\nMedians in ms (" LINK "):\n\n| stage | kernel |\n| --- | --- |\n"
                              "| 01 | 2.00 |\n| 02 | 4.50 |\n");
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->err, "stages/02-next/README.md:5: 4.50 ms is no median"));
    /* A link to data that is not there. */
    r = check_made_up(folder, "# 02\n\n[summary.md](../../results/reference/none/summary.md): 2.00 ms.\n");
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->err, "cites results/reference/none/summary.md, which is missing"));
    remove_temporary_folder(folder);
}

static void what_the_rule_leaves_alone(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    /* A generated block (update_readmes.py --check holds those), an estimate, a round target, a
     * time in a code span, a paragraph without a campaign link, a git revision's older file. */
    struct command_result *r = check_made_up(
        folder, "# 02\n\n<!-- results:begin -->\n" LINK ": 9.99 ms\n<!-- results:end -->\n\n"
                LINK ": about 2.5 ms, a target of 10 ms, `--budget 7.77 ms`.\n\n"
                "Without a link: 9.99 ms.\n\n"
                "`git show abc^:results/reference/fake-gpu/runs.csv.gz`: 9.99 ms.\n");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "0 quoted times checked"));
    /* A development run's own table of timings (a *_us column) counts as the data it links. */
    assert_int_equal(run_shell("mkdir -p '%s/results/reference/fake-gpu/development' && "
                               "printf 'variant,scene,run,kernel_events_us\\nwide,benchmark,1,7770\\n' "
                               ">'%s/results/reference/fake-gpu/development/try.csv'", folder, folder)->exit_code, 0);
    r = check_made_up(folder, "# 02\n\n[try.csv](../../results/reference/fake-gpu/development/try.csv): 7.77 ms, "
                              "against 2.00 ms in the campaign (" LINK ").\n");
    assert_int_equal(r->exit_code, 0);
    /* A development run's runs with a way column (one stage run two ways): each way's own
     * statistics, not the two pooled (1.00 and 3.00 ms; pooled, a median of 2.00 ms). */
    assert_int_equal(run_shell("printf 'way,run,stage,metric,value,unit\\nslow,1,02-next,image_write,3000,us\\n"
                               "fast,1,02-next,image_write,1000,us\\n' >'%s/results/reference/fake-gpu/development/runs.csv' && "
                               "gzip -n '%s/results/reference/fake-gpu/development/runs.csv'", folder, folder)->exit_code, 0);
    r = check_made_up(folder, "# 02\n\nMedians ([runs.csv.gz](../../results/reference/fake-gpu/development/runs.csv.gz)): "
                              "1.00 ms against 3.00 ms.\n");
    assert_int_equal(r->exit_code, 0);
    r = check_made_up(folder, "# 02\n\nMedians ([runs.csv.gz](../../results/reference/fake-gpu/development/runs.csv.gz)): "
                              "2.00 ms.\n");
    assert_int_equal(r->exit_code, 1);
    remove_temporary_folder(folder);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_repository_quotes_its_campaigns),
        cmocka_unit_test(a_wrong_number_fails),
        cmocka_unit_test(what_the_rule_leaves_alone),
    };
    return cmocka_run_group_tests_name("times in prose are their campaign's", tests, NULL, NULL);
}
