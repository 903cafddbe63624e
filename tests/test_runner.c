/* Tests of the timing campaign runner (run.sh and the tools/ scripts) against fake stages, a fake
 * nvidia-smi and a fake ssh (tests/fixtures/): no GPU needed. Run from the repository root.
 * A stage is a folder with a manifest (tools/stages, the one reader): each test has its own
 * folder of stage folders, DIR/stages (STAGES_DIR), with a manifest for every fake stage it
 * times, and the fake executables in DIR/bin (--bin-dir). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_support.h"

#define CMD_MAX 8192

static char repo[PATH_MAX];
static const char *missing_tool; /* a tool run.sh needs that this machine lacks, or NULL */

typedef struct {
    char dir[64];     /* the test's temporary folder */
    char stages[96];  /* its folder of stage folders, DIR/stages: the STAGES_DIR of its runs */
} fixture;

/* The stage NAME builds on by default, among the stage folders in STAGES: a side stage (NNx-name,
 * pNNx-name) its track's chain stage NN; otherwise (or when there is none) the last chain stage of
 * its track before it; "none" for the first of a track. */
static void default_builds_on(const char *stages, const char *name, char *out, size_t size) {
    const int pt = name[0] == 'p';
    const size_t at = pt ? 1 : 0; /* where the number starts */
    const int side = strlen(name) > at + 2 && name[at + 2] != '-';
    char best[256] = "";
    DIR *dir = opendir(stages);
    if (dir) {
        for (struct dirent *entry; (entry = readdir(dir));) {
            const char *s = entry->d_name;
            if ((s[0] == 'p') != pt || strlen(s) < at + 4 || !isdigit((unsigned char)s[at]) ||
                !isdigit((unsigned char)s[at + 1]) || s[at + 2] != '-')
                continue; /* not a chain stage of NAME's track */
            if (side && strncmp(s, name, at + 2) == 0) {
                snprintf(best, sizeof best, "%s", s);
                break;
            }
            if (strcmp(s, name) < 0 && strcmp(s, best) > 0) snprintf(best, sizeof best, "%s", s);
        }
        closedir(dir);
    }
    snprintf(out, size, "%s", best[0] ? best : "none");
}

/* A manifest (default_builds_on) for each stage named in NAMES (space-separated) that has none in
 * STAGES yet. */
static void add_manifests(const char *stages, const char *names) {
    char list[1024];
    snprintf(list, sizeof list, "%s", names);
    for (char *save = NULL, *name = strtok_r(list, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
        char path[PATH_MAX], parent[256];
        snprintf(path, sizeof path, "%s/%s/manifest", stages, name);
        if (access(path, F_OK) == 0) continue;
        default_builds_on(stages, name, parent, sizeof parent);
        make_fake_stage(stages, name, parent, NULL, NULL, 0);
    }
}

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    strcpy(f->dir, "/tmp/test-runner-XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->stages, sizeof f->stages, "%s/stages", f->dir);
    const char *fx = "tests/fixtures";
    if (sh("mkdir -p %s/bin && for s in 01-base 02-static; do cp %s/fake-stage.sh %s/bin/$s; done && "
           "cp %s/fake-cpu-reference.sh %s/bin/cpu-reference && cp %s/fake-compare-images.sh %s/bin/compare-images",
           f->dir, fx, f->dir, fx, f->dir, fx, f->dir) != 0)
        return -1;
    /* The two fake stages' folders: 01-base starts the main chain, 02-static builds on it. */
    make_fake_stage(f->stages, "01-base", "none", NULL, NULL, 0);
    make_fake_stage(f->stages, "02-static", "01-base", NULL, NULL, 0);
    /* A stand-in checkout, DIR/repo, that RUN runs run.sh from: the repository's run.sh, tools/,
     * scenes/, README.md and results/reported/ (links), the test's stage folders as its stages/,
     * and an empty results/reference/. So run.sh's summaries read the test's manifests, nothing it
     * does can reach the repository's files, and its reports do not spend seconds on every run
     * putting the course's reference campaigns (tens of MB) beside the fakes' (the clone of
     * test_default_output_leaves_tracked_files_unchanged does that, once). */
    if (sh("mkdir -p '%s/repo/results/reference' && cd '%s/repo' && "
           "for x in run.sh tools common scenes README.md; do ln -s '%s/'$x $x || exit 1; done && "
           "ln -s ../stages stages && ln -s '%s/results/reported' results/reported",
           f->dir, f->dir, repo, repo) != 0)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    sh("rm -rf '%s'", f->dir);
    free(f);
    return 0;
}

/* run.sh with the fake stages (the stage folders of DIR/stages, the executables of DIR/bin), from
 * the test's stand-in checkout DIR/repo (setup); ENV (which may name another STAGES_DIR) and ARGS
 * are added; stdout/stderr go to DIR/out, DIR/err. */
#define RUN(f, env, args) \
    sh("cd '%s/repo' && STAGES_DIR='%s' %s ./run.sh --no-build --bin-dir '%s/bin' --out '%s/results' %s >'%s/out' 2>'%s/err'", \
       (f)->dir, (f)->stages, env, (f)->dir, (f)->dir, args, (f)->dir, (f)->dir)

/* RUN that must succeed; on failure what run.sh printed is shown before the assertion fails. */
#define RUN_OK(f, env, args)                                                                      \
    do {                                                                                          \
        int run_status_ = RUN(f, env, args);                                                      \
        if (run_status_ != 0)                                                                     \
            sh("sed 's/^/# run.sh: /' '%s/err' | tail -40", (f)->dir);                            \
        assert_int_equal(run_status_, 0);                                                         \
    } while (0)

/* The rows of the campaign's runs.csv.gz in a test's folder, the file a campaign leaves when it
 * ends, finished or interrupted (tools/runner/close-runs.sh), at the start of a pipeline: ROWS "awk
 * ...", the test's folder the first argument. Without a runs.csv.gz there are no rows. */
#define RUNS_GZ "'%s/results/fake-gpu/runs.csv.gz'"
#define ROWS "zcat " RUNS_GZ " | "
/* The live runs.csv, which the runs are appended to while the campaign runs. */
#define LIVE_RUNS "'%s/results/fake-gpu/runs.csv'"

/* Adds fake path-tracing stage executables named in NAMES (space-separated) to the test's bin
 * folder, and the fake build/pt-reference; each gets a manifest in DIR/stages (add_manifests:
 * the path estimator, builds-on the previous fake of the track's chain or, for a side stage, its
 * chain stage) unless it has one. */
static void add_fake_pt_stages(const fixture *f, const char *names) {
    assert_int_equal(sh("for s in %s; do cp tests/fixtures/fake-pt-stage.sh '%s/bin/'$s; done && "
                        "cp tests/fixtures/fake-pt-reference.sh '%s/bin/pt-reference'", names, f->dir, f->dir), 0);
    add_manifests(f->stages, names);
}

/* Adds fake stage executables named in NAMES (space-separated) to the test's bin folder, each
 * with a manifest in DIR/stages (add_manifests) unless it has one. */
static void add_fake_stages(const fixture *f, const char *names) {
    assert_int_equal(sh("for s in %s; do cp tests/fixtures/fake-stage.sh '%s/bin/'$s; done", names, f->dir), 0);
    add_manifests(f->stages, names);
}

static void test_bad_options(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    /* Each bad argument: status 2, one line naming it, and nothing written (no --out folder). */
    const struct {
        const char *args, *message;
    } bad[] = {
        {"--bogus", "unknown option '--bogus'"},
        {"--runs abc", "--runs needs a positive number"},
        {"--runs 99999999999999999999", "--runs 99999999999999999999 is too many"},
        {"--timeout 99999999999999999999", "--timeout 99999999999999999999 is too long"},
        {"--stages x", "--stages item 'x' is not N, Nx, N-M, pN, pNx or pN-M"},
        {"--stages p", "--stages item 'p' is not N, Nx, N-M, pN, pNx or pN-M"},
        {"--stages p1-p3", "--stages item 'p1-p3' is not N, Nx, N-M, pN, pNx or pN-M"},
        {"--stages p3-1", "--stages item 'p3-1': the range runs backwards"},
        {"--stages 1,p98", "--stages item 'p98' names no stage"},
        {"--stages 1,98", "--stages item '98' names no stage"},
        {"--stages 7z", "--stages item '7z' names no stage"},
        {"--stages 90-95", "--stages item '90-95' names no stage"},
        /* A range must start and end at a stage (the fixture's are 01 and 02): 1-9 is not 1-2. */
        {"--stages 1-9", "--stages item '1-9': no stage is numbered 9 in "},
        {"--stages 0-2", "--stages item '0-2': no stage is numbered 0 in "},
        {"--stages 2,1-3", "--stages item '1-3': no stage is numbered 3 in "},
        /* An empty value ('', a variable never set) is refused, not taken for the default. */
        {"--stages ''", "--stages needs a value"},
        {"--runs ''", "--runs needs a value"},
        {"--bin-dir ''", "--bin-dir needs a value"},
        {"--out ''", "--out needs a value"},
        {"--gpus", "--gpus needs a value"},
        {"--gpus 0,1,0", "--gpus '0,1,0' names GPU 0 twice"},
        {"--scene no-such.scene", "--scene 'no-such.scene': no such file"},
        {"--hosts /dev/null", "--hosts '/dev/null' is not a file"},
        {"--hosts stages", "--hosts 'stages' is not a file"},
        {"--hosts EMPTY", "names no login"},
    };
    assert_int_equal(sh("echo '# no login here' >'%s/empty-hosts'", f->dir), 0);
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        assert_int_equal(sh("rm -rf '%s/results'", f->dir), 0);
        char args[512];
        if (strcmp(bad[k].args, "--hosts EMPTY") == 0)
            snprintf(args, sizeof args, "--hosts '%s/empty-hosts'", f->dir);
        else
            snprintf(args, sizeof args, "%s", bad[k].args);
        int status = RUN(f, "", args);
        if (status != 2 || sh("test $(wc -l <'%s/err') -eq 1 && grep -qF -- \"%s\" '%s/err'", f->dir,
                              bad[k].message, f->dir) != 0) {
            sh("sed 's/^/# run.sh: /' '%s/err'", f->dir);
            fail_msg("run.sh %s: status %d, expected 2 and one line with '%s'", args, status,
                     bad[k].message);
        }
        assert_int_equal(sh("test ! -e '%s/results'", f->dir), 0);
    }
    /* --out naming a file. */
    assert_int_equal(sh("cd '%s/repo' && STAGES_DIR='%s' ./run.sh --no-build --out README.md >'%s/out' 2>'%s/err'", f->dir,
                        f->stages, f->dir, f->dir), 2);
    assert_int_equal(sh("grep -qF -- \"--out 'README.md' exists and is not a folder\" '%s/err'", f->dir), 0);
    assert_int_equal(RUN(f, "", "--help"), 0);
    assert_int_equal(sh("grep -q '^usage: ./run.sh' '%s/out'", f->dir), 0);
    assert_int_equal(sh("grep -q -- '--pt-scene FILE' '%s/out' && grep -q 'pN-M' '%s/out'", f->dir, f->dir), 0);
}

/* --pt-scene, the path-tracing track's timed scene, is checked like --scene before anything is
 * written: it exists, is a regular file, can be read; one line, status 2. */
static void test_pt_scene_validation(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    assert_int_equal(sh("mkfifo '%s/fifo' && touch '%s/unreadable.scene' && chmod 000 '%s/unreadable.scene'",
                        f->dir, f->dir, f->dir), 0);
    const struct {
        const char *args, *message;
    } bad[] = {
        {"--pt-scene no-such.scene", "run.sh: error: --pt-scene 'no-such.scene': no such file"},
        {"--pt-scene scenes", "run.sh: error: --pt-scene 'scenes' is not a regular file"},
        {"--pt-scene FIFO", "' is not a regular file"},
        {"--pt-scene", "run.sh: error: --pt-scene needs a value"},
        {"--scene scenes", "run.sh: error: --scene 'scenes' is not a regular file"},
        {"--pt-scene UNREADABLE", "unreadable.scene' cannot be read"}, /* not as root: root reads it */
    };
    int root = sh("test \"$(id -u)\" -eq 0") == 0;
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char args[512];
        if (strcmp(bad[k].args, "--pt-scene FIFO") == 0)
            snprintf(args, sizeof args, "--pt-scene '%s/fifo'", f->dir);
        else if (strcmp(bad[k].args, "--pt-scene UNREADABLE") == 0) {
            if (root) continue;
            snprintf(args, sizeof args, "--pt-scene '%s/unreadable.scene'", f->dir);
        } else
            snprintf(args, sizeof args, "%s", bad[k].args);
        assert_int_equal(sh("rm -rf '%s/results'", f->dir), 0);
        int status = RUN(f, "", args);
        if (status != 2 || sh("test $(wc -l <'%s/err') -eq 1 && grep -qF -- \"%s\" '%s/err'", f->dir,
                              bad[k].message, f->dir) != 0) {
            sh("sed 's/^/# run.sh: /' '%s/err'", f->dir);
            fail_msg("run.sh %s: status %d, expected 2 and one line with '%s'", args, status, bad[k].message);
        }
        assert_int_equal(sh("test ! -e '%s/results'", f->dir), 0);
    }
    /* A good one is used: the path-tracing stage's timed runs get it, the main stages keep --scene.
     */
    add_fake_pt_stages(f, "p01-base");
    char env[PATH_MAX];
    snprintf(env, sizeof env, "FAKE_ARGS_LOG='%s/args'", f->dir);
    RUN_OK(f, env, "--runs 1 --no-verify --stages 1,p1 --pt-scene scenes/pt-quick.scene");
    assert_int_equal(sh("grep -qx 'p01-base --scene scenes/pt-quick.scene --csv' '%s/args' && "
                        "grep -qx '01-base --scene scenes/benchmark.scene --csv' '%s/args'", f->dir, f->dir), 0);
}

static void test_statistics_by_hand(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    /* kernel over 5 runs: 100 200 300 400 1000 -> mean 400, median 300,
     * sample std sqrt((300^2+200^2+100^2+0+600^2)/4) = sqrt(125000) = 353.553, min 100, max 1000.
     */
    assert_int_equal(RUN(f, "FAKE_KERNEL_SERIES='100 200 300 400 1000'", "--runs 5 --stages 1 --no-verify"), 0);
    assert_int_equal(sh("grep -qx '01-base,kernel,us,5,400,300,353.553,100,1000' '%s/results/fake-gpu/summary.csv'",
                        f->dir), 0);
    /* total = 1000+100+500+kernel+400+10+200 = 2210 + kernel */
    assert_int_equal(sh("grep -qx '01-base,total,us,5,2610,2510,353.553,2310,3210' '%s/results/fake-gpu/summary.csv'",
                        f->dir), 0);
    /* The module itself, on the same series. */
    assert_int_equal(sh("cd '%s/tools/runner' && python3 -c \"import summarize as s; r = s.stats([100, 200, 300, 400, 1000]); "
                        "assert r == {'n': 5, 'mean': 400, 'median': 300, 'std': 125000 ** 0.5, 'min': 100, 'max': 1000}, r\"",
                        repo), 0);
    /* Stages as rows: host alloc., device alloc., HtoD, kernel, DtoH, device free, host free,
     * total. */
    assert_int_equal(sh("grep -qx '| 01-base | 1000 | 100 | 500 | 400 | 400 | 10 | 200 | 2610 |' "
                        "'%s/results/fake-gpu/summary.md'", f->dir), 0);
    /* The speed-up table has the median beside the mean. */
    assert_int_equal(sh("grep -qx '| 01-base | 2610 | 2510 | 1.00x | 1.00x | 400 | 300 | 1.00x | 1.00x | A |' "
                        "'%s/results/fake-gpu/summary.md'", f->dir), 0);
}

static void test_two_gpus_never_shared(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    char env[512];
    snprintf(env, sizeof env, "FAKE_GPU_COUNT=2 FAKE_LOG='%s' FAKE_SLEEP=0.2", f->dir);
    assert_int_equal(RUN(f, env, "--runs 4 --gpus 0,1 --no-verify"), 0);
    assert_int_equal(sh("! grep -q CONFLICT '%s/events'", f->dir), 0);
    assert_int_equal(sh("grep -q '^gpu 0 ' '%s/events' && grep -q '^gpu 1 ' '%s/events'", f->dir, f->dir), 0);
    assert_int_equal(sh("grep -q '^overlap' '%s/events'", f->dir), 0); /* the two GPUs did work at once */
    assert_int_equal(sh("test -s '%s/results/fake-gpu/joblog.txt'", f->dir), 0);
    /* interleaved: order 1 and 2 are run 1 of 01 and of 02 */
    assert_int_equal(sh(ROWS "awk -F, '$12 == \"total\" && $1 <= 2 { print $2 $3 }' | LC_ALL=C sort | paste -sd' ' - "
                        "| grep -qx '101-base 102-static'", f->dir), 0);
}

/* A stage whose manifest has campaign-gpus takes that many of the campaign's GPUs for each run,
 * which no other run uses meanwhile; its rows say how many (the gpus column), and so does the
 * summary. A number above the campaign's GPUs is refused before any run, in one line. */
static void test_stage_on_several_gpus(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    make_fake_stage(f->stages, "02-static", "01-base", NULL, "campaign-gpus: all", 0);
    char env[512];
    snprintf(env, sizeof env, "FAKE_GPU_COUNT=2 FAKE_LOG='%s' FAKE_SLEEP=0.2", d);
    RUN_OK(f, env, "--runs 3 --gpus 0,1 --no-verify");
    assert_int_equal(sh("! grep -q CONFLICT '%s/events'", d), 0);
    assert_int_equal(sh_num("grep -c '^gpu 0,1 02-static ' '%s/events'", d), 3);
    assert_int_equal(sh_num("grep -cE '^gpu [01] 01-base ' '%s/events'", d), 3);
    /* Every row of a run says how many GPUs it had; the runs keep their interleaved order. */
    assert_int_equal(sh_num(ROWS "awk -F, 'NR > 1 && $3 == \"02-static\" && $17 != 2' | wc -l", d), 0);
    assert_int_equal(sh_num(ROWS "awk -F, 'NR > 1 && $3 == \"01-base\" && $17 != 1' | wc -l", d), 0);
    assert_int_equal(sh(ROWS "awk -F, '$12 == \"total\" { print $1, $3 }' | sort -n | cut -d' ' -f2 | paste -sd' ' - | "
                        "grep -qx '01-base 02-static 01-base 02-static 01-base 02-static'", d), 0);
    assert_int_equal(sh("grep -qx '## Stages timed on several GPUs' '%s/results/fake-gpu/summary.md' && "
                        "grep -qx -- '- 02-static: 2 GPUs a run' '%s/results/fake-gpu/summary.md'", d, d), 0);
    assert_int_equal(sh("grep -q 'run 1 on GPUs 0,1: ok' '%s/err'", d), 0);
    /* On one GPU, "all" is one: no section. */
    assert_int_equal(sh("rm -rf '%s/results' '%s/events'", d, d), 0);
    RUN_OK(f, env, "--runs 1 --gpus 1 --no-verify");
    assert_int_equal(sh_num("grep -c '^gpu 1 02-static ' '%s/events'", d), 1);
    assert_int_equal(sh_num(ROWS "awk -F, 'NR > 1 && $17 != 1' | wc -l", d), 0);
    assert_int_equal(sh("! grep -q 'several GPUs' '%s/results/fake-gpu/summary.md'", d), 0);
    /* More GPUs than the campaign has: refused, nothing run. */
    assert_int_equal(sh("rm -rf '%s/results'", d), 0);
    make_fake_stage(f->stages, "02-static", "01-base", NULL, "campaign-gpus: 3", 0);
    assert_int_equal(RUN(f, env, "--runs 1 --gpus 0,1 --no-verify"), 2);
    assert_int_equal(sh("grep -q '02-static takes 3 GPUs a run .*, but this campaign has 2' '%s/err' && "
                        "test $(wc -l <'%s/err') -eq 1 && test ! -e '%s/results/fake-gpu/runs.csv.gz'", d, d, d), 0);
}

/* A stage of one process a GPU (its manifest's launcher: ranks) runs as one rank a GPU of the run,
 * through tools/launch-ranks.sh: every rank sees the run's GPUs and its own LOCAL_RANK, rank 0's
 * report is the run's rows, and a rank that fails fails the run. A stage without it is one
 * process, as before. */
static void test_stage_of_ranks(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    make_fake_stage(f->stages, "02-static", "01-base", NULL, "campaign-gpus: all\nlauncher: ranks", 0);
    char env[512];
    snprintf(env, sizeof env, "FAKE_GPU_COUNT=2 FAKE_RANKS_LOG='%s/ranks'", d);
    RUN_OK(f, env, "--runs 2 --gpus 0,1 --no-verify");
    assert_int_equal(sh_num("grep -c '^02-static 0 2 0 0,1$' '%s/ranks'", d), 2);
    assert_int_equal(sh_num("grep -c '^02-static 1 2 1 0,1$' '%s/ranks'", d), 2);
    assert_int_equal(sh_num("wc -l <'%s/ranks'", d), 4); /* 01-base: no ranks */
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"02-static\" && $12 == \"total\" && $15 == \"ok\" && $17 == 2' | wc -l",
                            d), 2);
    assert_int_equal(sh_num(ROWS "awk -F, 'NR > 1 && $15 != \"ok\"' | wc -l", d), 0);
    /* Rank 0 of run 1 fails: the run fails, with the launcher's status; run 2 is timed. */
    assert_int_equal(sh("rm -rf '%s/results' '%s/ranks'", d, d), 0);
    snprintf(env, sizeof env, "FAKE_GPU_COUNT=2 FAKE_RANKS_LOG='%s/ranks' FAKE_FAIL=02-static:1", d);
    assert_int_equal(RUN(f, env, "--runs 2 --gpus 0,1 --no-verify"), 1);
    assert_int_equal(sh(ROWS "awk -F, '$3 == \"02-static\" && $2 == 1 && $15 == \"failed\"' | grep -q 'exit status 1'", d), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"02-static\" && $2 == 2 && $12 == \"total\" && $15 == \"ok\"' | wc -l", d), 1);
}

static void test_hosts_gather_results(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    char env[PATH_MAX + 256];
    snprintf(env, sizeof env, "RUN_SSH='%s/tests/fixtures/fake-ssh.sh' FAKE_SSH_ROOT='%s/remote'", repo, f->dir);
    assert_int_equal(sh("mkdir -p '%s/remote' && printf 'hostA\\n# a comment\\nhostB\\n' >'%s/hosts'", f->dir, f->dir), 0);
    char args[512];
    snprintf(args, sizeof args, "--runs 2 --hosts '%s/hosts'", f->dir);
    RUN_OK(f, env, args);
    assert_int_equal(sh("grep -qx hostA '%s/remote/logins' && grep -qx hostB '%s/remote/logins'", f->dir, f->dir), 0);
    for (int h = 0; h < 2; h++) {
        const char *host = h ? "hostB" : "hostA", *slug = h ? "fake-hostb-gpu" : "fake-hosta-gpu";
        assert_int_equal(sh_num("zcat '%s/results/%s/runs.csv.gz' | awk -F, -v h=%s '$12 == \"total\" && $15 == \"ok\" && $4 == h' "
                                "| wc -l", f->dir, slug, host), 4);
        assert_int_equal(sh("test ! -e '%s/results/%s/runs.csv'", f->dir, slug), 0);
        assert_int_equal(sh("test -s '%s/results/%s/summary.csv' && test -s '%s/results/%s/env.txt'",
                            f->dir, slug, f->dir, slug), 0);
    }
    assert_int_equal(sh("grep -q 'Fake hostB GPU' '%s/results/README.md'", f->dir), 0);
}

/* awk printing how many (stage, run) pairs among the rows matching COND lack the 18 rows of a
 * complete run (the fake stage's 17 metrics and the process's wall time, no --output). */
#define INCOMPLETE(cond) \
    "awk -F, '" cond " { n[$3 \" \" $2]++ } END { bad = 0; for (k in n) if (n[k] != 18) bad++; print bad }' "

/* Every (stage, run) pair has exactly one complete ok run. */
static void assert_runs_exact(const fixture *f, long pairs) {
    assert_int_equal(sh_num(ROWS INCOMPLETE("NR > 1 && $15 == \"ok\""), f->dir), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"total\" && $15 == \"ok\"' | wc -l", f->dir), pairs);
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"total\" && $15 == \"ok\" { print $3, $2 }' | sort -u | wc -l",
                            f->dir), pairs);
    assert_int_equal(sh_num(ROWS "awk -F, '$15 == \"failed\"' | wc -l", f->dir), 0);
}

/* No run of the campaign failed. */
static void assert_runs_exact_metrics_ok(const fixture *f) {
    assert_int_equal(sh_num(ROWS "awk -F, '$15 == \"failed\"' | wc -l", f->dir), 0);
}

static void test_resume_after_failure(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    assert_int_equal(RUN(f, "FAKE_FAIL='02-static:2'", "--runs 3"), 1);
    assert_int_equal(sh("grep -q '02-static run 2: exit status 1' '%s/err'", f->dir), 0);
    assert_int_equal(RUN(f, "", "--runs 3"), 2); /* refuses to overwrite without --resume */
    assert_int_equal(RUN(f, "", "--runs 4 --resume"), 0);
    assert_runs_exact(f, 8);
    assert_int_equal(sh_num("awk -F, '$15 == \"failed\"' '%s/results/fake-gpu/failed-runs.csv' | wc -l", f->dir), 1);
}

static void test_resume_after_interrupt(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    char cmd[CMD_MAX];
    snprintf(cmd, sizeof cmd,
             "cd '%s/repo' && STAGES_DIR='%s' FAKE_SLEEP=1 exec ./run.sh --no-build --bin-dir '%s/bin' --out '%s/results' "
             "--runs 6 --no-verify >'%s/out' 2>'%s/err'", f->dir, f->stages, f->dir, f->dir, f->dir, f->dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        /* A signal ignored when a shell starts cannot be trapped (POSIX), and a test run in the
         * background (nohup, `&` in a script) inherits SIGINT ignored: restore it. */
        signal(SIGINT, SIG_DFL);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    for (int i = 0; i < 600; i++) { /* until 3 runs are recorded (at most 60 s: CI is loaded) */
        if (sh_num("awk -F, '$12 == \"total\"' " LIVE_RUNS " 2>/dev/null | wc -l", f->dir) >= 3) break;
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    kill(-pid, SIGINT); /* what Ctrl-C does */
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    /* Interrupted, the campaign still closes its runs: runs.csv.gz, no runs.csv, and says so. */
    assert_int_equal(sh("test ! -e " LIVE_RUNS " && grep -q '^run.sh: interrupted; every finished run is in "
                        "%s/results/fake-gpu/runs.csv.gz; continue with: ' '%s/err'", f->dir, f->dir, f->dir), 0);
    long done = sh_num(ROWS "awk -F, '$12 == \"total\"' | wc -l", f->dir);
    assert_true(done >= 3 && done < 12);
    assert_int_equal(sh_num(ROWS INCOMPLETE("NR > 1"), f->dir), 0); /* no half-written run */
    assert_int_equal(sh(ROWS "cat >'%s/before.csv'", f->dir, f->dir), 0);
    assert_int_equal(RUN(f, "", "--runs 6 --resume --no-verify"), 0);
    assert_runs_exact(f, 12);
    /* The runs recorded before the interrupt are kept, first and unchanged. */
    assert_int_equal(sh(ROWS "head -n \"$(wc -l <'%s/before.csv')\" | cmp -s - '%s/before.csv'", f->dir, f->dir, f->dir), 0);
}

/* A campaign that ends leaves its runs in runs.csv.gz, gzip -9 -n of its rows (the same rows give
 * the same bytes), and no runs.csv; a new campaign into the folder is refused and leaves it as it
 * was; --resume unpacks it: every row kept as it was and first, the new runs appended with orders
 * that go on from the last, and the whole closed again. A live runs.csv beside a runs.csv.gz (a
 * campaign cut off before it could close) is the newer and the one continued. */
static void test_runs_kept_gzipped(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    RUN_OK(f, "", "--runs 2 --no-verify");
    assert_int_equal(sh("test -s " RUNS_GZ " && test ! -e " LIVE_RUNS " && test ! -e '%s/results/fake-gpu/runs.csv.gz.tmp'",
                        d, d, d), 0);
    assert_int_equal(sh(ROWS "gzip -9 -n | cmp -s - " RUNS_GZ, d, d), 0);
    assert_int_equal(sh_num(ROWS "wc -l", d), 1 + 4 * 18); /* the header, 4 runs of 18 rows */
    assert_int_equal(sh(ROWS "awk -F, '$12 == \"total\" { print $1, $2, $3 }' | sort -n | paste -sd, - | "
                        "grep -qx '1 1 01-base,2 1 02-static,3 2 01-base,4 2 02-static'", d), 0);
    assert_int_equal(sh("grep -q '^01-base,total,us,2,' '%s/results/fake-gpu/summary.csv'", d), 0);
    assert_int_equal(sh(ROWS "cat >'%s/before.csv' && md5sum " RUNS_GZ " >'%s/sums'", d, d, d, d), 0);
    /* Without --resume: refused, the folder as it was. */
    assert_int_equal(RUN(f, "", "--runs 3 --no-verify"), 2);
    assert_int_equal(sh("grep -q 'already holds runs: continue them with --resume' '%s/err' && "
                        "md5sum -c --quiet '%s/sums' && test ! -e " LIVE_RUNS, d, d, d), 0);
    /* --resume --runs 3: run 3 of each stage, orders 5 and 6, after every earlier row unchanged. */
    RUN_OK(f, "", "--runs 3 --resume --no-verify");
    assert_int_equal(sh("test ! -e " LIVE_RUNS, d), 0);
    assert_int_equal(sh(ROWS "head -n %d | cmp -s - '%s/before.csv'", d, 1 + 4 * 18, d), 0);
    assert_int_equal(sh(ROWS "awk -F, '$12 == \"total\" { print $1, $2, $3 }' | sort -n | paste -sd, - | "
                        "grep -qx '1 1 01-base,2 1 02-static,3 2 01-base,4 2 02-static,5 3 01-base,6 3 02-static'", d), 0);
    assert_int_equal(sh(ROWS "gzip -9 -n | cmp -s - " RUNS_GZ, d, d), 0);
    assert_runs_exact(f, 6);
    assert_int_equal(sh("grep -q '^01-base,total,us,3,' '%s/results/fake-gpu/summary.csv'", d), 0);
    /* Cut off before it could close: runs.csv holds every run, runs.csv.gz an older state (runs
     * 1-2). --resume --runs 4 continues runs.csv: only run 4 is timed (orders 7 and 8). */
    assert_int_equal(sh(ROWS "cat >" LIVE_RUNS " && zcat " RUNS_GZ " | awk -F, 'NR == 1 || $2 <= 2' | gzip -9 -n "
                        ">'%s/older.gz' && mv '%s/older.gz' " RUNS_GZ, d, d, d, d, d, d), 0);
    RUN_OK(f, "", "--runs 4 --resume --no-verify");
    assert_int_equal(sh("test ! -e " LIVE_RUNS, d), 0);
    assert_int_equal(sh(ROWS "awk -F, '$12 == \"total\" && $2 >= 3 { print $1, $2, $3 }' | sort -n | paste -sd, - | "
                        "grep -qx '5 3 01-base,6 3 02-static,7 4 01-base,8 4 02-static'", d), 0);
    assert_runs_exact(f, 8);
}

/* A campaign's provenance (tools/runner/provenance.sh): env.txt names the source revision (the
 * stand-in checkout is no git checkout: it says so), provenance.tsv a row per stage the campaign
 * times: its source hash (01-base has a render.cu here: tools/stages source-hash's; 02-static has
 * none: unknown, said once on stderr), its executable's sha256 and the shared host code's hash. A
 * --resume adds the rows of the stages it times again, and none for a stage with nothing left. */
static void test_provenance_of_a_campaign(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    make_fake_stage(f->stages, "01-base", "none", NULL, NULL, 1);
#define PROVENANCE "'%s/results/fake-gpu/provenance.tsv'"
    RUN_OK(f, "", "--runs 2 --no-verify");
    assert_int_equal(sh("grep -qx 'revision: unknown (not a git checkout)' '%s/results/fake-gpu/env.txt'", d), 0);
    assert_int_equal(sh("head -n 1 " PROVENANCE " | grep -qx \"$(printf 'stage\\tsource_hash\\tbinary_sha256\\t"
                        "runtime_hash\\trevision\\tdate')\"", d), 0);
    assert_int_equal(sh("cut -f1 " PROVENANCE " | paste -sd' ' - | grep -qx 'stage 01-base 02-static'", d), 0);
    struct command_result *r =
        run_shell("STAGES_DIR='%s' tools/stages source-hash 01-base | cut -f2 && sha256sum <'%s/bin/01-base' | cut -d' ' -f1 "
                  "&& tools/stages runtime-hash", f->stages, d);
    char source[80], binary[80], runtime[80], want[512];
    assert_int_equal(sscanf(r->out, "%79s %79s %79s", source, binary, runtime), 3);
    snprintf(want, sizeof want, "01-base\t%s\t%s\t%s\tunknown (not a git checkout)\t", source, binary, runtime);
    r = run_shell("sed -n 2p " PROVENANCE, d);
    if (strncmp(r->out, want, strlen(want)) != 0)
        fail_msg("provenance.tsv's row of 01-base: '%s', expected it to start '%s'", r->out, want);
    r = run_shell("sed -n 3p " PROVENANCE " | cut -f2", d);
    assert_string_equal(r->out, "unknown (tools/stages source-hash failed)\n");
    assert_int_equal(sh_num("grep -c '^provenance: no source hash for 02-static' '%s/err'", d), 1);
    /* Resumed for stage 1, run 3: a row for 01-base; then nothing left to time: no row. */
    RUN_OK(f, "", "--runs 3 --resume --no-verify --stages 1");
    assert_int_equal(sh("cut -f1 " PROVENANCE " | paste -sd' ' - | grep -qx 'stage 01-base 02-static 01-base'", d), 0);
    RUN_OK(f, "", "--runs 3 --resume --no-verify --stages 1");
    assert_int_equal(sh_num("wc -l <" PROVENANCE, d), 4);
    assert_int_equal(sh_num("grep -c '^revision: ' '%s/results/fake-gpu/env.txt'", d), 3);
#undef PROVENANCE
}

/* A runs.csv beside runs.csv.gz is continued only if it is the live file of that campaign: a
 * stale copy (fewer runs than the packed file) or a stray row without a header (a run that
 * outlived its campaign) is refused, one line, status 2, both files left as they were. */
static void test_stale_or_stray_live_runs_refused(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    RUN_OK(f, "", "--runs 2 --no-verify");
    assert_int_equal(sh(ROWS "awk -F, 'NR == 1 || $2 <= 1' >" LIVE_RUNS " && md5sum " RUNS_GZ " " LIVE_RUNS " >'%s/sums'",
                        d, d, d, d, d), 0);
    assert_int_equal(RUN(f, "", "--runs 3 --resume --no-verify"), 2);
    assert_int_equal(sh("test $(wc -l <'%s/err') -eq 1 && grep -q 'runs.csv is not the continuation of .*runs.csv.gz "
                        "beside it' '%s/err' && md5sum -c --quiet '%s/sums'", d, d, d), 0);
    assert_int_equal(sh(ROWS "tail -n 1 >" LIVE_RUNS " && md5sum " RUNS_GZ " " LIVE_RUNS " >'%s/sums'", d, d, d, d, d), 0);
    assert_int_equal(RUN(f, "", "--runs 3 --no-verify"), 2);
    assert_int_equal(sh("grep -q 'is not the continuation' '%s/err' && md5sum -c --quiet '%s/sums'", d, d), 0);
    /* The live file of that campaign (here: the packed runs, nothing newer yet) is continued. */
    assert_int_equal(sh(ROWS "cat >" LIVE_RUNS, d, d), 0);
    RUN_OK(f, "", "--runs 3 --resume --no-verify");
    assert_int_equal(sh("test ! -e " LIVE_RUNS, d), 0);
    assert_runs_exact(f, 6);
}

static void test_failed_hung_garbage_runs(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    assert_int_equal(RUN(f, "FAKE_HANG='01-base:1' FAKE_GARBAGE='02-static:1' FAKE_FAIL='01-base:2'",
                         "--runs 3 --timeout 2 --no-verify"), 1);
    assert_int_equal(sh("grep -q '01-base run 1: timeout after 2s' '%s/err'", f->dir), 0);
    assert_int_equal(sh("grep -q '02-static run 1: output is not the stage CSV' '%s/err'", f->dir), 0);
    assert_int_equal(sh("grep -q '01-base run 2: exit status 1' '%s/err'", f->dir), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$15 == \"failed\"' | wc -l", f->dir), 3);
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"total\" && $15 == \"ok\"' | wc -l", f->dir), 3);
    assert_int_equal(sh("test -s '%s/results/fake-gpu/logs/01-base-run1.log'", f->dir), 0);
}

static void test_verification_failure_not_timed(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    assert_int_equal(RUN(f, "FAKE_BAD_IMAGE=02-static", "--runs 2"), 1);
    assert_int_equal(sh("grep -q '02-static FAILED verification' '%s/err'", f->dir), 0);
    assert_int_equal(sh("grep -q '^02-static: FAILED' '%s/results/fake-gpu/verify.txt'", f->dir), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"02-static\"' | wc -l", f->dir), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"total\" && $3 == \"01-base\"' | wc -l", f->dir), 2);
}

/* A stage that changes the arithmetic on purpose states its bound in its manifest's
 * max-differing-percent; verification then holds it to that, and a bound that is not a number is
 * refused by the reader (tools/stages): one line naming the manifest, status 2, nothing timed. */
static void test_verification_tolerance_of_a_stage(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    char env[512];
    snprintf(env, sizeof env, "FAKE_BAD_IMAGE=02-static FAKE_ARGS_LOG='%s/args'", f->dir);
    make_fake_stage(f->stages, "02-static", "01-base", NULL, "max-differing-percent: 100", 0);
    assert_int_equal(RUN(f, env, "--runs 2"), 0);
    assert_int_equal(sh("grep -q '^02-static: ok: differing pixels: 1 of 1' '%s/results/fake-gpu/verify.txt'", f->dir), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"total\" && $3 == \"02-static\"' | wc -l", f->dir), 2);
    /* The bound went to compare-images; 01-base, whose manifest states none, gets 0. */
    assert_int_equal(sh("grep -qE '^compare-images [^ ]*/reference.png [^ ]*/02-static.png --max-differing-percent 100$' '%s/args' && "
                        "grep -qE '^compare-images [^ ]*/reference.png [^ ]*/01-base.png --max-differing-percent 0$' '%s/args'",
                        f->dir, f->dir), 0);
    assert_int_equal(sh("rm -rf '%s/results'", f->dir), 0);
    make_fake_stage(f->stages, "02-static", "01-base", NULL, "max-differing-percent: lots", 0);
    assert_int_equal(RUN(f, env, "--runs 2"), 2);
    if (sh("test $(wc -l <'%s/err') -eq 1 && "
           "grep -q \"^run.sh: error: .*/stages/02-static/manifest:[0-9]*: max-differing-percent: 'lots' is not a percentage\" '%s/err'",
           f->dir, f->dir) != 0) {
        sh("sed 's/^/# run.sh: /' '%s/err'", f->dir);
        fail_msg("max-differing-percent: lots: want one line naming the manifest and the field");
    }
    assert_int_equal(sh_num("zcat -f '%s'/results/fake-gpu/runs.csv* 2>/dev/null | awk -F, '$12 == \"total\"' | wc -l", f->dir), 0);
    assert_int_equal(sh("test ! -e '%s/results'", f->dir), 0); /* refused before anything is written */
}

static void test_update_readmes_check(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    /* A repository-like root: its stage folders (manifests and READMEs), the study's numbers in
     * root/results/reported/, the campaign in root/results/reference/ (what --root reads). */
    assert_int_equal(sh("mkdir -p '%s/root/stages' && cp -R '%s/stages/.' '%s/root/stages/' && "
                        "mkdir -p '%s/root/results/reported' && cp results/reported/*.csv '%s/root/results/reported/' && "
                        "printf '# Course\\n<!-- results:begin -->\\nold\\n<!-- results:end -->\\ntail\\n' >'%s/root/README.md' && "
                        "printf '# 01\\n<!-- results:begin -->\\n<!-- results:end -->\\n' >'%s/root/stages/01-base/README.md' && "
                        "printf '# 02 without markers\\n' >'%s/root/stages/02-static/README.md'",
                        d, d, d, d, d, d, d, d), 0);
    assert_int_equal(sh("cd '%s/repo' && STAGES_DIR='%s/root/stages' FAKE_KERNEL_SERIES='100 300' ./run.sh --no-build "
                        "--bin-dir '%s/bin' --out '%s/root/results/reference' --runs 2 --no-verify 2>/dev/null", d, d, d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' 2>'%s/err'", d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check", d), 0);
    assert_int_equal(sh("grep -qx '| 01-base | 1000 | 100 | 500 | 200 | 400 | 10 | 200 | 2410 |' '%s/root/README.md' && "
                        "grep -qx '| 02-static | 2000 | 200 | 1000 | 200 | 800 | 20 | 400 | 4620 |' '%s/root/README.md' && "
                        "grep -qx tail '%s/root/README.md'", d, d, d), 0);
    assert_int_equal(sh("grep -q '^| CUDA kernel | – | 200 |' '%s/root/stages/01-base/README.md'", d), 0);
    assert_int_equal(sh("grep -qx '# 02 without markers' '%s/root/stages/02-static/README.md' && "
                        "test \"$(wc -l <'%s/root/stages/02-static/README.md')\" -eq 1", d, d), 0);
    assert_int_equal(sh("grep -q 'PSeasword/CUDAOptimizedRayTracer' '%s/root/results/reference/README.md'", d), 0);
    /* The campaign's README lists root's GPU folders only: no reference GPUs beside them. */
    assert_int_equal(sh("grep -q '(reference)' '%s/root/results/reference/README.md'", d), 1);
    /* New data: every generated file is now stale and --check names them. */
    assert_int_equal(sh("cd '%s/root/results/reference/fake-gpu' && test ! -e runs.csv && zcat runs.csv.gz | "
                        "sed 's/,kernel,100,us,ok,,1$/,kernel,500,us,ok,,1/' | gzip -9 -n >new.gz && mv new.gz runs.csv.gz", d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check 2>'%s/err'", d, d), 1);
    assert_int_equal(sh("grep -q 'stale: README.md' '%s/err' && grep -q 'stages/01-base/README.md' '%s/err' && "
                        "grep -q 'summary.csv' '%s/err'", d, d, d), 0);
    assert_int_equal(sh("grep -q '02-static' '%s/err'", d), 1);
}

/* The stages a campaign timed, sorted and space-separated, as one line in DIR/timed. */
#define TIMED_STAGES(f) \
    sh(ROWS "awk -F, '$12 == \"total\" { print $3 }' | LC_ALL=C sort -u | paste -sd' ' - >'%s/timed'", (f)->dir, (f)->dir)

/* A --stages list (empty: none given) and the stages a campaign with it must time. */
typedef struct {
    const char *spec, *timed;
} selection;

/* One campaign per case (--runs 1 --no-verify) into DIR/selection-I/, all at once: they share
 * nothing but their inputs. Then each must have succeeded and timed exactly the stages the case
 * names. What is asked of them is runs.csv.gz, not pictures: their python3 finds a matplotlib
 * without pyplot (DIR/no-pyplot/, first on PYTHONPATH), so tools/plot.py skips the plots at once,
 * as on a machine without matplotlib, and run.sh must go on (the plots take most of a fake
 * campaign's time; test_plots_every_stage makes them). */
static void assert_selections(const fixture *f, const selection *cases, size_t n) {
    assert_int_equal(sh("mkdir -p '%s/no-pyplot/matplotlib' && "
                        "printf '# tests/test_runner.c: a matplotlib without pyplot\\ndef use(*args, **kwargs):\\n    pass\\n' "
                        ">'%s/no-pyplot/matplotlib/__init__.py'", f->dir, f->dir), 0);
    char cmd[CMD_MAX];
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        used += (size_t)snprintf(cmd + used, sizeof cmd - used,
                                 "( cd '%s/repo' && PYTHONPATH='%s/no-pyplot' STAGES_DIR='%s' ./run.sh --no-build --bin-dir '%s/bin' "
                                 "--out '%s/selection-%zu' --runs 1 --no-verify%s%s >/dev/null 2>'%s/selection-%zu.err'; "
                                 "echo $? >'%s/selection-%zu.status' ) & ",
                                 f->dir, f->dir, f->stages, f->dir, f->dir, i, cases[i].spec[0] ? " --stages " : "",
                                 cases[i].spec, f->dir, i, f->dir, i);
        assert_true(used < sizeof cmd - 8);
    }
    snprintf(cmd + used, sizeof cmd - used, "wait");
    assert_int_equal(sh("%s", cmd), 0);
    for (size_t i = 0; i < n; i++) {
        if (sh_num("cat '%s/selection-%zu.status'", f->dir, i) != 0) {
            sh("sed 's/^/# run.sh: /' '%s/selection-%zu.err' | tail -20", f->dir, i);
            fail_msg("run.sh --stages '%s' failed", cases[i].spec);
        }
        assert_int_equal(sh("grep -q '^plot.py: matplotlib not installed, plots skipped' '%s/selection-%zu.err' && "
                            "! grep -q 'plots failed' '%s/selection-%zu.err'", f->dir, i, f->dir, i), 0);
        assert_int_equal(sh("zcat '%s/selection-%zu/fake-gpu/runs.csv.gz' | awk -F, '$12 == \"total\" { print $3 }' | "
                            "LC_ALL=C sort -u | paste -sd' ' - >'%s/timed'", f->dir, i, f->dir), 0);
        if (sh("grep -qx '%s' '%s/timed'", cases[i].timed, f->dir) != 0) {
            sh("sed 's/^/# timed: /' '%s/timed'", f->dir);
            fail_msg("--stages '%s' should time exactly: %s", cases[i].spec, cases[i].timed);
        }
    }
}

static void test_stage_selection(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    add_fake_stages(f, "07-shared 07a-side 08-last");
    /* The stages are the manifests' folders: a resource report beside the executables is never
     * timed, even when executable. */
    assert_int_equal(sh("cp tests/fixtures/fake-stage.sh '%s/bin/07a-side.resources.txt'", f->dir), 0);
    const selection cases[] = {
        {"7a", "07a-side"},                                 /* a side stage alone */
        {"7", "07-shared"},                                 /* a main stage without its side stages */
        {"1,7-8", "01-base 07-shared 07a-side 08-last"},    /* a range takes main and side stages */
        {"2,7a", "02-static 07a-side"},
        {"", "01-base 02-static 07-shared 07a-side 08-last"}, /* default: every stage */
    };
    assert_selections(f, cases, sizeof cases / sizeof *cases);
    assert_int_equal(sh_num("zcat '%s'/selection-*/fake-gpu/runs.csv.gz | grep -c resources", f->dir), 0);
    /* Malformed items: exit status 2 and one line that names the item. */
    const char *bad[] = {"7ab", "7-", "8-7", "7A", "a", "1,,2", "1,", "-3"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char args[64];
        snprintf(args, sizeof args, "--stages '%s'", bad[i]);
        assert_int_equal(RUN(f, "", args), 2);
        assert_int_equal(sh_num("wc -l <'%s/err'", f->dir), 1);
        assert_int_equal(sh("grep -q '^run.sh: error: --stages' '%s/err'", f->dir), 0);
    }
    assert_int_equal(RUN(f, "", "--help"), 0);
    assert_int_equal(sh("grep -q '7a' '%s/out' && grep -q 'campaign-args' '%s/out' && ! grep -qF 'campaign.args' '%s/out'",
                        f->dir, f->dir, f->dir), 0);
}

static void test_campaign_args(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    /* 02-static's manifest asks for three frames (its words split on any blanks); 01-base's has
     * no campaign-args. */
    make_fake_stage(f->stages, "02-static", "01-base", NULL, "options: --frames\ncampaign-args: --frames \t 3", 0);
    char env[PATH_MAX];
    snprintf(env, sizeof env, "FAKE_ARGS_LOG='%s/args'", f->dir);
    RUN_OK(f, env, "--runs 2");
    /* The timed runs get the words after --scene FILE --csv; verification runs do not. */
    assert_int_equal(sh_num("grep -c '^02-static --scene scenes/benchmark.scene --csv --frames 3$' '%s/args'", f->dir), 2);
    assert_int_equal(sh_num("grep -c '^01-base --scene scenes/benchmark.scene --csv$' '%s/args'", f->dir), 2);
    assert_int_equal(sh("grep -q '^02-static --scene scenes/quick.scene --output [^ ]*$' '%s/args'", f->dir), 0);
    /* The fake stage prints frames and steady_frame only when it was given --frames. */
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"02-static\" && $12 == \"frames\" && $13 == 3' | wc -l", f->dir), 2);
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"02-static\" && $12 == \"steady_frame\"' | wc -l", f->dir), 2);
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"01-base\" && ($12 == \"frames\" || $12 == \"steady_frame\")'"
                            " | wc -l", f->dir), 0);
    assert_runs_exact_metrics_ok(f);
}

/* A stage whose manifest has campaign-image is timed twice in every run, interleaved: as its
 * campaign-args say, and writing its image. The rows say which (the runs' image column), the
 * summaries keep the two apart, and every run has its process's wall time. */
static void test_campaign_image(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    make_fake_stage(f->stages, "02-static", "01-base", NULL, "options: --frames\ncampaign-args: --frames 3\ncampaign-image: png", 0);
    char env[PATH_MAX];
    snprintf(env, sizeof env, "FAKE_ARGS_LOG='%s/args'", f->dir);
    RUN_OK(f, env, "--runs 2");
    assert_int_equal(sh(ROWS "head -n 1 | grep -q ',status,image,gpus$'", f->dir), 0);
    /* Three configurations x 2 runs, each run complete, the image one with its file and phase. */
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"total\" && $15 == \"ok\" { print $3, $16 }'"
                            " | sort | uniq -c | awk '{ print $2 \":\" $3 \":\" $1 }' | paste -sd' ' - | "
                            "grep -cx '01-base::2 02-static::2 02-static:png:2'", f->dir), 1);
    assert_int_equal(sh_num("grep -c '^02-static --scene scenes/benchmark.scene --csv --frames 3 --output [^ ]*/frame.png$' '%s/args'",
                            f->dir), 2);
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"image_write\" && $16 == \"png\" && $13 == 6000' | wc -l", f->dir), 2);
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"image_write\" && $16 == \"\"' | wc -l", f->dir), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"process_wall\" && $14 == \"us\" && $13 > 0' | wc -l", f->dir), 6);
    /* Run by run, the two configurations alternate (order 1: 01-base, 2: 02-static, 3: png). */
    assert_int_equal(sh(ROWS "awk -F, '$12 == \"total\" { print $1, $2, $3, $16 }' | sort -n | paste -sd'|' - | "
                        "grep -qx '1 1 01-base |2 1 02-static |3 1 02-static png|4 2 01-base |5 2 02-static |6 2 02-static png'",
                        f->dir), 0);
    /* The stage's own statistics are those of the runs without an image; the others apart. */
    assert_int_equal(sh("grep -q '^02-static,total,us,2,' '%s/results/fake-gpu/summary.csv'", f->dir), 0);
    assert_int_equal(sh("grep -q '^02-static,image_write,' '%s/results/fake-gpu/summary.csv'", f->dir), 1);
    assert_int_equal(sh("grep -qx '02-static --output frame.png,image_write,us,2,6000,6000,0,6000,6000' "
                        "'%s/results/fake-gpu/summary.csv'", f->dir), 0);
    assert_int_equal(sh("grep -q '^## Writing the image' '%s/results/fake-gpu/summary.md' && "
                        "grep -q '^| 02-static | png | 2 | 6.0 | ' '%s/results/fake-gpu/summary.md'", f->dir, f->dir), 0);
    /* A run that writes no image fails, with its configuration named. */
    assert_int_equal(sh("rm -rf '%s/results'", f->dir), 0);
    assert_int_equal(RUN(f, "FAKE_NO_IMAGE=02-static", "--runs 1 --no-verify"), 1);
    assert_int_equal(sh("grep -q '02-static (png) run 1: no png image written' '%s/err'", f->dir), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$15 == \"ok\" && $12 == \"total\"' | wc -l", f->dir), 2);
    /* --resume runs it again; runs of the columns before the image column (a runs.csv.gz written
     * before it), or before the gpus column, are continued under the new header, their rows
     * unchanged. */
    assert_int_equal(RUN(f, "", "--runs 1 --resume"), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$15 == \"ok\" && $12 == \"total\"' | wc -l", f->dir), 3);
    const char *d = f->dir;
    assert_int_equal(sh(ROWS "sed '1s/,gpus$//' | cut -d, -f1-16 | gzip -9 -n >'%s/no-gpus.gz' && mv '%s/no-gpus.gz' " RUNS_GZ,
                        d, d, d, d), 0);
    assert_int_equal(RUN(f, "", "--runs 1 --resume"), 0);
    assert_int_equal(sh(ROWS "head -n 1 | grep -q ',status,image,gpus$'", d), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$15 == \"ok\" && $12 == \"total\"' | wc -l", d), 3);
    assert_int_equal(sh(ROWS "sed '1s/,image,gpus$//' >'%s/all' && awk -F, 'NR > 1 && $16 == \"\"' '%s/all' | "
                        "cut -d, -f1-15 >'%s/old-rows' && awk -F, 'NR == 1 || $16 == \"\"' '%s/all' | cut -d, -f1-15 | "
                        "gzip -9 -n >" RUNS_GZ, d, d, d, d, d, d), 0);
    assert_int_equal(RUN(f, "", "--runs 2 --resume"), 0);
    assert_int_equal(sh(ROWS "head -n 1 | grep -q ',status,image,gpus$'", d), 0);
    assert_int_equal(sh(ROWS "cat >'%s/now' && grep -qxFf '%s/old-rows' '%s/now' && "
                        "test \"$(grep -cxFf '%s/old-rows' '%s/now')\" -eq \"$(wc -l <'%s/old-rows')\"", d, d, d, d, d, d, d), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$15 == \"ok\" && $12 == \"total\"' | wc -l", d), 6);
    /* Another kind of campaign's runs (a sweep's, a scaling campaign's) are not continued, and the
     * folder is left as it was: its runs.csv.gz unchanged, no runs.csv unpacked beside it. */
    assert_int_equal(sh(ROWS "sed '1s/,image,gpus$/,scene/' | gzip -9 -n >'%s/other.gz' && mv '%s/other.gz' " RUNS_GZ
                        " && md5sum " RUNS_GZ " >'%s/sums'", d, d, d, d, d, d), 0);
    assert_int_equal(RUN(f, "", "--runs 3 --resume"), 2);
    assert_int_equal(sh("grep -q '/runs.csv.gz has the columns of another kind of campaign' '%s/err' && "
                        "test $(wc -l <'%s/err') -eq 1", d, d), 0);
    assert_int_equal(sh("md5sum -c --quiet '%s/sums' && test ! -e " LIVE_RUNS " && "
                        "! ls -A '%s/results/fake-gpu' | grep -q unpacked", d, d, d), 0);
}

/* A repository-like root in DIR/root for update_readmes.py --root: the study's numbers
 * (root/results/reported/), the test's stage folders (a copy of DIR/stages: update_readmes.py
 * reads root/stages' manifests) and README files with result markers for each stage named in
 * STAGES (space-separated; a manifest is added for one that has none). Campaigns for it go to
 * root/results/reference/. */
static void make_readme_root(const fixture *f, const char *stages) {
    const char *d = f->dir;
    assert_int_equal(sh("mkdir -p '%s/root/results/reported' '%s/root/stages' && cp results/reported/*.csv '%s/root/results/reported/' && "
                        "cp -R '%s/stages/.' '%s/root/stages/' && "
                        "printf '# Course\\n<!-- results:begin -->\\n<!-- results:end -->\\n' >'%s/root/README.md' && "
                        "for s in %s; do mkdir -p '%s/root/stages/'$s && "
                        "printf '# '$s'\\n<!-- results:begin -->\\n<!-- results:end -->\\n' >'%s/root/stages/'$s/README.md; done",
                        d, d, d, d, d, d, stages, d, d), 0);
    char root_stages[PATH_MAX];
    snprintf(root_stages, sizeof root_stages, "%s/root/stages", d);
    add_manifests(root_stages, stages);
}

/* Line number of the first line of FILE (under DIR) that is exactly LINE, or -1. */
#define LINE_OF(f, file, line) \
    sh_num("grep -nxF -m1 -- '%s' '%s/%s' | cut -d: -f1", line, (f)->dir, file)

static void test_side_stage_tables(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    /* 07-shared builds on 02-static, 07a-side on 07-shared (a side stage's parent is its
     * builds-on); 07b-other's manifest says it builds on 07a-side, and it reports two extra µs
     * metrics: host_touch (a part of a phase) and steady_frame (its campaign-args' --frames). */
    add_fake_stages(f, "07-shared 07a-side");
    make_fake_stage(f->stages, "07b-other", "07a-side", NULL, "options: --frames\ncampaign-args: --frames 4", 0);
    add_fake_stages(f, "07b-other");
    make_readme_root(f, "02-static 07-shared 07a-side 07b-other");
    char env[PATH_MAX];
    snprintf(env, sizeof env, "STAGES_DIR='%s/root/stages' FAKE_KERNEL_SERIES=100 FAKE_SCALE='07a-side:2 07b-other:1' "
             "FAKE_PARTS=07b-other", d);
    char args[PATH_MAX];
    snprintf(args, sizeof args, "--runs 2 --no-verify --out '%s/root/results/reference'", d);
    RUN_OK(f, env, args); /* RUN's --out comes first; this one wins */
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root'", d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check", d), 0);
    const char *md = "root/results/reference/fake-gpu/summary.md";
    assert_int_equal(sh("grep -qF '| stage | total mean [µs] | total median [µs] | vs 01 | vs builds-on |' '%s/%s'", d, md), 0);
    /* Totals: 2210 x scale + kernel 100: 01 2310, 02 4520, 07 15570, 07a 4520, 07b 2310. */
    assert_true(LINE_OF(f, md, "| 07-shared | 7000 | 700 | 3500 | 100 | 2800 | 70 | 1400 | 15570 |") > 0);
    /* The side stages have their own table, after the main chain's, with their parent. */
    long side_row = LINE_OF(f, md, "| 07a-side | 07-shared | 2000 | 200 | 1000 | 100 | 800 | 20 | 400 | 4520 |");
    assert_true(side_row > LINE_OF(f, md, "| 07-shared | 7000 | 700 | 3500 | 100 | 2800 | 70 | 1400 | 15570 |"));
    assert_int_equal(sh("grep -q '^| 07a-side | 2000 |' '%s/%s'", d, md), 1); /* not in the main table */
    /* Main chain: vs 01 = 2310 / 15570, vs builds-on (02, not 07a) = 4520 / 15570. */
    assert_true(LINE_OF(f, md, "| 07-shared | 15570 | 15570 | 0.15x | 0.29x | 100 | 100 | 1.00x | 1.00x | A |") > 0);
    /* Side stages against their parents: 15570 / 4520 and (builds-on 07a-side) 4520 / 2310. */
    assert_true(LINE_OF(f, md, "| 07a-side | 07-shared | 4520 | 4520 | 3.44x | 100 | 100 | 1.00x | A |") > 0);
    assert_true(LINE_OF(f, md, "| 07b-other | 07a-side | 2310 | 2310 | 1.96x | 100 | 100 | 1.00x | A |") > 0);
    /* The top README has the speed-up table against builds-on, and the side-stage tables too. */
    assert_int_equal(sh("grep -qF '| vs 01 | vs builds-on | kernel mean [µs] |' '%s/root/README.md'", d), 0);
    assert_true(LINE_OF(f, "root/README.md", "| 07b-other | 07a-side | 2310 | 2310 | 1.96x | 100 | 100 | 1.00x | A |") > 0);
    assert_true(LINE_OF(f, "root/README.md", "| 07a-side | 07-shared | 2000 | 200 | 1000 | 100 | 800 | 20 | 400 | 4520 |") > 0);
    /* A side stage's README compares it with its parent and lists its extra µs metrics after the
     * phases, in the order the stage printed them. */
    const char *other = "root/stages/07b-other/README.md";
    assert_int_equal(sh("grep -q '^| phase | 07a-side mean | mean |' '%s/%s'", d, other), 0);
    assert_true(LINE_OF(f, other, "| Host mem. alloc. | 2000 | 1000 | -50.0% | 1000 | 0 | 1000 | 1000 | 2 |") > 0);
    long total_row = LINE_OF(f, other, "| Total time | 4520 | 2310 | -48.9% | 2310 | 0 | 2310 | 2310 | 2 |");
    long touch_row = LINE_OF(f, other, "| host_touch | – | 500 | – | 500 | 0 | 500 | 500 | 2 |");
    long steady_row = LINE_OF(f, other, "| steady_frame | – | 50 | – | 50 | 0 | 50 | 50 | 2 |");
    assert_true(total_row > 0 && touch_row == total_row + 1 && steady_row == touch_row + 1);
    /* A main stage's README compares with its builds-on, the previous main stage, not the side
     * stage before it. */
    assert_int_equal(sh("grep -q '^| phase | 02-static mean | mean |' '%s/root/stages/07-shared/README.md'", d), 0);
    /* The study's numbers: main stages 01..07 only. */
    assert_int_equal(sh("grep -q 'What the study measured' '%s/root/stages/07-shared/README.md'", d), 0);
    assert_int_equal(sh("grep -q 'What the study measured' '%s/root/stages/07a-side/README.md'", d), 1);
    assert_int_equal(sh("grep -q 'What the study measured' '%s/%s'", d, other), 1);
    const char *results_md = "root/results/reference/README.md";
    assert_true(LINE_OF(f, results_md, "| 07a-side | 4520 | – | – |") > 0);
    assert_true(LINE_OF(f, results_md, "| 07b-other | 2310 | – | – |") > 0);
    assert_int_equal(sh("grep -q '^| 07-shared | 15570 | [0-9]* | [0-9]* |$' '%s/%s'", d, results_md), 0);
}

/* A stand-in for Nsight Compute's ncu: runs the program, then prints ncu's CSV layout (quoted
 * fields, ==PROF== lines, two launches of the kernel named by --kernel-name, a value with a
 * thousands separator, and a launch of another kernel, which must not count). Achieved occupancy
 * is 10 x (length of the option's value) + 0.5 and + 1.5 for the two launches of the named
 * kernel, 99.5 for the other. */
static void write_fake_ncu(const fixture *f) {
    FILE *out = NULL;
    char path[128];
    snprintf(path, sizeof path, "%s/fake-ncu", f->dir);
    out = fopen(path, "w");
    assert_non_null(out);
    fputs("#!/usr/bin/env bash\n"
          "kernel=render_kernel\n"
          "while [[ $# -gt 0 && \"$1\" != --csv ]]; do [[ \"$1\" != --kernel-name ]] || kernel=\"$2\"; shift; done; shift\n"
          "\"$@\"\n"
          "value=\"${@: -1}\"\n"
          "echo '==PROF== Connected to process 1'\n"
          "echo '\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Section Name\","
          "\"Metric Name\",\"Metric Unit\",\"Metric Value\"'\n"
          "for id in 0 1; do\n"
          "  echo \"\\\"$id\\\",\\\"1\\\",\\\"stage\\\",\\\"host\\\",\\\"$kernel(a, b)\\\",\\\"1\\\",\\\"7\\\",\\\"Command line profiler "
          "metrics\\\",\\\"launch__registers_per_thread\\\",\\\"register/thread\\\",\\\"1,024\\\"\"\n"
          "  echo \"\\\"$id\\\",\\\"1\\\",\\\"stage\\\",\\\"host\\\",\\\"$kernel(a, b)\\\",\\\"1\\\",\\\"7\\\",\\\"Command line profiler "
          "metrics\\\",\\\"sm__warps_active.avg.pct_of_peak_sustained_active\\\",\\\"%\\\",\\\"${#value}$id.5\\\"\"\n"
          "done\n"
          "echo \"\\\"2\\\",\\\"1\\\",\\\"stage\\\",\\\"host\\\",\\\"count_rays_kernel(w)\\\",\\\"1\\\",\\\"7\\\",\\\"Command line profiler "
          "metrics\\\",\\\"sm__warps_active.avg.pct_of_peak_sustained_active\\\",\\\"%\\\",\\\"99.5\\\"\"\n"
          "echo '==PROF== Disconnected from process 1'\n",
          out);
    fclose(out);
    assert_int_equal(sh("chmod +x '%s'", path), 0);
}

/* tools/sweep.sh with the fake stages into DIR/root/results/reference (what update_readmes.py
 * --root DIR/root reads); ENV may name another STAGES_DIR. */
#define SWEEP(f, env, args) \
    sh("STAGES_DIR='%s' %s tools/sweep.sh --bin-dir '%s/bin' --out '%s/root/results/reference' %s >'%s/out' 2>'%s/err'", \
       (f)->stages, env, (f)->dir, (f)->dir, args, (f)->dir, (f)->dir)

static void test_sweep(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    write_fake_ncu(f);
    make_readme_root(f, "02-static");
    assert_int_equal(sh("printf '# 02\\n<!-- sweep:block:begin -->\\n<!-- sweep:block:end -->\\ntail\\n' "
                        ">>'%s/root/stages/02-static/README.md'", d), 0);
    char env[PATH_MAX];
    snprintf(env, sizeof env, "STAGES_DIR='%s/root/stages' FAKE_KERNEL_SERIES='100 200 600' RUN_NCU='%s/fake-ncu'", d, d);
    /* --stage takes a stage's id (2) as well as its folder name. */
    if (SWEEP(f, env, "--stage 2 --option --block --values 8x8,32x8 --runs 3 --ncu") != 0)
        sh("sed 's/^/# sweep: /' '%s/err'", d);
    const char *csv = "root/results/reference/fake-gpu/sweeps/02-static--block.csv";
    /* Beside it, its provenance (tools/runner/provenance.sh): the stage and its executable's sha256. */
    assert_int_equal(sh("cd '%s/root/results/reference/fake-gpu/sweeps' && test $(wc -l <02-static--block.provenance.tsv) -eq 2 && "
                        "test \"$(sed -n 2p 02-static--block.provenance.tsv | cut -f1,3)\" = "
                        "\"$(printf '02-static\\t%%s' \"$(sha256sum <'%s/bin/02-static' | cut -d' ' -f1)\")\"", d, d), 0);
    assert_int_equal(sh("head -n1 '%s/%s' | grep -qx "
                        "'order,run,stage,host,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit,status,variant'",
                        d, csv), 0);
    /* Interleaved: orders 1, 2, 3 are 8x8, 32x8, 8x8; every run ok, each value 3 times. */
    assert_int_equal(sh("awk -F, '$12 == \"total\" && $1 <= 3 { print $16 }' '%s/%s' | paste -sd' ' - | grep -qx '8x8 32x8 8x8'",
                        d, csv), 0);
    assert_int_equal(sh_num("awk -F, '$12 == \"total\" && $15 == \"ok\" && $10 == $16' '%s/%s' | wc -l", d, csv), 6);
    /* ncu: the mean of the two render_kernel launches, per value (not of the other kernel's). */
    assert_int_equal(sh("grep -qx '0,0,02-static,.*,achieved_occupancy,31.00,percent,ok,8x8' '%s/%s' && "
                        "grep -qx '0,0,02-static,.*,achieved_occupancy,41.00,percent,ok,32x8' '%s/%s'", d, csv, d, csv), 0);
    /* The main track's kernel is render_kernel (the fake ncu names the kernel it was asked for). */
    assert_int_equal(sh("grep -q '\"render_kernel(a, b)\"' '%s/root/results/reference/fake-gpu/sweeps/02-static--block.ncu-8x8.txt'", d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root'", d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check", d), 0);
    /* kernel_events = kernel + W + 0.5: 8x8 gives 108.5 208.5 608.5 (std of 100 200 600 =
     * sqrt(70000));
     * total median = 2 x 2210 + 208; registers 130 - 20, theoretical occupancy 40 + 20. */
    const char *readme = "root/stages/02-static/README.md";
    long row_8x8 = LINE_OF(f, readme, "| 8x8 | 110 | 60% | 31.0% | 208.5 | 308.5 | 264.6 | 108.5 | 608.5 | 4628 | 3 |");
    long row_32x8 = LINE_OF(f, readme, "| 32x8 | 110 | 60% | 41.0% | 232.5 | 332.5 | 264.6 | 132.5 | 632.5 | 4652 | 3 |");
    assert_true(row_8x8 > 0 && row_32x8 == row_8x8 + 1);
    assert_int_equal(sh("grep -qx tail '%s/%s'", d, readme), 0);
    /* New data makes the block stale. */
    assert_int_equal(sh("sed -i 's/,achieved_occupancy,31.00,/,achieved_occupancy,35.00,/' '%s/%s'", d, csv), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check 2>'%s/err'", d, d), 1);
    assert_int_equal(sh("grep -q 'stages/02-static/README.md' '%s/err'", d), 0);
    /* Without ncu the sweep says so, goes on, and the table shows achieved occupancy as unknown. */
    if (sh("command -v ncu >/dev/null") != 0) {
        assert_int_equal(SWEEP(f, "RUN_NCU=", "--stage 02-static --option --block --values 8x8 --runs 1 --ncu"), 0);
        assert_int_equal(sh("grep -q 'ncu not found' '%s/err'", d), 0);
        assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root'", d), 0);
        assert_int_equal(sh("grep -q '^| 8x8 | 110 | 60%% | – |' '%s/%s'", d, readme), 0);
    }
}

/* A path-tracing stage: timed on scenes/pt-benchmark.scene with its manifest's campaign-args
 * first (the sweep's value comes last, so it wins), profiled on one frame of
 * scenes/pt-quick.scene with the one kernel its render.cu defines, and its README's table shows
 * the render loop and the rays per second. */
static void test_sweep_pt_stage(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    write_fake_ncu(f);
    add_fake_pt_stages(f, "p01-base");
    make_fake_stage(f->stages, "p08a-tiles", "p01-base", NULL, "options: --tiles\ncampaign-args: --tiles 4", 0);
    add_fake_pt_stages(f, "p08a-tiles");
    make_readme_root(f, "p08a-tiles");
    assert_int_equal(sh("printf '# p08a\\n<!-- sweep:tiles:begin -->\\n<!-- sweep:tiles:end -->\\ntail\\n' "
                        ">>'%s/root/stages/p08a-tiles/README.md' && "
                        "printf '__global__ void __launch_bounds__(128, 16)\\n    path_kernel(int *x)\\n{\\n}\\n' "
                        ">'%s/root/stages/p08a-tiles/render.cu'", d, d), 0);
    char env[PATH_MAX];
    snprintf(env, sizeof env, "FAKE_PT_KERNEL_SERIES='1000 2000 6000' RUN_NCU='%s/fake-ncu' "
             "STAGES_DIR='%s/root/stages' FAKE_ARGS_LOG='%s/args'", d, d, d);
    /* --stage takes the side stage's id (p8a). */
    int status = SWEEP(f, env, "--stage p8a --option --tiles --values 1,16 --runs 3 --ncu");
    if (status != 0)
        sh("sed 's/^/# sweep: /' '%s/err'", d);
    assert_int_equal(status, 0);
    assert_int_equal(sh_num("grep -c '^p08a-tiles --scene scenes/pt-benchmark.scene --csv --tiles 4 --tiles 1$' '%s/args'", d), 3);
    assert_int_equal(sh_num("grep -c '^p08a-tiles --scene scenes/pt-benchmark.scene --csv --tiles 4 --tiles 16$' '%s/args'", d), 3);
    assert_int_equal(sh("grep -qx 'p08a-tiles --scene scenes/pt-quick.scene --samples 1 --tiles 16' '%s/args'", d), 0);
    const char *csv = "root/results/reference/fake-gpu/sweeps/p08a-tiles--tiles.csv";
    assert_int_equal(sh("grep -q '\"path_kernel(a, b)\"' '%s/root/results/reference/fake-gpu/sweeps/p08a-tiles--tiles.ncu-16.txt'", d), 0);
    assert_int_equal(sh("grep -qx '0,0,p08a-tiles,.*,achieved_occupancy,11.00,percent,ok,1' '%s/%s' && "
                        "grep -qx '0,0,p08a-tiles,.*,achieved_occupancy,21.00,percent,ok,16' '%s/%s'", d, csv, d, csv), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root'", d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check", d), 0);
    /* kernel_events = kernel + tiles - 100: 901 1901 5901 for --tiles 1 (std of 1000 2000 6000 =
     * sqrt(7e6)); rays/s = 1e12 / kernel_events, median 1e12 / 1901; total = 120 + kernel + tiles.
     */
    const char *readme = "root/stages/p08a-tiles/README.md";
    assert_true(LINE_OF(f, readme, "| value | registers | theoretical occupancy | achieved occupancy (ncu) | "
                        "render loop median [µs] | render loop mean [µs] | render loop std [µs] | render loop min [µs] | "
                        "render loop max [µs] | rays/s median [M] | total median [µs] | n |") > 0);
    long row_1 = LINE_OF(f, readme, "| 1 | 64 | 50% | 11.0% | 1901.0 | 2901.0 | 2645.8 | 901.0 | 5901.0 | 526.04 | 2121 | 3 |");
    long row_16 = LINE_OF(f, readme, "| 16 | 64 | 50% | 21.0% | 1916.0 | 2916.0 | 2645.8 | 916.0 | 5916.0 | 521.92 | 2136 | 3 |");
    assert_true(row_1 > 0 && row_16 == row_1 + 1);
    assert_int_equal(sh("grep -q 'render loop (every launch of every frame) timed by CUDA events' '%s/%s'", d, readme), 0);

    /* Another scene than the default: its own file, <stage>--<option>@<scene>.csv (and its ncu
     * output beside it), the plain one untouched; its README block is
     * <!-- sweep:tiles@pt-production:begin -->, which says so until the sweep is there. */
    const char *scene_csv = "root/results/reference/fake-gpu/sweeps/p08a-tiles--tiles@pt-production.csv";
    assert_int_equal(sh("cp '%s/%s' '%s/plain.csv' && printf '## production\n<!-- sweep:tiles@pt-production:begin -->\n"
                        "<!-- sweep:tiles@pt-production:end -->\nend\n' >>'%s/%s'", d, csv, d, d, readme), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check 2>'%s/err'", d, d), 1);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root'", d), 0);
    assert_true(LINE_OF(f, readme, "No sweep of `--tiles` on scenes/pt-production.scene in the course'\\''s data yet. Yours: "
                        "`tools/sweep.sh --stage p08a-tiles --option --tiles --values V1,V2,... --scene "
                        "scenes/pt-production.scene` (into results/local/; the course'\\''s own with `--reference`).") > 0);
    snprintf(env, sizeof env, "FAKE_PT_KERNEL_SERIES='3000' RUN_NCU='%s/fake-ncu' "
             "STAGES_DIR='%s/root/stages' FAKE_ARGS_LOG='%s/args-production'", d, d, d);
    status = SWEEP(f, env, "--stage p8a --option --tiles --values 1,16 --runs 2 --ncu --scene scenes/pt-production.scene");
    if (status != 0)
        sh("sed 's/^/# sweep: /' '%s/err'", d);
    assert_int_equal(status, 0);
    assert_int_equal(sh_num("grep -c '^p08a-tiles --scene scenes/pt-production.scene --csv --tiles 4 --tiles 16$' '%s/args-production'", d), 2);
    assert_int_equal(sh("cmp -s '%s/plain.csv' '%s/%s'", d, d, csv), 0);
    assert_int_equal(sh_num("awk -F, '$12 == \"total\" && $15 == \"ok\"' '%s/%s' | wc -l", d, scene_csv), 4);
    assert_int_equal(sh("grep -qx '0,0,p08a-tiles,.*,achieved_occupancy,21.00,percent,ok,16' '%s/%s'", d, scene_csv), 0);
    assert_int_equal(sh("test -s '%s/root/results/reference/fake-gpu/sweeps/p08a-tiles--tiles@pt-production.ncu-16.txt'", d), 0);
    assert_int_equal(sh("ls '%s/root/results/reference/fake-gpu/sweeps/' | grep -c '^p08a-tiles--tiles.ncu-' | grep -qx 2", d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root'", d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check", d), 0);
    /* The @scene block: its heading names the scene and links its file; kernel_events = 3000 +
     * tiles - 100, rays/s = 1e12 / kernel_events (342.94 M for 2916), total = 120 + 3000 + tiles.
     * The plain block keeps the default scene's rows, above it. */
    long heading = LINE_OF(f, readme, "**Fake GPU** ([raw runs](../../results/reference/fake-gpu/sweeps/"
                           "p08a-tiles--tiles@pt-production.csv)) on scenes/pt-production.scene; render loop "
                           "(every launch of every frame) timed by CUDA events:");
    long scene_1 = LINE_OF(f, readme, "| 1 | 64 | 50% | 11.0% | 2901.0 | 2901.0 | 0.0 | 2901.0 | 2901.0 | 344.71 | 3121 | 2 |");
    long scene_16 = LINE_OF(f, readme, "| 16 | 64 | 50% | 21.0% | 2916.0 | 2916.0 | 0.0 | 2916.0 | 2916.0 | 342.94 | 3136 | 2 |");
    assert_true(heading > 0 && scene_1 > heading && scene_16 == scene_1 + 1);
    assert_int_equal(LINE_OF(f, readme, "| 1 | 64 | 50% | 11.0% | 1901.0 | 2901.0 | 2645.8 | 901.0 | 5901.0 | 526.04 | 2121 | 3 |"), row_1);
    assert_true(row_1 < LINE_OF(f, readme, "## production") && LINE_OF(f, readme, "## production") < heading);
    assert_int_equal(sh("grep -c 'No sweep of' '%s/%s' | grep -qx 0", d, readme), 0);
    /* New data of that scene makes the @scene block stale. */
    assert_int_equal(sh("sed -i 's/,achieved_occupancy,21.00,/,achieved_occupancy,25.00,/' '%s/%s'", d, scene_csv), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check 2>'%s/err'", d, d), 1);
    assert_int_equal(sh("grep -q 'stages/p08a-tiles/README.md' '%s/err'", d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root'", d), 0);
    assert_true(LINE_OF(f, readme, "| 16 | 64 | 50% | 25.0% | 2916.0 | 2916.0 | 0.0 | 2916.0 | 2916.0 | 342.94 | 3136 | 2 |") > 0);
    /* A scene whose name is the default's but is another file, and a stage whose manifest's
     * campaign-args name its scene (the file would be named after a scene it was not timed on):
     * errors. */
    assert_int_equal(sh("cp scenes/pt-production.scene '%s/pt-benchmark.scene'", d), 0);
    char args[PATH_MAX];
    snprintf(args, sizeof args, "--stage p8a --option --tiles --values 1 --runs 1 --scene '%s/pt-benchmark.scene'", d);
    assert_int_equal(SWEEP(f, env, args), 2);
    assert_int_equal(sh("grep -q '^sweep: error: --scene .* is not scenes/pt-benchmark.scene but has its name' '%s/err'", d), 0);
    make_fake_stage(f->stages, "p08b-lights", "p01-base", NULL, "campaign-args: --scene scenes/pt-many-lights.scene", 0);
    assert_int_equal(sh("cp -R '%s/p08b-lights' '%s/root/stages/' && cp tests/fixtures/fake-pt-stage.sh '%s/bin/p08b-lights'",
                        f->stages, d, d), 0);
    assert_int_equal(SWEEP(f, env, "--stage p08b-lights --option --tiles --values 1 --runs 1 --scene scenes/pt-production.scene"), 2);
    assert_int_equal(sh("grep -q \"^sweep: error: --scene 'scenes/pt-production.scene': p08b-lights's manifest's campaign-args name\" '%s/err'", d), 0);
    assert_int_equal(sh("ls '%s/root/results/reference/fake-gpu/sweeps/' | grep -c '^p08b' | grep -qx 0", d), 0);

    /* A render.cu with two kernels: --ncu needs --kernel to know which; then it uses that one. */
    assert_int_equal(sh("printf '__global__ void a_kernel(int *x)\\n{\\n}\\n__global__ void b_kernel(int *x)\\n{\\n}\\n' "
                        ">'%s/root/stages/p08a-tiles/render.cu'", d), 0);
    status = SWEEP(f, env, "--stage p08a-tiles --option --tiles --values 2 --runs 1 --ncu");
    assert_int_equal(status, 2);
    assert_int_equal(sh("test $(wc -l <'%s/err') -eq 1 && grep -q '^sweep: error: --ncu: .* defines 2 kernels (a_kernel b_kernel); name the one to profile with --kernel' '%s/err'", d, d), 0);
    assert_int_equal(SWEEP(f, env, "--stage p08a-tiles --option --tiles --values 2 --runs 1 --ncu --kernel b_kernel"), 0);
    assert_int_equal(sh("grep -q '\"b_kernel(a, b)\"' '%s/root/results/reference/fake-gpu/sweeps/p08a-tiles--tiles.ncu-2.txt'", d), 0);
    /* A manifest that names one of them (profile-kernel, tools/profile.sh's): --ncu measures it. */
    assert_int_equal(sh("printf 'profile-kernel: a_kernel\\n' >>'%s/root/stages/p08a-tiles/manifest'", d), 0);
    assert_int_equal(SWEEP(f, env, "--stage p08a-tiles --option --tiles --values 3 --runs 1 --ncu"), 0);
    assert_int_equal(sh("grep -q '\"a_kernel(a, b)\"' '%s/root/results/reference/fake-gpu/sweeps/p08a-tiles--tiles.ncu-3.txt'", d), 0);
    /* The default scene written another way is the default: the plain file. */
    assert_int_equal(SWEEP(f, env, "--stage p08a-tiles --option --tiles --values 8 --runs 1 --scene ./scenes/pt-benchmark.scene"), 0);
    assert_int_equal(sh_num("awk -F, '$12 == \"total\" && $15 == \"ok\" && $16 == 8' '%s/%s' | wc -l", d, csv), 1);
    assert_int_equal(sh("ls '%s/root/results/reference/fake-gpu/sweeps/' | grep -c '@pt-benchmark' | grep -qx 0", d), 0);
}

static void test_sweep_bad_arguments(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    make_fake_stage(f->stages, "09-missing", "02-static", NULL, NULL, 0); /* a stage folder, not built */
    const char *bad[] = {
        "--option --block --values 8x8",                           /* no --stage */
        "--stage 02-static --values 8x8",                          /* no --option */
        "--stage 02-static --option --block",                      /* no --values */
        "--stage 02-static --option block --values 8x8",           /* not an option */
        "--stage 02-static --option --block --values '8x8,,16x16'", /* empty value */
        "--stage 02-static --option --block --values 8x8,8x8",     /* a value twice */
        "--stage 02-static --option --block --values 8x8 --runs 0",
        "--stage 02-static --option --block --values 8x8 --runs 18446744073709551617", /* 1 in bash */
        "--stage 02-static --option --block --values 8x8 --timeout 18446744073709551617",
        "--stage 02-static --option --block --values 8x8 --runs ''",
        "--stage 02-static --option --block --values 8x8 --gpu 5", /* the fake machine has GPU 0 only */
        "--stage 02-static --option --block --values 8x8 --scene no-such.scene",
        "--stage 09-missing --option --block --values 8x8",        /* not built */
        "--stage 9 --option --block --values 8x8",                 /* its id: not built */
        "--stage 98 --option --block --values 8x8",                /* an id that names no stage folder */
        "--stage p98-missing --option --tiles --values 2",         /* a path-tracing stage without a folder */
        "--stage px8-bad --option --tiles --values 2",             /* not a stage name */
        "--stage 02-static --option --block --values 8x8 --reference", /* --reference and --out */
        "--stage 02-static --option --block --values 8x8 --kernel 'a b'", /* not a kernel name */
        "--stage 02-static --option --block --values 8x8 --bogus",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int status = SWEEP(f, "", bad[i]);
        if (status != 2 || sh_num("wc -l <'%s/err'", f->dir) != 1 || sh("grep -q '^sweep: error: ' '%s/err'", f->dir) != 0) {
            sh("sed 's/^/# sweep: /' '%s/err'", f->dir);
            fail_msg("tools/sweep.sh %s: want exit status 2 and one error line, got %d", bad[i], status);
        }
    }
    /* An unknown stage: the reader's message after "--stage: "; nothing written. */
    assert_int_equal(SWEEP(f, "", "--stage 98 --option --block --values 8x8"), 2);
    assert_int_equal(sh("grep -q \"^sweep: error: --stage: unknown stage '98'\" '%s/err'", f->dir), 0);
    assert_int_equal(sh("test ! -e '%s/root'", f->dir), 0);
    assert_int_equal(SWEEP(f, "", "--help"), 0);
    assert_int_equal(sh("grep -q '^usage: tools/sweep.sh' '%s/out'", f->dir), 0);
}

static void test_plots_every_stage(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    if (sh("python3 -c 'import matplotlib' 2>/dev/null") != 0) {
        print_message("skipped: matplotlib is not installed\n");
        skip();
    }
    const char *dir = "results/fake-gpu";
    /* One stage only. */
    RUN_OK(f, "", "--runs 2 --no-verify --stages 1");
    assert_int_equal(sh("grep -q 'plots failed' '%s/err'", f->dir), 1);
    assert_int_equal(sh("file '%s/%s/phases.png' | grep -q 'PNG image' && file '%s/%s/kernel.png' | grep -q 'PNG image'",
                        f->dir, dir, f->dir, dir), 0);
    /* Every GPU folder side by side: results/gpus.png. */
    assert_int_equal(sh("grep -q 'comparison of GPUs failed' '%s/err'", f->dir), 1);
    assert_int_equal(sh("file '%s/results/gpus.png' | grep -q 'PNG image'", f->dir), 0);
    /* Main and side stages, one of them without kernel metrics, one without a total. */
    add_fake_stages(f, "07a-side 03-more");
    assert_int_equal(sh("rm -rf '%s/results'", f->dir), 0);
    RUN_OK(f, "", "--runs 2 --no-verify");
    assert_int_equal(sh("cd '%s/%s' && rm -f *.png && test ! -e runs.csv && zcat runs.csv.gz | "
                        "awk -F, '!($3 == \"02-static\" && $12 ~ /^kernel/) && !($3 == \"03-more\" && $12 == \"total\")' | "
                        "gzip -9 -n >runs.new && mv runs.new runs.csv.gz",
                        f->dir, dir), 0);
    assert_int_equal(sh("python3 tools/plot.py '%s/%s' 2>'%s/err'", f->dir, dir, f->dir), 0);
    assert_int_equal(sh("test ! -s '%s/err'", f->dir), 0);
    /* A plot that cannot be written whole (the file-size limit): one line, status 1, the earlier
     * picture kept, no partial file. */
    assert_int_equal(sh("cd '%s/%s' && cp phases.png before.png && (ulimit -f 4; python3 '%s/tools/plot.py' . 2>'%s/err')",
                        f->dir, dir, repo, f->dir), 1);
    assert_int_equal(sh("grep -q '^plot.py: error: cannot write ./phases.png: File too large$' '%s/err' && "
                        "test $(wc -l <'%s/err') -eq 1", f->dir, f->dir), 0);
    assert_int_equal(sh("cd '%s/%s' && cmp -s phases.png before.png && ! ls | grep -q partial", f->dir, dir), 0);
    assert_int_equal(sh("file '%s/%s/phases.png' | grep -q 'PNG image' && file '%s/%s/kernel.png' | grep -q 'PNG image'",
                        f->dir, dir, f->dir, dir), 0);
}

/* --stages pN, pNx, pN-M select path-tracing stages only; N, Nx, N-M main-track stages only. */
static void test_pt_stage_selection(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    add_fake_pt_stages(f, "p01-base p02-nomalloc p03-regs p04-soa p05-soa p05a-split p07-const");
    const selection cases[] = {
        {"p1-3", "p01-base p02-nomalloc p03-regs"},
        {"1-2", "01-base 02-static"},                                   /* no p stage */
        {"p4-7", "p04-soa p05-soa p05a-split p07-const"},               /* no p06: passed over */
        {"p5", "p05-soa"},                                              /* not its side stage */
        {"p5a", "p05a-split"},
        {"p05,p7", "p05-soa p07-const"},
        {"p1-7", "p01-base p02-nomalloc p03-regs p04-soa p05-soa p05a-split p07-const"},
        {"2,p2", "02-static p02-nomalloc"},
        {"", "01-base 02-static p01-base p02-nomalloc p03-regs p04-soa p05-soa p05a-split p07-const"},
    };
    assert_selections(f, cases, sizeof cases / sizeof *cases);
    /* A range whose first or last number is no stage of its track's: refused with one line naming
     * it (p03 is no main stage 3; there is no p06), nothing written. */
    const struct {
        const char *spec, *message;
    } bad[] = {
        {"1-3", "--stages item '1-3': no stage is numbered 3 in "},
        {"1-18", "--stages item '1-18': no stage is numbered 18 in "},
        {"p1-6", "--stages item 'p1-6': no stage is numbered p6 in "},
        {"p6-7", "--stages item 'p6-7': no stage is numbered p6 in "},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char args[64];
        snprintf(args, sizeof args, "--runs 1 --stages '%s'", bad[i].spec);
        assert_int_equal(sh("rm -rf '%s/results'", f->dir), 0);
        int status = RUN(f, "", args);
        if (status != 2 || sh("test $(wc -l <'%s/err') -eq 1 && grep -qF -- \"run.sh: error: %s\" '%s/err'", f->dir,
                              bad[i].message, f->dir) != 0) {
            sh("sed 's/^/# run.sh: /' '%s/err'", f->dir);
            fail_msg("run.sh %s: status %d, want 2 and one line '%s'", args, status, bad[i].message);
        }
        assert_int_equal(sh("test ! -e '%s/results'", f->dir), 0);
    }
    /* Both tracks interleaved: orders 1 to 4 are run 1 of each selected stage. */
    assert_int_equal(sh("rm -rf '%s/results'", f->dir), 0);
    RUN_OK(f, "", "--runs 2 --no-verify --stages 1-2,p1-2");
    assert_int_equal(sh(ROWS "awk -F, '$12 == \"total\" && $1 <= 4 { print $2 $3 }' | LC_ALL=C sort | paste -sd' ' - "
                        "| grep -qx '101-base 102-static 1p01-base 1p02-nomalloc'", f->dir), 0);
}

/* The kernel benchmarks build/pNN-name-bench are not stages: never listed, verified or timed,
 * even by an item (p1) whose number they share. */
static void test_bench_executables_never_timed(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    add_fake_pt_stages(f, "p01-base p02-nomalloc");
    /* Executables that would print a valid CSV under their own name if they were run. */
    assert_int_equal(sh("cp tests/fixtures/fake-pt-stage.sh '%s/bin/p01-base-bench' && "
                        "cp tests/fixtures/fake-pt-stage.sh '%s/bin/p02-nomalloc-bench'", d, d), 0);
    /* The reader lists the stage folders only. */
    assert_int_equal(sh("STAGES_DIR='%s' tools/stages list | paste -sd' ' - | "
                        "grep -qx '01-base 02-static p01-base p02-nomalloc'", f->stages), 0);
    const char *specs[] = {"", "--stages p1", "--stages p1-2,1"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        char args[128];
        snprintf(args, sizeof args, "--runs 1 %s", specs[i]);
        assert_int_equal(sh("rm -rf '%s/results'", d), 0);
        RUN_OK(f, "", args);
        assert_int_equal(sh_num(ROWS "grep -c 'bench'", d), 0);
        assert_int_equal(sh_num("grep -c 'bench' '%s/results/fake-gpu/verify.txt'", d), 0);
        assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"total\" && $3 == \"p01-base\"' | wc -l", d), 1);
    }
}

/* Path-tracing stages are verified on scenes/pt-quick.scene against build/pt-reference's image
 * (made once), with no differing pixel allowed; main stages as before. The fake stages write
 * 'FAKE IMAGE' (main, as the fake CPU reference) and 'FAKE PT IMAGE' (p, as the fake
 * pt-reference), so a p stage compared with the CPU reference would fail. */
static void test_pt_stages_verified_against_pt_reference(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    add_fake_pt_stages(f, "p01-base p02-nomalloc");
    char env[PATH_MAX];
    snprintf(env, sizeof env, "FAKE_ARGS_LOG='%s/args'", d);
    RUN_OK(f, env, "--runs 3");
    const char *verify = "results/fake-gpu/verify.txt";
    assert_int_equal(sh("grep -q '^p01-base: ok: differing pixels: 0' '%s/%s' && grep -q '^p02-nomalloc: ok' '%s/%s' && "
                        "grep -q '^01-base: ok' '%s/%s'", d, verify, d, verify, d, verify), 0);
    assert_int_equal(sh("grep -q 'scenes/quick.scene scenes/pt-quick.scene' '%s/%s'", d, verify), 0);
    /* One reference image for the track, of scenes/pt-quick.scene: the fake stages' manifests
     * name the path estimator. */
    assert_int_equal(sh_num("grep -c '^pt-reference ' '%s/args'", d), 1);
    assert_int_equal(sh("grep -q '^pt-reference --scene scenes/pt-quick.scene --estimator path --output ' '%s/args'", d), 0);
    /* Each p stage rendered scenes/pt-quick.scene, compared with pt-reference's image at 0%%;
     * a main stage with the CPU reference's at 0%% too (a manifest without max-differing-percent:
     * the default, 0, for both tracks). */
    assert_int_equal(sh("grep -q '^p02-nomalloc --scene scenes/pt-quick.scene --output ' '%s/args'", d), 0);
    assert_int_equal(sh("grep -qE '^compare-images [^ ]*/pt-reference-path.png [^ ]*/p02-nomalloc.png --max-differing-percent 0$' '%s/args'", d), 0);
    assert_int_equal(sh("grep -qE '^compare-images [^ ]*/reference.png [^ ]*/01-base.png --max-differing-percent 0$' '%s/args'", d), 0);
    /* Timed on the default --pt-scene, three runs each, with its metrics. */
    assert_int_equal(sh_num("grep -c '^p01-base --scene scenes/pt-benchmark.scene --csv$' '%s/args'", d), 3);
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"p02-nomalloc\" && $12 == \"samples_per_second\" && $15 == \"ok\"' | wc -l", d), 3);
    /* The summary's path-tracing table: rays/s median 1e12 / 9900 (kernel_events 7900, 9900,
     * 11900), samples/s 2097152e6 / 9900; kernels and the copy and accumulation parts of run 2. */
    assert_int_equal(sh("grep -qF '| p01-base | – | 101.01 | 211.83 | 5000 | 2500 | 2500 | 1.00x | – | A |' '%s/results/fake-gpu/summary.md'", d), 0);
    /* A wrong picture: not timed; the other stage is. */
    assert_int_equal(sh("rm -rf '%s/results'", d), 0);
    assert_int_equal(RUN(f, "FAKE_BAD_IMAGE=p02-nomalloc", "--runs 1 --stages p1-2"), 1);
    assert_int_equal(sh("grep -q 'p02-nomalloc FAILED verification' '%s/err' && grep -q '^p02-nomalloc: FAILED' '%s/%s'",
                        d, d, verify), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"p02-nomalloc\"' | wc -l", d), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"total\" && $3 == \"p01-base\"' | wc -l", d), 1);
    /* Only the path-tracing track selected: the CPU reference is not needed. */
    assert_int_equal(sh("rm -rf '%s/results' '%s/bin/cpu-reference'", d, d), 0);
    RUN_OK(f, "", "--runs 1 --stages p1");
    /* A stage's manifest may state a bound, as for the main track. */
    assert_int_equal(sh("rm -rf '%s/results'", d), 0);
    make_fake_stage(f->stages, "p02-nomalloc", "p01-base", NULL, "max-differing-percent: 100", 0);
    RUN_OK(f, "FAKE_BAD_IMAGE=p02-nomalloc", "--runs 1 --stages p1-2");
    assert_int_equal(sh("grep -q '^p02-nomalloc: ok: differing pixels: 1 of 1' '%s/%s'", d, verify), 0);
    /* Without a pt-reference the path-tracing stages cannot be verified: one line, status 2. */
    assert_int_equal(sh("rm -rf '%s/results' '%s/bin/pt-reference'", d, d), 0);
    assert_int_equal(RUN(f, "", "--runs 1 --stages p1"), 2);
    assert_int_equal(sh("grep -q 'build/pt-reference --estimator path failed' '%s/err'", d), 0);
}

/* Writes an executable script into the test's bin folder. */
static void write_script(const fixture *f, const char *name, const char *text) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/bin/%s", f->dir, name);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    assert_true(fputs(text, file) >= 0);
    assert_int_equal(fclose(file), 0);
    assert_int_equal(sh("chmod +x '%s'", path), 0);
}

/* A fake build/pt-reference that knows the estimators: its image is 'FAKE PT IMAGE' with the
 * path estimator (as tests/fixtures/fake-pt-reference.sh writes), 'FAKE PT IMAGE (NAME)' with
 * --estimator NAME. */
static void add_estimator_pt_reference(const fixture *f) {
    write_script(f, "pt-reference",
                 "#!/usr/bin/env bash\n"
                 "[[ -z \"${FAKE_ARGS_LOG:-}\" ]] || echo \"pt-reference $*\" >>\"$FAKE_ARGS_LOG\"\n"
                 "image='FAKE PT IMAGE' output=''\n"
                 "while [[ $# -gt 0 ]]; do\n"
                 "    case \"$1\" in\n"
                 "        --estimator) [[ \"$2\" == path ]] || image=\"FAKE PT IMAGE ($2)\"; shift 2 ;;\n"
                 "        --output) output=\"$2\"; shift 2 ;;\n"
                 "        *) shift ;;\n"
                 "    esac\n"
                 "done\n"
                 "echo \"$image\" >\"$output\"\n");
}

/* A fake path-tracing stage whose manifest names ESTIMATOR and whose image is the fake
 * reference's for IMAGE_OF: tests/fixtures/fake-pt-stage.sh under the stage's name (in impl/, so
 * that it reports that name) does the rest. Its --help says "estimator: path" whatever the
 * manifest says: run.sh takes the estimator from the manifest, not from --help. */
static void add_fake_estimator_stage(const fixture *f, const char *name, const char *estimator,
                                     const char *image_of) {
    char extra[64], parent[256];
    snprintf(extra, sizeof extra, "estimator: %s", estimator);
    default_builds_on(f->stages, name, parent, sizeof parent);
    make_fake_stage(f->stages, name, parent, NULL, extra, 0);
    char image[64], text[2048];
    if (strcmp(image_of, "path") == 0)
        snprintf(image, sizeof image, "FAKE PT IMAGE");
    else
        snprintf(image, sizeof image, "FAKE PT IMAGE (%s)", image_of);
    assert_int_equal(sh("mkdir -p '%s/impl' && cp tests/fixtures/fake-pt-stage.sh '%s/impl/%s'",
                        f->dir, f->dir, name), 0);
    snprintf(text, sizeof text,
             "#!/usr/bin/env bash\n"
             "if [[ \"${1:-}\" == --help ]]; then echo '%s: a stand-in'; echo 'estimator: path'; exit 0; fi\n"
             "'%s/impl/%s' \"$@\" || exit\n"
             "while [[ $# -gt 1 ]]; do\n"
             "    [[ \"$1\" != --output ]] || echo '%s' >\"$2\"\n"
             "    shift\n"
             "done\n",
             name, f->dir, name, image);
    write_script(f, name, text);
}

/* A stage of another estimator (stages p08b-p08d, SPEC-PATH-TRACING.md section 6) is
 * verified against build/pt-reference --estimator NAME, the one its manifest names: one reference
 * image per estimator, made once; a nee stage that renders the path estimator's picture fails. */
static void test_pt_stage_verified_against_its_estimator(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    add_fake_pt_stages(f, "p01-base");
    add_estimator_pt_reference(f);
    add_fake_estimator_stage(f, "p08b-next-event", "nee", "nee");
    add_fake_estimator_stage(f, "p08c-light-pool", "light-pool", "light-pool");
    add_fake_estimator_stage(f, "p08d-compact-light-samples", "light-pool", "light-pool");
    char env[PATH_MAX];
    snprintf(env, sizeof env, "FAKE_ARGS_LOG='%s/args'", d);
    RUN_OK(f, env, "--runs 1 --stages p1,p8b,p8c,p8d");
    const char *verify = "results/fake-gpu/verify.txt";
    assert_int_equal(sh("grep -q '^p08b-next-event: ok: differing pixels: 0.* (estimator nee)$' '%s/%s' && "
                        "grep -q '^p08c-light-pool: ok: .* (estimator light-pool)$' '%s/%s' && "
                        "grep -q '^p08d-compact-light-samples: ok: .* (estimator light-pool)$' '%s/%s' && "
                        "grep -q '^p01-base: ok: .* (estimator path)$' '%s/%s'",
                        d, verify, d, verify, d, verify, d, verify), 0);
    /* The nee stage: its manifest says nee (its --help says path), so its image is compared with
     * pt-reference --estimator nee's. */
    assert_int_equal(sh("grep -qx 'estimator: nee' '%s/p08b-next-event/manifest' && "
                        "'%s/bin/p08b-next-event' --help | grep -qx 'estimator: path'", f->stages, d), 0);
    assert_int_equal(sh("grep -qE '^compare-images [^ ]*/pt-reference-nee.png [^ ]*/p08b-next-event.png ' '%s/args'", d), 0);
    /* One reference per estimator, each made once. */
    assert_int_equal(sh_num("grep -c '^pt-reference ' '%s/args'", d), 3);
    const char *estimators[] = {"path", "nee", "light-pool"};
    for (size_t k = 0; k < 3; k++)
        assert_int_equal(sh("grep -q '^pt-reference --scene scenes/pt-quick.scene --estimator %s --output [^ ]*/pt-reference-%s.png$' '%s/args'",
                            estimators[k], estimators[k], d), 0);
    assert_int_equal(sh("grep -qE '^compare-images [^ ]*/pt-reference-nee.png [^ ]*/p08b-next-event.png --max-differing-percent 0$' '%s/args' && "
                        "grep -qE '^compare-images [^ ]*/pt-reference-light-pool.png [^ ]*/p08d-compact-light-samples.png --max-differing-percent 0$' '%s/args' && "
                        "grep -qE '^compare-images [^ ]*/pt-reference-path.png [^ ]*/p01-base.png --max-differing-percent 0$' '%s/args'",
                        d, d, d), 0);
    /* Timed like any stage, with its metrics. */
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"p08b-next-event\" && $12 == \"rays_per_second\" && $15 == \"ok\"' | wc -l", d), 1);
    /* A nee stage with the path estimator's picture is wrong: not timed. */
    assert_int_equal(sh("rm -rf '%s/results'", d), 0);
    add_fake_estimator_stage(f, "p08b-next-event", "nee", "path");
    assert_int_equal(RUN(f, "", "--runs 1 --stages p1,p8b"), 1);
    assert_int_equal(sh("grep -q 'p08b-next-event FAILED verification' '%s/err' && grep -q '^p08b-next-event: FAILED' '%s/%s' && "
                        "grep -q '^p01-base: ok' '%s/%s'", d, d, verify, d, verify), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"p08b-next-event\"' | wc -l", d), 0);
}

/* Ratios only within one campaign (tools/runner/summarize.py's campaign_list): 01-base's and
 * 02-static's runs interleaved on one GPU are campaign A; 03-third's, timed after them on another
 * GPU, campaign B. summary.md, docs/results.md's tables, the stage READMEs and README.md's index
 * give 02 against 01 (total 4000 / 2000 µs, kernel 400 / 200: 2.00x) and no ratio of 03 against
 * 02 ("–†" in the tables, no change in its README, "–†" in the index), each naming the campaigns. */
static void test_ratios_only_within_a_campaign(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    make_readme_root(f, "01-base 02-static 03-third");
    const char *run = "8192,8192,19,16x16,pageable";
    /* order:stage:GPU:total: 01 and 02 alternate on GPU-fake-a, 03 runs afterwards on GPU-fake-b. */
    assert_int_equal(sh("mkdir -p '%s/root/results/reference/fake-gpu' '%s/root/docs' && "
                        "{ echo order,run,stage,host,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit,status; "
                        "for row in 1:01-base:a:4000 2:02-static:a:2000 3:01-base:a:4000 4:02-static:a:2000 "
                        "5:03-third:b:1000 6:03-third:b:1000; do set -- $(echo $row | tr : ' '); "
                        "for m in total:$4 kernel:$(($4 / 10)) kernel_events:$(($4 / 10)); do "
                        "echo \"$1,$1,$2,host1,Fake GPU,GPU-fake-$3,%s,${m%%%%:*},${m#*:},us,ok\"; done; done; } "
                        "| gzip -9 -n >'%s/root/results/reference/fake-gpu/runs.csv.gz' && "
                        "printf '# Course\\n\\n<!-- index:begin -->\\n<!-- index:end -->\\n' >'%s/root/README.md' && "
                        "printf '# Results\\n\\n<!-- results:begin -->\\n<!-- results:end -->\\n' >'%s/root/docs/results.md'",
                        d, d, run, d, d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' 2>'%s/err'", d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check", d), 0);
    const char *md = "root/results/reference/fake-gpu/summary.md";
    const char *lines[][2] = {
        {md, "| 02-static | 2000 | 2000 | 2.00x | 2.00x | 200 | 200 | 2.00x | 2.00x | A |"},
        {md, "| 03-third | 1000 | 1000 | –† | –† | 100 | 100 | –† | –† | B |"},
        {md, "- **A**: 1 GPU (…GPU-fake-a); 01-base and 02-static"},
        {md, "- **B**: 1 GPU (…GPU-fake-b); 03-third"},
        {"root/docs/results.md", "| 03-third | 1000 | 1000 | –† | –† | 100 | 100 | –† | –† | B |"},
        {"root/stages/02-static/README.md", "| Total time | 4000 | 2000 | -50.0% | 2000 | 0 | 2000 | 2000 | 2 |"},
        {"root/stages/03-third/README.md", "| Total time | 2000 | 1000 | – | 1000 | 0 | 1000 | 1000 | 2 |"},
        {"root/stages/03-third/README.md", "**Fake GPU** ([all data](../../results/reference/fake-gpu/summary.md)), campaign B "
                                           "of its runs (all data lists the campaigns); 02-static was timed in campaign A, "
                                           "another campaign, so no change is given (compare the two means with that in mind), µs:"},
        {"root/README.md", "| [02-static](stages/02-static/README.md) | the fake 02-static | total 2.00x, kernel 2.00x | A |"},
        {"root/README.md", "| [03-third](stages/03-third/README.md) | the fake 03-third | –† | B (02: A) |"},
    };
    for (size_t k = 0; k < sizeof lines / sizeof *lines; k++) {
        if (LINE_OF(f, lines[k][0], lines[k][1]) <= 0) {
            sh("sed 's|^|# %s: |' '%s/%s'", lines[k][0], d, lines[k][0]);
            fail_msg("%s lacks the line: %s", lines[k][0], lines[k][1]);
        }
    }
    /* The same runs all on one GPU, 03's among the others': one campaign, every ratio given. */
    assert_int_equal(sh("cd '%s/root/results/reference/fake-gpu' && zcat runs.csv.gz | "
                        "sed 's/GPU-fake-b/GPU-fake-a/; s/^5,5,03-third/2,2,03-third/' | gzip -9 -n >new.gz && mv new.gz runs.csv.gz", d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root'", d), 0);
    assert_true(LINE_OF(f, md, "| 03-third | 1000 | 1000 | 4.00x | 2.00x | 100 | 100 | 4.00x | 2.00x | A |") > 0);
    assert_true(LINE_OF(f, "root/README.md", "| [03-third](stages/03-third/README.md) | the fake 03-third | "
                                             "total 2.00x, kernel 2.00x | A |") > 0);
    /* A stage whose runs each took two GPUs names the first in its rows (GPU-fake-a), 01-base's
     * runs between them took one GPU each, a and b in turn: one campaign of both GPUs, 02 against
     * 01 given. (By sets of GPUs alone, 02's {a} and 01's {a, b} would be two campaigns.) */
    assert_int_equal(sh("cd '%s/root/results/reference/fake-gpu' && "
                        "{ echo order,run,stage,host,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit,status,gpus; "
                        "for row in 1:01-base:a:4000:1 2:02-static:a:2000:2 3:01-base:b:4000:1 4:02-static:a:2000:2; do "
                        "set -- $(echo $row | tr : ' '); for m in total:$4 kernel:$(($4 / 10)) kernel_events:$(($4 / 10)); do "
                        "echo \"$1,$1,$2,host1,Fake GPU,GPU-fake-$3,%s,${m%%%%:*},${m#*:},us,ok,$5\"; done; done; } "
                        "| gzip -9 -n >runs.csv.gz", d, run), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root'", d), 0);
    assert_true(LINE_OF(f, md, "- **A**: 2 GPUs (…GPU-fake-a, …GPU-fake-b); 01-base and 02-static") > 0);
    assert_true(LINE_OF(f, md, "| 02-static | 2000 | 2000 | 2.00x | 2.00x | 200 | 200 | 2.00x | 2.00x | A |") > 0);
    assert_int_equal(sh("grep -q '^- \\*\\*B\\*\\*' '%s/%s'", d, md), 1);
}

/* A multi-GPU campaign, results/reference/<gpu>/multi-gpu/: the stage whose manifest has
 * campaign-gpus takes its README table and its index row from there (its steady frame and kernel
 * against the stage it builds on, timed one GPU a run in the same campaign), naming the node. */
static void test_multi_gpu_campaign_tables(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    make_readme_root(f, "01-base 02-static");
    const char *run = "8192,8192,19,16x16,pageable";
    assert_int_equal(sh("cd '%s/root' && printf 'campaign-gpus: all\\n' >>stages/02-static/manifest && "
                        "printf '# Course\\n\\n<!-- index:begin -->\\n<!-- index:end -->\\n' >README.md && "
                        "mkdir -p results/reference/fake-gpu/multi-gpu && "
                        "{ echo order,run,stage,host,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit,status,gpus; "
                        "for row in 1:01-base:a:4000:1 2:02-static:a:2000:2 3:01-base:b:4000:1 4:02-static:a:2000:2; do "
                        "set -- $(echo $row | tr : ' '); for m in total:$(($4 * 5)) kernel:$(($4 / 10)) kernel_events:$(($4 / 10)) steady_frame:$4; do "
                        "echo \"$1,$1,$2,host1,Fake GPU,GPU-fake-$3,%s,${m%%%%:*},${m#*:},us,ok,$5\"; done; done; } "
                        "| gzip -9 -n >results/reference/fake-gpu/multi-gpu/runs.csv.gz", d, run), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' 2>'%s/err'", d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check", d), 0);
    assert_true(LINE_OF(f, "root/stages/02-static/README.md",
                        "**Fake GPU, a node of 2** ([all data](../../results/reference/fake-gpu/multi-gpu/summary.md)), "
                        "campaign A of its runs (all data lists the campaigns), µs:") > 0);
    assert_true(LINE_OF(f, "root/stages/02-static/README.md", "| steady_frame | 4000 | 2000 | -50.0% | 2000 | 0 | 2000 | 2000 | 2 |") > 0);
    assert_int_equal(sh("grep -qF '| [02-static](stages/02-static/README.md) | the fake 02-static | "
                        "steady frame 2.00x, kernel 2.00x (Fake GPU, a node of 2; 19 spheres) | multi-gpu A |' '%s/root/README.md'", d), 0);
    assert_int_equal(sh("grep -qF '**multi-gpu A**' '%s/root/README.md'", d), 0);
    /* 01-base, one GPU a run, is no stage of several GPUs: not from this campaign. */
    assert_int_equal(sh("grep -qF '| [01-base](stages/01-base/README.md) | the fake 01-base | not measured yet |' '%s/root/README.md'", d), 0);
}

/* tools/runner/summarize.py on a campaign with path-tracing rows (tests/fixtures/pt-runs.csv, as a
 * live
 * runs.csv, and gzipped as a committed runs.csv.gz for update_readmes.py: 01-base
 * and p01, p02, p05, p05a, p06 over three runs, rays/s medians 100, 200, 400, 300 and 800
 * million): the track's tables come after the main chain's, whose rows do not change. */
static void test_pt_summary_tables(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    assert_int_equal(sh("mkdir -p '%s/results/fake-gpu' && cp tests/fixtures/pt-runs.csv '%s/results/fake-gpu/runs.csv'", d, d), 0);
    assert_int_equal(sh("python3 tools/runner/summarize.py '%s/results/fake-gpu'", d), 0);
    const char *md = "results/fake-gpu/summary.md";
    /* Speed-up by rays/s median: p02 over p01; p05 over p02 (the chain); p05a over its parent
     * p05; p06 over p05 (the chain, not the side stage p05a); p06 reports no frame_copy. */
    long p01 = LINE_OF(f, md, "| p01-base | – | 100.00 | 10.00 | 5000000 | 2500000 | 2500000 | 1.00x | – | A |");
    long p02 = LINE_OF(f, md, "| p02-no-device-malloc | p01-base | 200.00 | 20.00 | 2500000 | 1250000 | 1250000 | 2.00x | 2.00x | A |");
    long p05 = LINE_OF(f, md, "| p05-soa-samples | p02-no-device-malloc | 400.00 | 40.00 | 1250000 | 625000 | 625000 | 4.00x | 2.00x | A |");
    long p05a = LINE_OF(f, md, "| p05a-split-channels | p05-soa-samples | 300.00 | 30.00 | 1666666 | 833333 | 833333 | 3.00x | 0.75x | A |");
    long p06 = LINE_OF(f, md, "| p06-device-accumulation | p05-soa-samples | 800.00 | 80.00 | 1250000 | – | – | 8.00x | 2.00x | A |");
    assert_true(p01 > 0 && p02 == p01 + 1 && p05 == p02 + 1 && p05a == p05 + 1 && p06 == p05a + 1);
    assert_int_equal(sh("grep -qF '| stage | compared with | rays/s median [M] | samples/s median [M] | kernels median [µs] | "
                        "frame_copy median [µs] | host_accumulate median [µs] | vs p01 | vs compared with | campaign |' '%s/%s'", d, md), 0);
    /* Times: total 10000120, 9091029, 11111231 µs -> mean 10067460, median 10000120, min, max;
     * kernel phase 120 less; kernel_events 100 less than the phase. */
    assert_true(LINE_OF(f, md, "| p01-base | 10067460 | 10000120 | 1011783 | 9091029 | 11111231 | 10067340 | 10000000 | "
                               "1011783 | 9090909 | 11111111 | 10067240 | 9999900 | 1011783 | 9090809 | 11111011 | 3 |") > 0);
    /* After the main chain's tables, which hold the main stage only, unchanged. */
    long main_speedup = LINE_OF(f, md, "| 01-base | 6000 | 6000 | 1.00x | 1.00x | 5000 | 5000 | 1.00x | 1.00x | A |");
    assert_true(LINE_OF(f, md, "| 01-base | 1000 | – | – | 5000 | – | – | – | 6000 |") > 0);
    assert_true(main_speedup > 0 && p01 > main_speedup);
    assert_int_equal(sh("grep -q '^| p01-base | 10 | 20 |' '%s/%s'", d, md), 1);
    assert_int_equal(sh("grep -q '^| p01-base | 10067460 | 10000120 | [0-9.]*x |' '%s/%s'", d, md), 1);
    assert_int_equal(sh("grep -qx 'p01-base,rays_per_second,rays/s,3,100000000,100000000,10000000,90000000,110000000' "
                        "'%s/results/fake-gpu/summary.csv'", d), 0);
    /* The failed run of p02 is listed, not counted. */
    assert_int_equal(sh("grep -q '^- p02-no-device-malloc run 4: exit status 1' '%s/%s'", d, md), 0);

    /* The fakes' manifests (add_manifests): p02 builds on p01, p05 on p02 (p03 and p04 are not
     * there), p05a on p05, p06 on p05. */
    add_manifests(f->stages, "p01-base p02-no-device-malloc p05-soa-samples p05a-split-channels p06-device-accumulation");
    /* The stage model, from the manifests in STAGES_DIR: the main chain, its side stages, then the
     * path-tracing track; a stage without a manifest there counts as the main chain's, last. */
    assert_int_equal(sh("cd tools/runner && python3 -c \"import summarize as s; s.STAGES_DIR = '%s'; "
                        "r = s.ordered_stages({'zz-old', 'p05a-split-channels', '99-gone', 'p01-base', '01-base', 'p05-soa-samples'}); "
                        "assert r == ['01-base', '99-gone', 'zz-old', 'p01-base', 'p05-soa-samples', 'p05a-split-channels'], r\"",
                        f->stages), 0);
    /* update_readmes.py: a path-tracing stage's README block (phases against the stage it is
     * compared with, then rays/s and samples/s medians); one without markers is left alone. It
     * reads root/stages' manifests (make_readme_root copies the fakes'). */
    make_readme_root(f, "01-base p02-no-device-malloc p05a-split-channels");
    assert_int_equal(sh("grep -qx 'builds-on: p02-no-device-malloc' '%s/root/stages/p05-soa-samples/manifest' && "
                        "grep -qx 'builds-on: p05-soa-samples' '%s/root/stages/p05a-split-channels/manifest' && "
                        "grep -qx 'builds-on: p05-soa-samples' '%s/root/stages/p06-device-accumulation/manifest'", d, d, d), 0);
    assert_int_equal(sh("mkdir -p '%s/root/results/reference/fake-gpu' && "
                        "gzip -9 -n -c tests/fixtures/pt-runs.csv >'%s/root/results/reference/fake-gpu/runs.csv.gz' && "
                        "echo '# p06 without markers' >'%s/root/stages/p06-device-accumulation/README.md'", d, d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' 2>'%s/err'", d, d), 0);
    assert_int_equal(sh("test ! -s '%s/err'", d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check", d), 0);
    const char *p05a_readme = "root/stages/p05a-split-channels/README.md";
    assert_int_equal(sh("grep -q '^| phase | p05-soa-samples mean | mean |' '%s/%s'", d, p05a_readme), 0);
    assert_true(LINE_OF(f, p05a_readme, "Throughput (medians): 400.00 → 300.00 million rays per second (0.75x the rays/s "
                                        "of p05-soa-samples), 40.00 → 30.00 million samples per second.") > 0);
    assert_true(LINE_OF(f, p05a_readme, "| frame_copy | 629208 | 838944 | +33.3% | 833333 | 84315 | 757575 | 925925 | 3 |") > 0);
    assert_int_equal(sh("grep -q '^| phase | p01-base mean | mean |' '%s/root/stages/p02-no-device-malloc/README.md'", d), 0);
    assert_int_equal(sh("grep -q 'What the study measured' '%s/root/stages/p02-no-device-malloc/README.md'", d), 1);
    assert_int_equal(sh("grep -qx '# p06 without markers' '%s/root/stages/p06-device-accumulation/README.md' && "
                        "test $(wc -l <'%s/root/stages/p06-device-accumulation/README.md') -eq 1", d, d), 0);
    /* The main stage's README knows nothing of the track; the top README has its tables. */
    assert_int_equal(sh("grep -q 'p0' '%s/root/stages/01-base/README.md'", d), 1);
    assert_true(LINE_OF(f, "root/README.md", "| p06-device-accumulation | p05-soa-samples | 800.00 | 80.00 | 1250000 | – | – | 8.00x | 2.00x | A |") > 0);

    /* plot.py: the track's own picture, and none of it in the main track's. */
    if (sh("python3 -c 'import matplotlib' 2>/dev/null") != 0) {
        print_message("skipped (plots): matplotlib is not installed\n");
        return;
    }
    assert_int_equal(sh("python3 tools/plot.py '%s/results/fake-gpu' 2>'%s/err' && test ! -s '%s/err'", d, d, d), 0);
    assert_int_equal(sh("file '%s/results/fake-gpu/pathtrace.png' | grep -q 'PNG image' && "
                        "file '%s/results/fake-gpu/phases.png' | grep -q 'PNG image'", d, d), 0);
    assert_int_equal(sh("python3 tools/plot.py --compare '%s/results' 2>'%s/err' && test ! -s '%s/err'", d, d, d), 0);
    assert_int_equal(sh("file '%s/results/gpus-pathtrace.png' | grep -q 'PNG image' && "
                        "file '%s/results/gpus.png' | grep -q 'PNG image'", d, d), 0);
    /* Only main stages: no path-tracing picture. */
    assert_int_equal(sh("cd '%s/results/fake-gpu' && rm -f *.png && awk -F, '$3 !~ /^p/' runs.csv >runs.new && "
                        "mv runs.new runs.csv && python3 '%s/tools/plot.py' . && test ! -e pathtrace.png && test -s phases.png",
                        d, repo), 0);
}

static void test_image_and_sanitizer_tools_include_side_stages(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    add_fake_stages(f, "07a-side");
    assert_int_equal(sh("echo 'registers 40' >'%s/bin/07a-side.resources.txt'", d), 0);
    assert_int_equal(sh("STAGES_DIR='%s' tools/compare-stages.sh scenes/quick.scene '%s/bin' >'%s/out' 2>'%s/err'",
                        f->stages, d, d, d), 0);
    assert_int_equal(sh("awk '{ print $1 }' '%s/out' | paste -sd' ' - | grep -qx 'stage 01-base 02-static 07a-side'", d), 0);
    /* COMPARE_STAGES: those stages only (a part of the record), in the list's order. */
    assert_int_equal(sh("COMPARE_STAGES='07a,01' STAGES_DIR='%s' tools/compare-stages.sh scenes/quick.scene '%s/bin' >'%s/part' 2>'%s/err' && "
                        "awk '{ print $1 }' '%s/part' | paste -sd' ' - | grep -qx 'stage 01-base 07a-side'",
                        f->stages, d, d, d, d), 0);
    /* Stages rendered at once keep the list's order and the same lines. */
    assert_int_equal(sh("STAGES_DIR='%s' COMPARE_JOBS=3 tools/compare-stages.sh scenes/quick.scene '%s/bin' >'%s/out3' 2>>'%s/err' && "
                        "cmp '%s/out' '%s/out3'", f->stages, d, d, d, d, d), 0);
    /* compute-sanitizer and nvidia-smi stand-ins: every run is clean. */
    assert_int_equal(sh("printf '#!/bin/sh\\necho \"========= ERROR SUMMARY: 0 errors\"\\n' >'%s/fake-sanitizer' && "
                        "chmod +x '%s/fake-sanitizer'", d, d), 0);
    assert_int_equal(sh("STAGES_DIR='%s' BUILD='%s/bin' RESULTS='%s/results' COMPUTE_SANITIZER='%s/fake-sanitizer' "
                        "NVIDIA_SMI='%s/tests/fixtures/fake-nvidia-smi.sh' SANITIZE_TOOLS=memcheck "
                        "SANITIZE_SCENES=scenes/quick.scene tools/sanitize.sh >'%s/out' 2>&1",
                        f->stages, d, d, d, repo, d), 0);
    assert_int_equal(sh("grep -q '^=== 07a-side, memcheck, scenes/quick.scene: clean' '%s'/results/*/sanitizer.txt", d), 0);
    assert_int_equal(sh("grep -q 'all 3 runs clean (0 skipped' '%s/out'", d), 0);
    /* A stage that refuses a scene for its size is skipped, not failed; any other failure fails. */
    assert_int_equal(sh("printf '#!/bin/sh\ncase \"$*\" in *07a-side*) echo \"07a-side: error: big.scene: 5000 spheres, "
                        "but stage 07a-side holds at most 1024 (constant memory)\" >&2; exit 255;; esac\n"
                        "echo \"========= ERROR SUMMARY: 0 errors\"\n' >'%s/fake-sanitizer'", d), 0);
    assert_int_equal(sh("rm -rf '%s/results' && STAGES_DIR='%s' BUILD='%s/bin' RESULTS='%s/results' COMPUTE_SANITIZER='%s/fake-sanitizer' "
                        "NVIDIA_SMI='%s/tests/fixtures/fake-nvidia-smi.sh' SANITIZE_TOOLS=memcheck "
                        "SANITIZE_SCENES=scenes/quick.scene tools/sanitize.sh >'%s/out' 2>&1",
                        d, f->stages, d, d, d, repo, d), 0);
    assert_int_equal(sh("grep -q '^=== 07a-side, memcheck, scenes/quick.scene: skipped (1024 max)' '%s'/results/*/sanitizer.txt && "
                        "grep -q 'all 2 runs clean (1 skipped' '%s/out'", d, d), 0);
    assert_int_equal(sh("printf '#!/bin/sh\ncase \"$*\" in *07a-side*) echo \"07a-side: error: cannot open\" >&2; exit 2;; esac\n"
                        "echo \"========= ERROR SUMMARY: 0 errors\"\n' >'%s/fake-sanitizer'", d), 0);
    assert_int_equal(sh("rm -rf '%s/results' && STAGES_DIR='%s' BUILD='%s/bin' RESULTS='%s/results' COMPUTE_SANITIZER='%s/fake-sanitizer' "
                        "NVIDIA_SMI='%s/tests/fixtures/fake-nvidia-smi.sh' SANITIZE_TOOLS=memcheck "
                        "SANITIZE_SCENES=scenes/quick.scene tools/sanitize.sh >'%s/out' 2>&1",
                        d, f->stages, d, d, d, repo, d), 1);
    assert_int_equal(sh("grep -q '^=== 07a-side, memcheck, scenes/quick.scene: failed (exit 2)' '%s'/results/*/sanitizer.txt", d), 0);
}

/* Every stage the manifests list must have been built: a stage folder without an executable in
 * --bin-dir, named by --stages (alone, in a list, at a range's end) or listed by default, is
 * refused with one line naming it, status 2, before anything is written (the --out folder is not
 * created). With --no-build (as RUN runs) that is before the GPUs are looked for: the same line
 * where there is no GPU. */
static void test_stage_without_executable_refused(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    make_fake_stage(f->stages, "09-missing", "02-static", NULL, NULL, 0);
    const struct {
        const char *env, *args;
    } cases[] = {
        {"", "--stages 1,9"}, {"", "--stages 9"}, {"", "--stages 1-9"}, {"", "--stages 2-9"}, {"", ""},
        {"RUN_NVIDIA_SMI=false", "--stages 1,9"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char args[128];
        snprintf(args, sizeof args, "--runs 1 %s", cases[i].args);
        assert_int_equal(sh("rm -rf '%s/results'", d), 0);
        int status = RUN(f, cases[i].env, args);
        if (status != 2 || sh("test $(wc -l <'%s/err') -eq 1 && "
                              "grep -qxF 'run.sh: error: no executable in %s/bin for 09-missing: run make "
                              "(or time other stages with --stages)' '%s/err'", d, d, d) != 0) {
            sh("sed 's/^/# run.sh: /' '%s/err'", d);
            fail_msg("run.sh %s: status %d, want 2 and one line naming 09-missing", args, status);
        }
        assert_int_equal(sh("test ! -e '%s/results'", d), 0);
    }
}

/* A --stages number of more than two digits (an item that would overflow the shell's arithmetic,
 * or name stage 123) is refused with one line naming the item, status 2, nothing written. */
static void test_stage_numbers_of_more_than_two_digits_refused(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *items[] = {"1-18446744073709551617", "123", "1,123", "p123", "18446744073709551617-1", "007"};
    for (size_t i = 0; i < sizeof items / sizeof *items; i++) {
        char args[128], item[64];
        snprintf(args, sizeof args, "--runs 1 --stages '%s'", items[i]);
        /* The item refused: the one of more than two digits. */
        snprintf(item, sizeof item, "%s", strchr(items[i], ',') ? strchr(items[i], ',') + 1 : items[i]);
        assert_int_equal(sh("rm -rf '%s/results'", f->dir), 0);
        int status = RUN(f, "", args);
        if (status != 2 || sh("test $(wc -l <'%s/err') -eq 1 && grep -qF -- \"run.sh: error: --stages item '%s' is not N, Nx, "
                              "N-M, pN, pNx or pN-M with numbers of at most two digits\" '%s/err'",
                              f->dir, item, f->dir) != 0) {
            sh("sed 's/^/# run.sh: /' '%s/err'", f->dir);
            fail_msg("run.sh %s: status %d, want 2 and one line refusing '%s'", args, status, item);
        }
        assert_int_equal(sh("test ! -e '%s/results'", f->dir), 0);
    }
}

/* --reference writes results/reference: with --out as well (either order) it is refused with one
 * line, status 2, and nothing is written. */
static void test_reference_with_out_refused(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    assert_int_equal(RUN(f, "", "--runs 1 --reference"), 2); /* RUN gives --out first */
    assert_int_equal(sh("test $(wc -l <'%s/err') -eq 1 && grep -qxF 'run.sh: error: --reference writes results/reference: "
                        "give --out or --reference, not both (see ./run.sh --help)' '%s/err'", d, d), 0);
    assert_int_equal(sh("test ! -e '%s/results'", d), 0);
    assert_int_equal(sh("cd '%s/repo' && STAGES_DIR='%s' ./run.sh --no-build --bin-dir '%s/bin' --reference --out '%s/other' "
                        "--runs 1 >'%s/out' 2>'%s/err'", d, f->stages, d, d, d, d), 2);
    /* The stand-in checkout's results/reference is as it was: empty. */
    assert_int_equal(sh("test -z \"$(ls -A '%s/repo/results/reference')\"", d), 0);
    assert_int_equal(sh("test $(wc -l <'%s/err') -eq 1 && grep -q 'give --out or --reference, not both' '%s/err'", d, d), 0);
    assert_int_equal(sh("test ! -e '%s/other'", d), 0);
}

/* A new stage is a folder with only a manifest (and its executable once built): the reader lists
 * it and resolves its number, run.sh verifies and times it with its manifest's campaign-args. */
static void test_new_stage_is_a_folder_with_a_manifest(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    make_fake_stage(f->stages, "23-fake-new", "02-static", NULL, "options: --frames\ncampaign-args: --frames 5", 0);
    assert_int_equal(sh("ls '%s/23-fake-new' | paste -sd' ' - | grep -qx manifest", f->stages), 0);
    add_fake_stages(f, "23-fake-new");
    assert_int_equal(sh("STAGES_DIR='%s' tools/stages list | paste -sd' ' - | grep -qx '01-base 02-static 23-fake-new' && "
                        "test \"$(STAGES_DIR='%s' tools/stages get 23 builds-on)\" = 02-static && "
                        "test \"$(STAGES_DIR='%s' tools/stages select 2-23 | paste -sd' ' -)\" = '02-static 23-fake-new'",
                        f->stages, f->stages, f->stages), 0);
    char env[PATH_MAX];
    snprintf(env, sizeof env, "FAKE_ARGS_LOG='%s/args'", d);
    RUN_OK(f, env, "--runs 2");
    assert_int_equal(sh("grep -q '^23-fake-new: ok' '%s/results/fake-gpu/verify.txt'", d), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"23-fake-new\" && $12 == \"total\" && $15 == \"ok\"' | wc -l", d), 2);
    /* Its campaign-args on every timed run: the fake prints frames (5) only when given --frames. */
    assert_int_equal(sh_num("grep -c '^23-fake-new --scene scenes/benchmark.scene --csv --frames 5$' '%s/args'", d), 2);
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"23-fake-new\" && $12 == \"frames\" && $13 == 5' | wc -l", d), 2);
    assert_runs_exact_metrics_ok(f);
    assert_int_equal(TIMED_STAGES(f), 0);
    assert_int_equal(sh("grep -qx '01-base 02-static 23-fake-new' '%s/timed'", d), 0);
}

/* The issue's must-show: in a fresh clone, ./run.sh (no --out) with a stand-in nvidia-smi that
 * reports an NVIDIA H100 80GB HBM3, a GPU results/reference/ already holds runs of, runs every
 * stage its manifests list (fakes in a bin folder outside the clone), writes
 * results/local/nvidia-h100-80gb-hbm3/, and leaves every tracked file unchanged: git status in the
 * clone prints nothing. */
static void test_default_output_leaves_tracked_files_unchanged(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    if (sh("command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1") != 0) {
        print_message("skipped: git is not installed, or this is not a git checkout to clone\n");
        skip();
    }
    fixture *f = *state;
    const char *d = f->dir;
    /* The clone: the files git tracks here and those it would (untracked, not ignored), as they
     * are in the working tree, committed in a new repository. */
    assert_int_equal(sh("mkdir -p '%s/clone' '%s/clone-bin' && "
                        "{ git ls-files -z; git ls-files -z --others --exclude-standard; } | "
                        "tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C '%s/clone'", d, d, d), 0);
    assert_int_equal(sh("cd '%s/clone' && git init -q && git add -A && "
                        "git -c user.email=t@t -c user.name=t -c commit.gpgsign=false commit -qm base", d), 0);
    /* The reference campaigns are committed gzipped (runs.csv.gz), never as runs.csv. */
    assert_int_equal(sh("test -s '%s/clone/results/reference/nvidia-h100-80gb-hbm3/runs.csv.gz' && "
                        "test ! -e '%s/clone/results/reference/nvidia-h100-80gb-hbm3/runs.csv'", d, d), 0);
    /* A fake executable for every stage the clone's manifests list, and the references. */
    long stages = sh_num("cd '%s/clone' && tools/stages list | wc -l", d);
    assert_true(stages > 2);
    assert_int_equal(sh("cd '%s/clone' && b='%s/clone-bin' && "
                        "for s in $(tools/stages list main); do cp tests/fixtures/fake-stage.sh \"$b/$s\" || exit 1; done && "
                        "for s in $(tools/stages list pt); do cp tests/fixtures/fake-pt-stage.sh \"$b/$s\" || exit 1; done && "
                        "cp tests/fixtures/fake-cpu-reference.sh \"$b/cpu-reference\" && "
                        "cp tests/fixtures/fake-pt-reference.sh \"$b/pt-reference\" && "
                        "cp tests/fixtures/fake-compare-images.sh \"$b/compare-images\"", d, d), 0);
    int status = sh("cd '%s/clone' && FAKE_GPU_NAME='NVIDIA H100 80GB HBM3' ./run.sh --no-build --bin-dir '%s/clone-bin' "
                    "--runs 1 >'%s/out' 2>'%s/err'", d, d, d, d);
    if (status != 0) sh("grep -v 'runs done' '%s/err' | sed 's/^/# run.sh: /' | tail -40", d);
    assert_int_equal(status, 0);
    /* Every listed stage verified and timed once, into results/local/, and once more for each
     * image format of its manifest's campaign-image. */
    const char *dir = "clone/results/local/nvidia-h100-80gb-hbm3";
    long images = sh_num("cd '%s/clone' && tools/stages table | awk -F'\\t' 'NR == 1 { for (i = 1; i <= NF; i++) "
                         "if ($i == \"campaign-image\") c = i; next } { n += split($c, w, \" \") } END { print n + 0 }'", d);
    assert_true(images >= 1);
    assert_int_equal(sh_num("zcat '%s/%s/runs.csv.gz' | awk -F, '$12 == \"total\" && $15 == \"ok\" && $16 == \"\"' | wc -l", d, dir), stages);
    assert_int_equal(sh_num("zcat '%s/%s/runs.csv.gz' | awk -F, '$12 == \"total\" && $15 == \"ok\" && $16 != \"\"' | wc -l", d, dir), images);
    assert_int_equal(sh_num("grep -c ': ok: ' '%s/%s/verify.txt'", d, dir), stages);
    assert_int_equal(sh("grep -q 'NVIDIA H100 80GB HBM3 (reference)' '%s/clone/results/local/README.md'", d), 0);
    if (sh("python3 -c 'import matplotlib' 2>/dev/null") == 0)
        assert_int_equal(sh("file '%s/clone/results/local/gpus.png' | grep -q 'PNG image' && "
                            "file '%s/%s/phases.png' | grep -q 'PNG image'", d, d, dir), 0);
    /* A sweep without --out goes to results/local too. */
    status = sh("cd '%s/clone' && FAKE_GPU_NAME='NVIDIA H100 80GB HBM3' tools/sweep.sh --stage 3 --option --block "
                "--values 8x8,32x8 --runs 1 --bin-dir '%s/clone-bin' >'%s/out' 2>'%s/err'", d, d, d, d);
    if (status != 0) sh("sed 's/^/# sweep: /' '%s/err' | tail -20", d);
    assert_int_equal(status, 0);
    assert_int_equal(sh_num("awk -F, '$12 == \"total\" && $15 == \"ok\"' '%s/%s/sweeps/03-block-size--block.csv' | wc -l",
                            d, dir), 2);
    /* Nothing tracked changed, nothing new that git would track. */
    if (sh("cd '%s/clone' && test -z \"$(git status --porcelain)\"", d) != 0) {
        sh("cd '%s/clone' && git status --porcelain | sed 's/^/# git status: /' | head -20", d);
        fail_msg("run.sh changed the clone's tracked files or left files git would track");
    }
}

/* tools/lab/supersede-runs.sh: the named stages' runs leave runs.csv.gz for superseded-runs.csv.gz
 * (the header once, each call appended), the others stay, written back as gzip -9 -n writes them;
 * a campaign cut off before it could close (a live runs.csv) has its runs.csv edited instead; a
 * resumed campaign times them again from run 1; a bad spec or folder is refused with one line and
 * changes nothing. */
static void test_supersede_runs(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    RUN_OK(f, "", "--runs 3 --no-verify");
    const char *gpu = "results/fake-gpu";
    /* The rows of the folder's runs.csv.gz: the test's folder, then gpu. */
#define GPU_ROWS "zcat '%s/%s/runs.csv.gz' | "
    assert_int_equal(sh_num(GPU_ROWS "awk -F, '$12 == \"total\"' | wc -l", f->dir, gpu), 6);
#define SUPERSEDE(args) \
    sh("cd '%s' && STAGES_DIR='%s' '%s/tools/lab/supersede-runs.sh' %s >'%s/out' 2>'%s/err'", f->dir, f->stages, repo, \
       args, f->dir, f->dir)
    char args[256];
    snprintf(args, sizeof args, "%s 2", gpu);
    assert_int_equal(SUPERSEDE(args), 0);
    assert_int_equal(sh("grep -qx 'supersede-runs: moved 3 runs of 1 stage(s) (2) from %s/runs.csv.gz to "
                        "%s/superseded-runs.csv.gz' '%s/out'", gpu, gpu, f->dir), 0);
    assert_int_equal(sh_num(GPU_ROWS "awk -F, '$3 == \"02-static\"' | wc -l", f->dir, gpu), 0);
    assert_int_equal(sh_num(GPU_ROWS "awk -F, '$3 == \"01-base\" && $12 == \"total\"' | wc -l", f->dir, gpu), 3);
    /* Their provenance rows go with them (the header stays, and heads the archive). */
    assert_int_equal(sh("cd '%s/%s' && cut -f1 provenance.tsv | paste -sd' ' - | grep -qx 'stage 01-base' && "
                        "cut -f1 superseded-provenance.tsv | paste -sd' ' - | grep -qx 'stage 02-static'", f->dir, gpu), 0);
    /* Still gzip, no runs.csv beside it, its bytes those of gzip -9 -n on its rows. */
    assert_int_equal(sh("cd '%s/%s' && test ! -e runs.csv && zcat runs.csv.gz | gzip -9 -n | cmp -s - runs.csv.gz && "
                        "! ls -A | grep -q superseding", f->dir, gpu), 0);
    assert_int_equal(sh_num("zcat '%s/%s/superseded-runs.csv.gz' | awk -F, '$3 == \"02-static\" && $12 == \"total\"' "
                            "| wc -l", f->dir, gpu), 3);
    /* A second call appends; the header stays the first line and appears once. */
    snprintf(args, sizeof args, "%s 1", gpu);
    assert_int_equal(SUPERSEDE(args), 0);
    assert_int_equal(sh_num("zcat '%s/%s/superseded-runs.csv.gz' | grep -c '^order,run,stage,'", f->dir, gpu), 1);
    assert_int_equal(sh("zcat '%s/%s/superseded-runs.csv.gz' | head -1 | grep -q '^order,run,stage,'", f->dir, gpu), 0);
    assert_int_equal(sh_num("zcat '%s/%s/superseded-runs.csv.gz' | awk -F, '$12 == \"total\"' | wc -l", f->dir, gpu),
                     6);
    assert_int_equal(sh_num(GPU_ROWS "wc -l", f->dir, gpu), 1);
    /* An archive far larger than a pipe's buffer (the course's is megabytes): reading its header
     * must not stop the script (zcat | head under pipefail: SIGPIPE). */
    assert_int_equal(sh("cd '%s/%s' && zcat superseded-runs.csv.gz > big && for k in $(seq 1 4000); do "
                        "tail -n +2 big | head -n 20; done | gzip -1 >> superseded-runs.csv.gz && rm big",
                        f->dir, gpu), 0);
    assert_true(sh_num("zcat '%s/%s/superseded-runs.csv.gz' | wc -c", f->dir, gpu) > 1000000);
    RUN_OK(f, "", "--runs 1 --no-verify");
    /* A campaign cut off before it closed its runs: its live runs.csv (runs 1 and 2 of 02-static,
     * run 1 of 01-base) continues the older runs.csv.gz beside it (run 1 of each). The live file
     * is the one edited, and stays runs.csv; the packed one loses the same stage's rows, so that
     * the live file still continues it. */
    assert_int_equal(sh("cd '%s/%s' && zcat runs.csv.gz >runs.csv && awk -F, 'NR > 1 && $3 == \"02-static\" "
                        "{ $1 = 9; $2 = 2; print }' OFS=, runs.csv >>runs.csv.more && cat runs.csv.more >>runs.csv && "
                        "rm runs.csv.more", f->dir, gpu), 0);
    snprintf(args, sizeof args, "%s 1", gpu);
    assert_int_equal(SUPERSEDE(args), 0);
    assert_int_equal(sh("grep -qx 'supersede-runs: moved 1 runs of 1 stage(s) (1) from %s/runs.csv to "
                        "%s/superseded-runs.csv.gz' '%s/out'", gpu, gpu, f->dir), 0);
    assert_int_equal(sh_num("awk -F, '$3 == \"01-base\"' '%s/%s/runs.csv' | wc -l", f->dir, gpu), 0);
    assert_int_equal(sh_num("awk -F, '$3 == \"02-static\" && $12 == \"total\"' '%s/%s/runs.csv' | wc -l", f->dir, gpu), 2);
    assert_int_equal(sh_num(GPU_ROWS "awk -F, '$3 == \"01-base\"' | wc -l", f->dir, gpu), 0);
    assert_int_equal(sh_num(GPU_ROWS "awk -F, '$3 == \"02-static\" && $12 == \"total\"' | wc -l", f->dir, gpu), 1);
    /* Resumed, the campaign continues the live runs.csv: 01-base from run 1, 02-static's run 3. */
    RUN_OK(f, "", "--runs 3 --resume --no-verify");
    assert_int_equal(sh("test ! -e '%s/%s/runs.csv'", f->dir, gpu), 0);
    assert_int_equal(sh_num(GPU_ROWS "awk -F, '$12 == \"total\" && $3 == \"01-base\"' | wc -l", f->dir, gpu), 3);
    assert_int_equal(sh_num(GPU_ROWS "awk -F, '$12 == \"total\" && $3 == \"02-static\"' | wc -l", f->dir, gpu), 3);
    /* Named twice in a row: the second time nothing is left to move, and it says so. */
    snprintf(args, sizeof args, "%s 1", gpu);
    assert_int_equal(SUPERSEDE(args), 0);
    assert_int_equal(sh("grep -qx 'supersede-runs: moved 3 runs of 1 stage(s) (1) from %s/runs.csv.gz to "
                        "%s/superseded-runs.csv.gz' '%s/out'", gpu, gpu, f->dir), 0);
    assert_int_equal(SUPERSEDE(args), 0);
    assert_int_equal(sh("grep -qx 'supersede-runs: moved 0 runs of 1 stage(s) (1) from %s/runs.csv.gz to "
                        "%s/superseded-runs.csv.gz' '%s/out'", gpu, gpu, f->dir), 0);
    /* Refused, one line, nothing changed. */
    assert_int_equal(sh("cd '%s' && md5sum %s/runs.csv.gz %s/superseded-runs.csv.gz > sums", f->dir, gpu, gpu), 0);
    snprintf(args, sizeof args, "%s 9", gpu);
    assert_int_equal(SUPERSEDE(args), 2);
    assert_int_equal(sh_num("wc -l < '%s/err'", f->dir), 1);
    assert_int_equal(sh("grep -q '^supersede-runs: ' '%s/err'", f->dir), 0);
    assert_int_equal(SUPERSEDE("results/no-such-gpu 1"), 2);
    assert_int_equal(sh("grep -qx 'supersede-runs: no campaign in results/no-such-gpu: "
                        "results/no-such-gpu/runs.csv.gz is missing' '%s/err'", f->dir), 0);
    assert_int_equal(SUPERSEDE(""), 2);
    assert_int_equal(sh("cd '%s' && md5sum -c --quiet sums && test ! -e %s/runs.csv", f->dir, gpu), 0);
#undef SUPERSEDE
#undef GPU_ROWS
}

int main(void) {
    if (!getcwd(repo, sizeof repo)) return 1;
    char smi[PATH_MAX + 64];
    snprintf(smi, sizeof smi, "%s/tests/fixtures/fake-nvidia-smi.sh", repo);
    setenv("RUN_NVIDIA_SMI", smi, 1);
    unsetenv("RUN_BIN_DIR");
    unsetenv("STAGES_DIR"); /* each test names its own; the clone's run uses its default */
    const char *tools[] = {"parallel", "python3", "flock", "timeout", "base64", "tar", "awk"};
    missing_tool = missing_tool_among(tools, sizeof tools / sizeof *tools);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bad_options, setup, teardown),
        cmocka_unit_test_setup_teardown(test_statistics_by_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_gpus_never_shared, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stage_on_several_gpus, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stage_of_ranks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hosts_gather_results, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_after_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_provenance_of_a_campaign, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_after_interrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_runs_kept_gzipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_or_stray_live_runs_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_hung_garbage_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verification_failure_not_timed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verification_tolerance_of_a_stage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_readmes_check, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stage_selection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_campaign_args, setup, teardown),
        cmocka_unit_test_setup_teardown(test_campaign_image, setup, teardown),
        cmocka_unit_test_setup_teardown(test_supersede_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_side_stage_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_pt_stage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_bad_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plots_every_stage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_image_and_sanitizer_tools_include_side_stages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pt_scene_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pt_stage_selection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bench_executables_never_timed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pt_stages_verified_against_pt_reference, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pt_stage_verified_against_its_estimator, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pt_summary_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ratios_only_within_a_campaign, setup, teardown),
        cmocka_unit_test_setup_teardown(test_multi_gpu_campaign_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stage_without_executable_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stage_numbers_of_more_than_two_digits_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reference_with_out_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_stage_is_a_folder_with_a_manifest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_default_output_leaves_tracked_files_unchanged, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
