/* Every stage has at least 100 runs in the committed reference campaign of every reference GPU
 * (results/reference/<gpu>/runs.csv.gz, runs whose status is ok; a stage whose manifest has
 * campaign-image counts its runs with the image apart), so that every ratio in every README comes
 * from a full campaign. Until the complete campaigns are run (split over sessions with --resume),
 * the stages still short are listed in tests/short-campaigns.tsv with the runs they have: the test
 * fails on a short stage missing from the list, on a listed count that is no longer the data's
 * (the list is updated as a campaign fills, and a line goes when its stage reaches 100), and on a
 * line naming no stage or GPU. When the list is empty every stage has its 100 runs. And the
 * campaigns are committed gzipped: every folder of runs under results/reference (a GPU's, its
 * scaling/ and pt-scaling/) has them in runs.csv.gz, and git tracks no runs.csv there (the
 * working tree must travel to a GPU machine under 64 MiB). No GPU needed. */
#include "test_support.h"

#define FULL_CAMPAIGN 100
#define MAX_ENTRIES 512
#define REFERENCE "results/reference"
#define SHORT_LIST "tests/short-campaigns.tsv"

struct entry {
    char gpu[64], stage[64], configuration[8];
    int runs;
    int seen;
};

static struct entry listed[MAX_ENTRIES];
static int listed_count;

/* tests/short-campaigns.tsv: "GPU<TAB>STAGE<TAB>plain|png|ppm<TAB>RUNS", '#' comments. */
static void load_short_list(void)
{
    FILE *file = fopen(SHORT_LIST, "r");
    if (!file)
        fail_msg("cannot read %s", SHORT_LIST);
    char line[256];
    int number = 0;
    listed_count = 0;
    while (fgets(line, sizeof line, file)) {
        number++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (listed_count == MAX_ENTRIES)
            fail_msg("%s: more than %d lines", SHORT_LIST, MAX_ENTRIES);
        struct entry *e = &listed[listed_count];
        if (sscanf(line, "%63[^\t]\t%63[^\t]\t%7[^\t]\t%d", e->gpu, e->stage, e->configuration, &e->runs) != 4 ||
            (strcmp(e->configuration, "plain") != 0 && strcmp(e->configuration, "png") != 0 &&
             strcmp(e->configuration, "ppm") != 0))
            fail_msg("%s:%d: not GPU<TAB>STAGE<TAB>plain|png|ppm<TAB>RUNS: %s", SHORT_LIST, number, line);
        e->seen = 0;
        listed_count++;
    }
    fclose(file);
}

static struct entry *find_listed(const char *gpu, const char *stage, const char *configuration)
{
    for (int i = 0; i < listed_count; i++)
        if (strcmp(listed[i].gpu, gpu) == 0 && strcmp(listed[i].stage, stage) == 0 &&
            strcmp(listed[i].configuration, configuration) == 0)
            return &listed[i];
    return NULL;
}

static void every_stage_has_a_full_campaign_or_is_listed(void **state)
{
    (void)state;
    load_short_list();
    /* The GPU folders of the reference campaigns (those with a runs.csv.gz). */
    struct command_result *r = run_shell("cd %s && ls -d */runs.csv.gz | sed 's#/runs.csv.gz##'", REFERENCE);
    assert_int_equal(r->exit_code, 0);
    char gpus[8][64];
    int gpu_count = 0;
    for (char *g = strtok(r->out, "\n"); g && gpu_count < 8; g = strtok(NULL, "\n"))
        snprintf(gpus[gpu_count++], sizeof gpus[0], "%s", g);
    assert_true(gpu_count >= 2); /* the H100 and the H200 */

    /* Every stage and its configurations: plain, and each format of its manifest's campaign-image
     * (png, ppm). */
    r = run_shell("for s in $(tools/stages list); do echo \"$s plain\"; "
                  "for f in $(tools/stages get $s campaign-image); do echo \"$s $f\"; done; done; true");
    assert_int_equal(r->exit_code, 0);
    char configurations[MAX_ENTRIES][80];
    int configuration_count = 0;
    for (char *c = strtok(r->out, "\n"); c && configuration_count < MAX_ENTRIES; c = strtok(NULL, "\n"))
        snprintf(configurations[configuration_count++], sizeof configurations[0], "%s", c);
    assert_true(configuration_count > 50);

    int full = 0, short_count = 0, problems = 0;
    for (int g = 0; g < gpu_count; g++) {
        /* The ok runs of every (stage, image) of this GPU's campaign, one awk pass. */
        r = run_shell("zcat %s/%s/runs.csv.gz | awk -F, 'NR > 1 && $12 == \"total\" && $15 == \"ok\" "
                      "{ n[$3 \" \" ($16 == \"\" ? \"plain\" : $16)]++ } "
                      "END { for (k in n) print k, n[k] }'",
                      REFERENCE, gpus[g]);
        assert_int_equal(r->exit_code, 0);
        static char counts[TEST_OUTPUT_BYTES + 1];
        counts[0] = '\n';
        memcpy(counts + 1, r->out, strnlen(r->out, TEST_OUTPUT_BYTES - 1) + 1);
        for (int c = 0; c < configuration_count; c++) {
            char stage[64], configuration[8];
            assert_int_equal(sscanf(configurations[c], "%63s %7s", stage, configuration), 2);
            char key[96];
            snprintf(key, sizeof key, "\n%s %s ", stage, configuration);
            const char *at = strstr(counts, key);
            const int runs = at ? atoi(at + strlen(key)) : 0;
            struct entry *e = find_listed(gpus[g], stage, configuration);
            if (e)
                e->seen = 1;
            if (runs >= FULL_CAMPAIGN) {
                full++;
                if (e) {
                    print_message("# %s %s %s: %d runs, listed as short in %s: remove its line\n", gpus[g],
                                  stage, configuration, runs, SHORT_LIST);
                    problems++;
                }
                continue;
            }
            short_count++;
            if (!e) {
                print_message("# %s %s %s: %d runs of %d, and not listed in %s\n", gpus[g], stage,
                              configuration, runs, FULL_CAMPAIGN, SHORT_LIST);
                problems++;
            } else if (e->runs != runs) {
                print_message("# %s %s %s: %d runs, listed with %d in %s\n", gpus[g], stage, configuration,
                              runs, e->runs, SHORT_LIST);
                problems++;
            }
        }
    }
    for (int i = 0; i < listed_count; i++)
        if (!listed[i].seen) {
            print_message("# %s names no stage or GPU of the campaigns: %s %s %s\n", SHORT_LIST, listed[i].gpu,
                          listed[i].stage, listed[i].configuration);
            problems++;
        }
    print_message("# %d of %d (GPU, stage, configuration) with %d runs or more; %d short, listed in %s\n",
                  full, full + short_count, FULL_CAMPAIGN, short_count, SHORT_LIST);
    assert_int_equal(problems, 0);
}

/* Every folder of the reference campaigns that holds runs (a GPU's, and its scaling/ and
 * pt-scaling/) holds them as runs.csv.gz, a whole gzip file with a campaign's header; in a git
 * checkout, git tracks no runs.csv anywhere under results/ (a live runs.csv beside runs.csv.gz,
 * of a campaign running or cut off, is not tracked and not counted). */
static void the_committed_campaigns_are_gzipped(void **state)
{
    (void)state;
    struct command_result *r =
        run_shell("cd %s && for d in */ */scaling/ */pt-scaling/; do "
                  "if [ -e \"$d/runs.csv\" ] || [ -e \"$d/runs.csv.gz\" ]; then echo \"${d%%/}\"; fi; done",
                  REFERENCE);
    assert_int_equal(r->exit_code, 0);
    static char folders[TEST_OUTPUT_BYTES];
    snprintf(folders, sizeof folders, "%s", r->out);
    int count = 0, scaling = 0;
    for (char *save = NULL, *d = strtok_r(folders, "\n", &save); d; d = strtok_r(NULL, "\n", &save)) {
        count++;
        scaling += strstr(d, "scaling") != NULL;
        r = run_shell("cd %s/%s && gzip -t runs.csv.gz && "
                      "{ zcat runs.csv.gz || [ $? -eq 141 ]; } | head -n 1 | grep -q '^order,run,stage,host,'",
                      REFERENCE, d);
        if (r->exit_code != 0)
            fail_msg("%s/%s: its runs should be in runs.csv.gz (gzip -9 -n runs.csv), a campaign's header first",
                     REFERENCE, d);
    }
    assert_true(count >= 4);   /* the H100 and the H200, and scaling campaigns */
    assert_true(scaling >= 2);
    r = run_shell("command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1");
    if (r->exit_code != 0) {
        print_message("# not a git checkout: what git tracks is not checked\n");
        return;
    }
    /* Tracked and still there (a deletion not yet committed is not a file git tracks on). */
    r = run_shell("git ls-files --cached -- results | grep -E '(^|/)runs\\.csv$' | "
                  "while read -r f; do if [ -e \"$f\" ]; then echo \"$f\"; fi; done");
    if (r->out[0])
        fail_msg("git tracks runs.csv files, to be committed gzipped (tools/runner/close-runs.sh):\n%.2000s", r->out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_stage_has_a_full_campaign_or_is_listed),
        cmocka_unit_test(the_committed_campaigns_are_gzipped),
    };
    return cmocka_run_group_tests_name("every stage's campaign complete", tests, NULL, NULL);
}
