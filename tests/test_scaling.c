/* Tests of the scaling campaign (tools/scaling.sh, ./run.sh --scaling, tools/plot.py --scaling and
 * the scaling blocks of tools/update_readmes.py) against fake stages, a fake nvidia-smi and fake
 * cpu-reference/compare-images (tests/fixtures/): no GPU needed. Run from the repository root.
 * Each test has its own folder DIR: its stage folders DIR/stages (STAGES_DIR: 20-prev and
 * 21-persist of chapter 3, 22-bvh and 23-gpu of chapter 4), the fake executables in DIR/bin
 * (--bin-dir), two generated scenes DIR/s50.scene and DIR/s200.scene (50 and 200 spheres with the
 * floor), and a stand-in checkout DIR/repo (links to run.sh, tools/, scenes/) the campaigns run
 * from, so that nothing they write reaches the repository. The fake stage reports the spheres of
 * the scene it is given; FAKE_MAX_SPHERES='21-persist:100' makes 21-persist refuse s200 as stage
 * 21 refuses 10,000 spheres ("holds at most"). The path-tracing track's campaign (--track pt,
 * pt-scaling/) adds fake pNN stages (tests/fixtures/fake-pt-stage.sh) and a fake pt-reference
 * (add_pt_track). */
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

#define CMD_MAX 16384

static char repo[PATH_MAX];
static const char *missing_tool; /* a tool tools/scaling.sh needs that this machine lacks, or NULL */

typedef struct {
    char dir[64];    /* the test's temporary folder */
    char stages[96]; /* DIR/stages: the STAGES_DIR of its campaigns */
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    strcpy(f->dir, "/tmp/test-scaling-XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->stages, sizeof f->stages, "%s/stages", f->dir);
    const char *fx = "tests/fixtures";
    if (sh("mkdir -p '%s/bin' && for s in 20-prev 21-persist 22-bvh 23-gpu; do cp %s/fake-stage.sh '%s/bin/'$s || exit 1; done && "
           "cp %s/fake-cpu-reference.sh '%s/bin/cpu-reference' && cp %s/fake-compare-images.sh '%s/bin/compare-images'",
           f->dir, fx, f->dir, fx, f->dir, fx, f->dir) != 0)
        return -1;
    /* Chapter 3 ends with 21-persist; chapter 4 builds on it. 22-bvh renders --frames 2 in a
     * campaign, as the real chapter's stages render 20. */
    make_fake_stage(f->stages, "20-prev", "none", "3. The kernel to the floor", NULL, 0);
    make_fake_stage(f->stages, "21-persist", "20-prev", "3. The kernel to the floor", NULL, 0);
    make_fake_stage(f->stages, "22-bvh", "21-persist", "4. Scenes that grow", "options: --frames\ncampaign-args: --frames 2", 0);
    make_fake_stage(f->stages, "23-gpu", "22-bvh", "4. Scenes that grow", NULL, 0);
    if (sh("python3 scenes/generate-random.py 49 --size 16x16 >'%s/s50.scene' && "
           "python3 scenes/generate-random.py 199 --size 16x16 >'%s/s200.scene'", f->dir, f->dir) != 0)
        return -1;
    if (sh("mkdir -p '%s/repo/results' && cd '%s/repo' && for x in run.sh tools common scenes README.md; do ln -s '%s/'$x $x || exit 1; done && "
           "ln -s ../stages stages && ln -s '%s/results/reported' results/reported", f->dir, f->dir, repo, repo) != 0)
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

/* tools/scaling.sh (or, with PROGRAM "./run.sh --scaling --no-build", run.sh) from the stand-in
 * checkout with the fake stages into DIR/results; ENV and ARGS are added; stdout and stderr go to
 * DIR/out and DIR/err. */
#define CAMPAIGN(f, program, env, args)                                                                          \
    sh("cd '%s/repo' && STAGES_DIR='%s' %s %s --bin-dir '%s/bin' --out '%s/results' %s >'%s/out' 2>'%s/err'", \
       (f)->dir, (f)->stages, env, program, (f)->dir, (f)->dir, args, (f)->dir, (f)->dir)
#define SCALING(f, env, args) CAMPAIGN(f, "tools/scaling.sh", env, args)

/* SCALING that must end with STATUS; otherwise what it printed is shown first. */
#define SCALING_STATUS(f, env, args, status)                                       \
    do {                                                                           \
        int scaling_status_ = SCALING(f, env, args);                               \
        if (scaling_status_ != (status))                                           \
            sh("grep -v 'runs done' '%s/err' | sed 's/^/# scaling: /' | tail -30", (f)->dir); \
        assert_int_equal(scaling_status_, (status));                               \
    } while (0)

/* The rows of the campaign's runs.csv.gz in a test's folder (what a scaling campaign leaves when
 * it ends, finished or interrupted: tools/runner/close-runs.sh), at the start of a pipeline: ROWS
 * "awk ...", the test's folder the first argument; the live runs.csv, which the runs go to while
 * the campaign runs; and verify.txt. */
#define RUNS_GZ "'%s/results/fake-gpu/scaling/runs.csv.gz'"
#define ROWS "zcat " RUNS_GZ " | "
#define LIVE_RUNS "'%s/results/fake-gpu/scaling/runs.csv'"
#define VERIFY "'%s/results/fake-gpu/scaling/verify.txt'"

/* --scenes with the benchmark and the test's two generated scenes. */
static void three_scenes(const fixture *f, char *out, size_t size, const char *more) {
    snprintf(out, size, "--scenes scenes/benchmark.scene,%s/s50.scene,%s/s200.scene %s", f->dir, f->dir, more);
}

/* The default stages (the stage chapter 4 builds on and chapter 4's), on three scenes, two runs:
 * run-major order, every row with its scene, the sphere counts the stage reported, one frame per
 * timed run (not the manifest's campaign-args) and the scene's file on every run. */
static void test_interleaved_runs_and_scene_column(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    char args[1024], env[512];
    three_scenes(f, args, sizeof args, "--runs 2");
    snprintf(env, sizeof env, "FAKE_MAX_SPHERES='21-persist:100' FAKE_ARGS_LOG='%s/args'", d);
    SCALING_STATUS(f, env, args, 0);
    assert_int_equal(sh(ROWS "head -n1 | grep -qx "
                        "'order,run,stage,host,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit,status,scene'", d), 0);
    /* 21-persist, 22-bvh, 23-gpu (not 20-prev) on 3 scenes, 21-persist refusing s200: 8 pairs x 2
     * runs. */
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"total\" && $15 == \"ok\"' | wc -l", d), 16);
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"20-prev\"' | wc -l", d), 0);
    /* Run-major: orders 1-8 are run 1 of every pair, 9-16 run 2 of every pair. */
    const char *pairs = "21-persist benchmark,21-persist s50,22-bvh benchmark,22-bvh s200,22-bvh s50,"
                        "23-gpu benchmark,23-gpu s200,23-gpu s50";
    for (int run = 1; run <= 2; run++) {
        if (sh(ROWS "awk -F, '$12 == \"total\" && $1 > %d && $1 <= %d && $2 == %d { print $3 \" \" $16 }'"
               " | LC_ALL=C sort | paste -sd, - | grep -qx '%s'", d, 8 * (run - 1), 8 * run, run, pairs) != 0) {
            sh(ROWS "awk -F, '$12 == \"total\" { print \"# \" $1, $2, $3, $16 }'", d);
            fail_msg("orders %d-%d should be run %d of every (stage, scene) pair", 8 * run - 7, 8 * run, run);
        }
    }
    /* The scene column names the scene the stage rendered (its spheres: 19, 50, 200). */
    assert_int_equal(sh_num(ROWS "awk -F, 'NR > 1 && !($16 == \"benchmark\" && $9 == 19 || $16 == \"s50\" && $9 == 50 || "
                            "$16 == \"s200\" && $9 == 200)' | wc -l", d), 0);
    assert_int_equal(sh_num(ROWS "awk -F, 'NR > 1 && NF != 16' | wc -l", d), 0);
    /* The timed runs: the scene's file and --csv, one frame: not the manifest's campaign-args
     * (22-bvh's --frames 2), which would multiply a run on 100,000 spheres by the frames. */
    assert_int_equal(sh_num("grep -c '^22-bvh --scene %s/s50.scene --csv$' '%s/args'", d, d), 2);
    assert_int_equal(sh_num("grep -c -- '--frames' '%s/args'", d), 0);
    assert_int_equal(sh_num("grep -c '^23-gpu --scene scenes/benchmark.scene --csv$' '%s/args'", d), 2);
    /* Verification: every pair at 64x64 with a picture (the refused one too). */
    assert_int_equal(sh_num("grep -c '^2[123]-[a-z]* --scene [^ ]* --size 64x64 --output [^ ]*$' '%s/args'", d), 9);
    assert_int_equal(sh_num("grep -c ': ok: ' " VERIFY, d), 8);
    /* env.txt and the joblog: the GPU, the command, the scenes; a line per timed run. */
    assert_int_equal(sh("grep -q '^gpu: 0, Fake GPU' '%s/results/fake-gpu/scaling/env.txt' && "
                        "grep -q '^scene: s200 = %s/s200.scene (200 spheres)$' '%s/results/fake-gpu/scaling/env.txt'", d, d, d), 0);
    assert_int_equal(sh_num("grep -c 'tools/runner/run-one.sh 1 ' '%s/results/fake-gpu/scaling/joblog.txt'", d), 16);
    /* Its provenance (tools/runner/provenance.sh): env.txt names the revision (the stand-in
     * checkout is none), provenance.tsv a row per stage timed (not 20-prev), each with its
     * executable's sha256 (the fake stages have no render.cu: no source hash, said on stderr). */
    assert_int_equal(sh("grep -qx 'revision: unknown (not a git checkout)' '%s/results/fake-gpu/scaling/env.txt'", d), 0);
    assert_int_equal(sh("cut -f1 '%s/results/fake-gpu/scaling/provenance.tsv' | paste -sd' ' - | "
                        "grep -qx 'stage 21-persist 22-bvh 23-gpu'", d), 0);
    assert_int_equal(sh("test \"$(awk -F'\t' '$1 == \"22-bvh\" { print $3 }' '%s/results/fake-gpu/scaling/provenance.tsv')\" "
                        "= \"$(sha256sum <'%s/bin/22-bvh' | cut -d' ' -f1)\"", d, d), 0);
    assert_int_equal(sh("grep -q '^provenance: no source hash for 21-persist 22-bvh 23-gpu' '%s/err'", d), 0);
    /* A campaign of its own: results/<gpu>/runs.csv.gz (run.sh's) is not written. Its own runs
     * are closed: runs.csv.gz, gzip -9 -n of its rows, and no runs.csv. */
    assert_int_equal(sh("test ! -e '%s/results/fake-gpu/runs.csv' && test ! -e '%s/results/fake-gpu/runs.csv.gz'", d, d), 0);
    assert_int_equal(sh("test ! -e " LIVE_RUNS " && " ROWS "gzip -9 -n | cmp -s - " RUNS_GZ, d, d, d), 0);
}

/* A stage that refuses a scene for its spheres ("holds at most", exit status 2) is skipped on it
 * and listed in verify.txt, and the campaign succeeds; a stage whose picture differs, or that
 * fails another way, is not timed on that scene and the campaign ends with status 1 after timing
 * the other pairs. */
static void test_refused_scene_skipped(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    char args[1024];
    three_scenes(f, args, sizeof args, "--runs 2");
    SCALING_STATUS(f, "FAKE_MAX_SPHERES='21-persist:100'", args, 0);
    assert_int_equal(sh("grep -qx '21-persist s200: skipped: .*200 spheres, but stage 21-persist holds at most 100 (fake)' " VERIFY, d), 0);
    assert_int_equal(sh("grep -q '^scaling: 21-persist skips s200: ' '%s/err'", d), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"21-persist\" && $16 == \"s200\"' | wc -l", d), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$3 == \"21-persist\" && $12 == \"total\" && $15 == \"ok\"' | wc -l", d), 4);
    assert_int_equal(sh("grep -q 'FAILED' " VERIFY " '%s/err'", d, d), 1);
    /* --no-verify compares no picture but still skips the refused scene. */
    assert_int_equal(sh("rm -rf '%s/results'", d), 0);
    three_scenes(f, args, sizeof args, "--runs 1 --no-verify --stages 21");
    SCALING_STATUS(f, "FAKE_MAX_SPHERES='21-persist:100'", args, 0);
    assert_int_equal(sh("grep -q '^21-persist s200: skipped: ' " VERIFY " && ! grep -q ': ok: ' " VERIFY, d, d), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"total\" { print $16 }' | LC_ALL=C sort | paste -sd' ' - | "
                            "grep -cx 'benchmark s50'", d), 1);
    /* Other failures: 23-gpu's picture differs; 22-bvh fails (exit status 1) on every scene. */
    assert_int_equal(sh("rm -rf '%s/results'", d), 0);
    three_scenes(f, args, sizeof args, "--runs 2 --stages 21-23");
    SCALING_STATUS(f, "FAKE_MAX_SPHERES='21-persist:100' FAKE_BAD_IMAGE=23-gpu FAKE_FAIL='22-bvh:1'", args, 1);
    assert_int_equal(sh("grep -q '^23-gpu s50: FAILED: differing pixels: 1 of 1' " VERIFY, d), 0);
    assert_int_equal(sh("grep -q '^22-bvh benchmark: FAILED: exit status 1: .*fake failure of run 1' " VERIFY, d), 0);
    assert_int_equal(sh_num("grep -c ': FAILED: ' " VERIFY, d), 6);
    assert_int_equal(sh("grep -q '^scaling: failed verification, not timed: 22-bvh benchmark, 22-bvh s50, ' '%s/err'", d), 0);
    /* The pairs that passed are timed all the same. */
    assert_int_equal(sh(ROWS "awk -F, '$12 == \"total\" && $15 == \"ok\" { print $3 }' | sort | uniq -c | "
                        "awk '{ print $2 \":\" $1 }' | paste -sd' ' - | grep -qx '21-persist:4'", d), 0);
}

/* awk printing how many (stage, scene, run) triples among the rows matching COND lack the 18 rows
 * of a complete one-frame run of the fake stage (its 17 metrics and process_wall). */
#define INCOMPLETE(cond)                                                                                   \
    "awk -F, '" cond " { n[$3 \" \" $16 \" \" $2]++ } END { bad = 0; for (k in n) "                          \
    "if (n[k] != 18) bad++; print bad }' "

/* Every (stage, scene, run) triple of PAIRS pairs x RUNS runs has exactly one complete ok run. */
static void assert_runs_exact(const fixture *f, long triples) {
    assert_int_equal(sh_num(ROWS INCOMPLETE("NR > 1 && $15 == \"ok\""), f->dir), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"total\" && $15 == \"ok\"' | wc -l", f->dir), triples);
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"total\" && $15 == \"ok\" { print $3, $16, $2 }' | sort -u | wc -l",
                            f->dir), triples);
    assert_int_equal(sh_num(ROWS "awk -F, '$12 == \"total\" { print $1 }' | sort | uniq -d | wc -l", f->dir), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$15 == \"failed\"' | wc -l", f->dir), 0);
}

/* A failed run: the campaign ends with status 1; it is not overwritten without --resume; --resume
 * runs what is missing (the failed run again, and a third run of every pair) and nothing twice. */
static void test_resume_after_failure(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    char args[1024];
    three_scenes(f, args, sizeof args, "--runs 2 --stages 22,23");
    SCALING_STATUS(f, "FAKE_FAIL='23-gpu:2'", args, 1);
    assert_int_equal(sh("grep -q '^  23-gpu on s50 run 2: exit status 1' '%s/err'", d), 0);
    assert_int_equal(sh_num(ROWS "awk -F, '$15 == \"failed\"' | wc -l", d), 3);
    assert_int_equal(sh("cp " RUNS_GZ " '%s/before.csv.gz' && zcat " RUNS_GZ " >'%s/before.csv'", d, d, d, d), 0);
    SCALING_STATUS(f, "", args, 2);
    assert_int_equal(sh("grep -qx 'scaling: error: .*/scaling already holds runs: continue them with --resume, or move the folder away' '%s/err'", d), 0);
    assert_int_equal(sh("cmp -s " RUNS_GZ " '%s/before.csv.gz' && test ! -e " LIVE_RUNS, d, d, d), 0);
    three_scenes(f, args, sizeof args, "--runs 3 --stages 22,23 --resume");
    SCALING_STATUS(f, "", args, 0);
    assert_runs_exact(f, 6 * 3);
    /* The runs of the first campaign are kept as they were, the new ones numbered after them. */
    assert_int_equal(sh("grep ',ok,' '%s/before.csv' >'%s/before-ok.csv'", d, d), 0);
    assert_int_equal(sh_num(ROWS "grep -cxFf '%s/before-ok.csv'", d, d), sh_num("wc -l <'%s/before-ok.csv'", d));
    assert_int_equal(sh_num(ROWS "awk -F, 'NR > 1 && $2 == 3 && $1 <= 12' | wc -l", d), 0);
    assert_int_equal(sh_num("grep -c ',failed,' '%s/results/fake-gpu/scaling/failed-runs.csv'", d), 3);
    assert_int_equal(sh_num("grep -c '^# verification at 64x64' " VERIFY, d), 2);
}

/* Ctrl-C during the timing: every finished run is kept whole, the message says how to go on, and
 * --resume completes the campaign without running anything twice. */
static void test_resume_after_interrupt(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    char cmd[CMD_MAX];
    snprintf(cmd, sizeof cmd,
             "cd '%s/repo' && STAGES_DIR='%s' FAKE_SLEEP=1 exec tools/scaling.sh --bin-dir '%s/bin' --out '%s/results' "
             "--runs 4 --stages 22,23 --scenes scenes/benchmark.scene,%s/s50.scene >'%s/out' 2>'%s/err'",
             d, f->stages, d, d, d, d, d);
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
        if (sh_num("awk -F, '$12 == \"total\"' " LIVE_RUNS " 2>/dev/null | wc -l", d) >= 3) break;
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    kill(-pid, SIGINT);
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 130);
    assert_int_equal(sh("grep -q 'interrupted; every finished run is in .*/scaling/runs.csv.gz; continue with: .*--resume' '%s/err'", d), 0);
    assert_int_equal(sh("test ! -e " LIVE_RUNS, d), 0); /* closed, interrupted as it was */
    long done = sh_num(ROWS "awk -F, '$12 == \"total\"' | wc -l", d);
    assert_true(done >= 3 && done < 16);
    assert_int_equal(sh_num(ROWS INCOMPLETE("NR > 1"), d), 0); /* no half-written run */
    char args[1024];
    snprintf(args, sizeof args, "--runs 4 --stages 22,23 --scenes scenes/benchmark.scene,%s/s50.scene --resume", d);
    SCALING_STATUS(f, "", args, 0);
    assert_runs_exact(f, 4 * 4);
}

/* Bad options and values: status 2, one line naming the problem, nothing written. */
static void test_bad_options(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    assert_int_equal(sh("touch '%s/results-file' '%s/a b.scene' && mkdir -p '%s/other' && "
                        "cp scenes/quick.scene '%s/other/s50.scene'", d, d, d, d), 0);
    make_fake_stage(f->stages, "p01-path", "none", "P1. Fake path tracing", "estimator: path", 0);
    make_fake_stage(f->stages, "24-unbuilt", "23-gpu", "4. Scenes that grow", NULL, 0);
    const struct {
        const char *args, *message;
    } bad[] = {
        {"--bogus", "scaling: error: unknown option '--bogus'"},
        {"--runs", "--runs needs a value"},
        {"--runs abc", "--runs needs a positive number, got 'abc'"},
        {"--runs 0", "--runs needs a positive number, got '0'"},
        {"--runs 99999999999999999999", "--runs 99999999999999999999 is too many"},
        {"--timeout 1.5", "--timeout needs a positive number, got '1.5'"},
        {"--stages x", "--stages item 'x' is not N, Nx, N-M, pN, pNx or pN-M"},
        {"--stages 98", "--stages item '98' names no stage"},
        {"--stages p1", "--stages: p01-path is a path-tracing stage; the scaling campaign times main-track stages"},
        /* The tracks: one a campaign. */
        {"--stages 21,p1", "--stages mixes the tracks (21-persist and p01-path): a scaling campaign times one track"},
        {"--track pt --stages p1,21", "--stages mixes the tracks (p01-path and 21-persist)"},
        {"--track pt --stages 21-22", "--stages: 21-persist is a main-track stage; --track pt times path-tracing stages"},
        {"--track x", "--track is main or pt, got 'x'"},
        {"--track", "--track needs a value"},
        {"--track pt", "no stage's manifest in "}, /* no stage of chapter P4 here */
        {"--stages 24", "no executable in "},
        {"", "for 24-unbuilt: run make"}, /* the default stages: chapter 4 holds an unbuilt stage */
        {"--gpus 0,0", "--gpus '0,0' names GPU 0 twice"},
        {"--gpus 1", "--gpus 1: not every GPU exists"},
        {"--gpus x", "bad --gpus 'x'"},
        {"--reference", "--reference writes results/reference: give --out or --reference, not both"},
        {"--scenes no-such.scene", "--scenes 'no-such.scene': no such file"},
        {"--scenes scenes", "--scenes 'scenes' is not a regular file"},
        {"--scenes scenes/benchmark.scene,,scenes/quick.scene", "is not a comma-separated list of scene files"},
        {"--scenes scenes/benchmark.scene,", "is not a comma-separated list of scene files"},
        {"--scenes TWICE", "--scenes names two scenes called 's50'"},
        {"--scenes SPACE", "its name 'a b' must be letters, digits and . _ + - only"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        assert_int_equal(sh("rm -rf '%s/results'", d), 0);
        char args[1024];
        if (strcmp(bad[k].args, "--scenes TWICE") == 0)
            snprintf(args, sizeof args, "--scenes '%s/s50.scene,%s/other/s50.scene'", d, d);
        else if (strcmp(bad[k].args, "--scenes SPACE") == 0)
            snprintf(args, sizeof args, "--scenes 'scenes/benchmark.scene,%s/a b.scene'", d);
        else if (strstr(bad[k].args, "--scenes"))
            snprintf(args, sizeof args, "%s", bad[k].args);
        else
            snprintf(args, sizeof args, "--scenes scenes/benchmark.scene %s", bad[k].args);
        int status = SCALING(f, "", args);
        if (status != 2 || sh("test $(wc -l <'%s/err') -eq 1 && grep -q '^scaling: error: ' '%s/err' && grep -qF -- \"%s\" '%s/err'",
                              d, d, bad[k].message, d) != 0) {
            sh("sed 's/^/# scaling: /' '%s/err'", d);
            fail_msg("tools/scaling.sh %s: status %d, expected 2 and one line with '%s'", args, status, bad[k].message);
        }
        assert_int_equal(sh("test ! -e '%s/results'", d), 0);
    }
    /* --out naming a file. */
    assert_int_equal(sh("cd '%s/repo' && STAGES_DIR='%s' tools/scaling.sh --bin-dir '%s/bin' --out '%s/results-file' "
                        "--scenes scenes/benchmark.scene >'%s/out' 2>'%s/err'", d, f->stages, d, d, d, d), 2);
    assert_int_equal(sh("test $(wc -l <'%s/err') -eq 1 && grep -qF -- \"--out '%s/results-file' exists and is not a folder\" '%s/err'",
                        d, d, d), 0);
    /* Through run.sh: its options that do not apply to --scaling, and a bad one it hands over. */
    const struct {
        const char *args, *message;
    } bad_run[] = {
        {"--scaling --scene scenes/quick.scene", "run.sh: error: --scene does not go with --scaling: its scenes are --scenes LIST"},
        {"--scaling --pt-scene scenes/pt-quick.scene", "run.sh: error: --pt-scene does not go with --scaling"},
        {"--scaling --runs 0", "scaling: error: --runs needs a positive number, got '0'"},
        {"--scenes scenes/benchmark.scene", "run.sh: error: --scenes goes with --scaling"},
        {"--track pt", "run.sh: error: --track goes with --scaling"},
        {"--scaling --track pt --stages 21", "scaling: error: --stages: 21-persist is a main-track stage"},
    };
    for (size_t k = 0; k < sizeof bad_run / sizeof *bad_run; k++) {
        int status = CAMPAIGN(f, "./run.sh --no-build", "", bad_run[k].args);
        if (status != 2 || sh("test $(wc -l <'%s/err') -eq 1 && grep -qF -- \"%s\" '%s/err'", d, bad_run[k].message, d) != 0) {
            sh("sed 's/^/# run.sh: /' '%s/err'", d);
            fail_msg("./run.sh %s: status %d, expected 2 and one line with '%s'", bad_run[k].args, status, bad_run[k].message);
        }
        assert_int_equal(sh("test ! -e '%s/results'", d), 0);
    }
    /* --help: the script's, and run.sh's names --scaling. */
    assert_int_equal(SCALING(f, "", "--help"), 0);
    assert_int_equal(sh("grep -q '^usage: tools/scaling.sh' '%s/out' && grep -q -- '--scenes LIST' '%s/out' && "
                        "grep -q 'holds at most' '%s/out'", d, d, d), 0);
    assert_int_equal(CAMPAIGN(f, "./run.sh", "", "--scaling --help"), 0);
    assert_int_equal(sh("grep -q '^usage: tools/scaling.sh' '%s/out'", d), 0);
    assert_int_equal(CAMPAIGN(f, "./run.sh", "", "--help"), 0);
    assert_int_equal(sh("grep -q -- '--scaling  *the scaling campaign' '%s/out' && grep -q 'tools/scaling.sh --help' '%s/out'", d, d), 0);
}

/* The default scenes: scenes/benchmark.scene, build/scenes/random-{1k,10k,100k}.scene and
 * build/scenes/clustered-{1k,10k,100k}.scene. Without them and without a Makefile to make them, one
 * line says how; with the Makefile, `make scenes` makes them (1,000, 10,000 and 100,000 spheres of
 * each shape) and the campaign times them. */
static void test_default_scenes(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    assert_int_equal(SCALING(f, "", "--runs 1 --stages 21"), 2);
    if (sh("test $(wc -l <'%s/err') -eq 1 && "
           "grep -q \"^scaling: error: cannot make the scenes (.*): run 'make scenes' (python3 scenes/generate-random.py 999 > "
           "build/scenes/random-1k.scene, 9999 > build/scenes/random-10k.scene, 99999 > build/scenes/random-100k.scene, "
           "the same with --clustered > build/scenes/clustered-1k.scene, -10k, -100k)\" '%s/err'",
           d, d) != 0) {
        sh("sed 's/^/# scaling: /' '%s/err'", d);
        fail_msg("without the default scenes and a Makefile: want one line saying how to make them");
    }
    assert_int_equal(sh("test ! -e '%s/results'", d), 0);
    assert_int_equal(sh("ln -s '%s/Makefile' '%s/repo/Makefile'", repo, d), 0);
    SCALING_STATUS(f, "FAKE_MAX_SPHERES='21-persist:1024'", "--runs 1 --stages 21,22", 0);
    assert_int_equal(sh("grep -q '^scaling: made the missing scenes: make scenes$' '%s/err'", d), 0);
    assert_int_equal(sh("cd '%s/repo/build/scenes' && test \"$(grep -c '^sphere' random-1k.scene random-10k.scene random-100k.scene "
                        "clustered-1k.scene clustered-10k.scene clustered-100k.scene | paste -sd' ' -)\" = "
                        "'random-1k.scene:1000 random-10k.scene:10000 random-100k.scene:100000 clustered-1k.scene:1000 "
                        "clustered-10k.scene:10000 clustered-100k.scene:100000'", d), 0);
    assert_int_equal(sh("cd '%s/repo/build/scenes' && head -n1 clustered-10k.scene | grep -q 'in clumps' && "
                        "! cmp -s random-10k.scene clustered-10k.scene", d), 0);
    assert_int_equal(sh(ROWS "awk -F, '$12 == \"total\" { print $3, $16, $9 }' | paste -sd, - | grep -qx "
                        "'21-persist benchmark 19,21-persist random-1k 1000,21-persist clustered-1k 1000,22-bvh benchmark 19,"
                        "22-bvh random-1k 1000,22-bvh random-10k 10000,22-bvh random-100k 100000,22-bvh clustered-1k 1000,"
                        "22-bvh clustered-10k 10000,22-bvh clustered-100k 100000'", d), 0);
    assert_int_equal(sh("grep -q '^21-persist random-10k: skipped: .*holds at most 1024' " VERIFY, d), 0);
}

/* ./run.sh --scaling hands over to tools/scaling.sh; the summary's statistics are those of the
 * fake's known values. kernel_events = kernel + 0.5 for kernel 100, 200, 600 (runs 1-3): mean
 * 300.5, median 200.5, sample std sqrt(70000) = 264.575, min 100.5, max 600.5. 22-bvh's build is 1
 * us per sphere; its total 22 x 2210 + build + kernel. 21-persist has no build: empty cells. */
static void test_summary_of_known_values(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    char args[1024];
    snprintf(args, sizeof args, "--scaling --runs 3 --stages 21,22 --scenes scenes/benchmark.scene,%s/s50.scene", d);
    int status = CAMPAIGN(f, "./run.sh --no-build", "FAKE_KERNEL_SERIES='100 200 600' FAKE_BUILD=22-bvh", args);
    if (status != 0) sh("grep -v 'runs done' '%s/err' | sed 's/^/# run.sh --scaling: /' | tail -20", d);
    assert_int_equal(status, 0);
    const char *csv = "results/fake-gpu/scaling/summary.csv";
    assert_int_equal(sh("head -n1 '%s/%s' | grep -qx 'stage,scene,spheres,n,kernel_events_mean,kernel_events_median,"
                        "kernel_events_std,kernel_events_min,kernel_events_max,build_mean,build_median,build_std,build_min,"
                        "build_max,total_mean,total_median,total_std,total_min,total_max'", d, csv), 0);
    const char *lines[] = {
        "21-persist,benchmark,19,3,300.500,200.500,264.575,100.500,600.500,,,,,,46710,46610,264.575,46510,47010",
        "21-persist,s50,50,3,300.500,200.500,264.575,100.500,600.500,,,,,,46710,46610,264.575,46510,47010",
        "22-bvh,benchmark,19,3,300.500,200.500,264.575,100.500,600.500,19,19,0,19,19,48939,48839,264.575,48739,49239",
        "22-bvh,s50,50,3,300.500,200.500,264.575,100.500,600.500,50,50,0,50,50,48970,48870,264.575,48770,49270",
    };
    for (size_t k = 0; k < sizeof lines / sizeof *lines; k++) {
        if (sh("sed -n '%zup' '%s/%s' | grep -qxF '%s'", k + 2, d, csv, lines[k]) != 0) {
            sh("sed 's/^/# summary.csv: /' '%s/%s'", d, csv);
            fail_msg("summary.csv line %zu should read %s", k + 2, lines[k]);
        }
    }
    /* summary.md: stages against scenes (median kernel, ms), then every pair in ms. */
    const char *md = "results/fake-gpu/scaling/summary.md";
    assert_int_equal(sh("grep -qxF '| stage | benchmark (19) | s50 (50) |' '%s/%s' && grep -qxF '| 22-bvh | 0.20 | 0.20 |' '%s/%s'",
                        d, md, d, md), 0);
    assert_int_equal(sh("grep -qF '| 22-bvh | s50 | 50 | 3 | 0.300 | 0.201 | 0.265 | 0.101 | 0.601 | 0.050 | 0.050 | 0.000 | "
                        "0.050 | 0.050 | 48.970 | 48.870 | 0.265 | 48.770 | 49.270 |' '%s/%s'", d, md), 0);
    /* The module, on the same runs. */
    assert_int_equal(sh("cd '%s/tools/runner' && python3 -c \"import summarize as s; "
                        "import runs_file; folder = '%s/results/fake-gpu/scaling'; "
                        "assert runs_file.runs_path(folder) == folder + '/runs.csv.gz', runs_file.runs_path(folder); "
                        "x = s.scaling_summarize(s.load_folder_runs(folder))[('22-bvh', 's50')]; "
                        "assert x['spheres'] == 50 and x['n'] == 3 and x['kernel_events']['median'] == 200.5, x; "
                        "assert s.load_runs(folder + '/runs.csv.gz') == s.load_folder_runs(folder)\"", repo, d), 0);
}

/* scaling.png where matplotlib can be imported (skipped otherwise); without matplotlib's pyplot the
 * summaries are still written and the plot is skipped with a message. */
static void test_plot(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    char args[1024];
    /* A python3 whose matplotlib has no pyplot (DIR/no-pyplot/ first on PYTHONPATH): as without
     * matplotlib. */
    assert_int_equal(sh("mkdir -p '%s/no-pyplot/matplotlib' && "
                        "printf 'def use(*args, **kwargs):\\n    pass\\n' >'%s/no-pyplot/matplotlib/__init__.py'", d, d), 0);
    char env[256];
    snprintf(env, sizeof env, "PYTHONPATH='%s/no-pyplot' FAKE_MAX_SPHERES='21-persist:100'", d);
    three_scenes(f, args, sizeof args, "--runs 2");
    SCALING_STATUS(f, env, args, 0);
    assert_int_equal(sh("grep -q '^plot.py: matplotlib not installed, plots skipped' '%s/err' && "
                        "! grep -q 'plot failed' '%s/err'", d, d), 0);
    assert_int_equal(sh("test -s '%s/results/fake-gpu/scaling/summary.csv' && test -s '%s/results/fake-gpu/scaling/summary.md' && "
                        "test ! -e '%s/results/fake-gpu/scaling/scaling.png'", d, d, d), 0);
    if (sh("python3 -c 'import matplotlib.pyplot' 2>/dev/null") != 0) {
        print_message("skipped: matplotlib is not installed\n");
        skip();
    }
    assert_int_equal(sh("python3 tools/plot.py --scaling '%s/results/fake-gpu/scaling' 2>'%s/err'", d, d), 0);
    assert_int_equal(sh("test ! -s '%s/err'", d), 0);
    assert_int_equal(sh("file '%s/results/fake-gpu/scaling/scaling.png' | grep -q 'PNG image'", d), 0);
    /* And made by the campaign itself. */
    assert_int_equal(sh("rm -rf '%s/results'", d), 0);
    SCALING_STATUS(f, "FAKE_MAX_SPHERES='21-persist:100' FAKE_SPHERE_COST='21-persist:10 22-bvh:2'", args, 0);
    assert_int_equal(sh("file '%s/results/fake-gpu/scaling/scaling.png' | grep -q 'PNG image'", d), 0);
    /* A folder without runs.csv.gz (or runs.csv): one line, status 2. */
    assert_int_equal(sh("python3 tools/plot.py --scaling '%s/bin' 2>'%s/err'", d, d), 2);
    assert_int_equal(sh("test $(wc -l <'%s/err') -eq 1 && grep -q '^plot.py: error: .* holds no runs.csv.gz (or runs.csv)' '%s/err'", d, d), 0);
}

/* tools/update_readmes.py on a repository-like root whose results/reference holds a scaling
 * campaign, committed as runs.csv.gz (tests/fixtures/scaling-runs.csv: 21-persist on benchmark and
 * random-1k, 22-bvh on those and random-10k, 3 runs each, and a failed run): the stages' <!--
 * scaling:begin --> blocks, the <!-- scaling-all:begin --> block, the summaries; then --check names
 * what new data makes stale. */
static void test_update_readmes_scaling_blocks(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    const char *slug = "root/results/reference/nvidia-h100-80gb-hbm3/scaling";
    assert_int_equal(sh("mkdir -p '%s/root/results/reported' '%s/root/docs' '%s/%s' && cp results/reported/*.csv '%s/root/results/reported/' && "
                        "cp -R '%s/stages' '%s/root/' && gzip -9 -n -c tests/fixtures/scaling-runs.csv >'%s/%s/runs.csv.gz' && "
                        "for s in 21-persist 22-bvh 23-gpu; do "
                        "printf '# '$s'\\n\\n## Scaling campaign\\n\\n<!-- scaling:begin -->\\nold\\n<!-- scaling:end -->\\n\\n## Verdict\\ntail\\n' "
                        ">'%s/root/stages/'$s/README.md; done && "
                        "printf '# 20\\n' >'%s/root/stages/20-prev/README.md' && "
                        "printf '# Results\\n\\n## Scenes that grow\\n\\n<!-- scaling-all:begin -->\\n<!-- scaling-all:end -->\\n\\nend\\n' "
                        ">'%s/root/docs/results.md'",
                        d, d, d, slug, d, d, d, d, slug, d, d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check 2>/dev/null", d), 1);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' 2>'%s/err'", d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check", d), 0);
    /* 22-bvh: a row per scene, fewest spheres first: medians, min-max, the median of the stage it
     * builds on (21-persist) and their ratio where it ran the scene, the build's median (ms). */
    const char *bvh = "root/stages/22-bvh/README.md";
    const char *rows[] = {
        "**NVIDIA H100 80GB HBM3** ([raw runs](../../results/reference/nvidia-h100-80gb-hbm3/scaling/runs.csv.gz), "
        "[every statistic](../../results/reference/nvidia-h100-80gb-hbm3/scaling/summary.md)): the kernel timed by CUDA "
        "events beside that of the stage it builds on, 21, in the same campaign, and the build of the "
        "acceleration structure, ms (vs 21: stage 21 time over this stage time):",
        "| scene | spheres | runs | kernel median | kernel min–max | stage 21 kernel median | vs 21 | build median |",
        "|---|---|---|---|---|---|---|---|",
        "| benchmark | 19 | 3 | 5.76 | 5.70–6.02 | 1.47 | 0.26x | 0.02 |",
        "| random-1k | 1,000 | 3 | 36.80 | 36.70–37.00 | 32.90 | 0.89x | 1.92 |",
        "| random-10k | 10,000 | 3 | 99.10 | 99.00–99.50 | – | – | 22.39 |",
    };
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        if (sh("grep -qxF -- '%s' '%s/%s'", rows[k], d, bvh) != 0) {
            sh("sed 's/^/# 22-bvh README: /' '%s/%s'", d, bvh);
            fail_msg("22-bvh's README lacks the line: %s", rows[k]);
        }
    }
    assert_int_equal(sh("grep -c . '%s/%s' | grep -qx 13 && grep -qx tail '%s/%s' && ! grep -qx old '%s/%s'", d, bvh, d, bvh, d, bvh), 0);
    /* The order of the rows, the heading and the text around the block kept. */
    assert_int_equal(sh("grep -A1 -xF '| benchmark | 19 | 3 | 5.76 | 5.70–6.02 | 1.47 | 0.26x | 0.02 |' '%s/%s' | tail -n1 | grep -q '^| random-1k '",
                        d, bvh), 0);
    assert_int_equal(sh("grep -qxF '## Scaling campaign' '%s/%s' && grep -qxF '## Verdict' '%s/%s'", d, bvh, d, bvh), 0);
    /* 21-persist: no build. 23-gpu: no data, the command that makes it. A README without markers:
     * untouched. */
    assert_int_equal(sh("grep -qxF '| random-1k | 1,000 | 3 | 32.90 | 32.80–33.00 | – | – | – |' '%s/root/stages/21-persist/README.md'", d), 0);
    assert_int_equal(sh("grep -qxF 'No scaling campaign of this stage yet: run `./run.sh --scaling --reference` "
                        "(`tools/scaling.sh --help`).' '%s/root/stages/23-gpu/README.md'", d), 0);
    assert_int_equal(sh("test \"$(cat '%s/root/stages/20-prev/README.md')\" = '# 20'", d), 0);
    /* docs/results.md: stages against scenes, and the plot once there is one. */
    const char *results = "root/docs/results.md";
    assert_int_equal(sh("grep -qxF '| stage | benchmark (19) | random-1k (1,000) | random-10k (10,000) |' '%s/%s' && "
                        "grep -qxF '| 21-persist | 1.47 | 32.90 | – |' '%s/%s' && grep -qxF '| 22-bvh | 5.76 | 36.80 | 99.10 |' '%s/%s' && "
                        "grep -qx end '%s/%s'", d, results, d, results, d, results, d, results), 0);
    assert_int_equal(sh("grep -q 'scaling.png' '%s/%s'", d, results), 1);
    assert_int_equal(sh("grep -q '^stage,scene,spheres,n,' '%s/%s/summary.csv' && grep -q '^22-bvh,random-10k,10000,3,' '%s/%s/summary.csv'",
                        d, slug, d, slug), 0);
    assert_int_equal(sh("touch '%s/%s/scaling.png'", d, slug), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check 2>'%s/err'", d, d), 1);
    assert_int_equal(sh("grep -qx 'stale: docs/results.md' '%s/err' && test $(wc -l <'%s/err') -eq 1", d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root'", d), 0);
    assert_int_equal(sh("grep -qxF '![Kernel time against sphere count on NVIDIA H100 80GB HBM3]"
                        "(../results/reference/nvidia-h100-80gb-hbm3/scaling/scaling.png)' '%s/%s'", d, results), 0);
    /* New data: the summaries, 22-bvh's README and docs/results.md are stale; 21-persist's is not.
     */
    assert_int_equal(sh("cd '%s/%s' && zcat runs.csv.gz | sed 's/,kernel_events,36800,us,ok,random-1k$/,kernel_events,36900,us,ok,random-1k/' "
                        "| gzip -9 -n >new.gz && mv new.gz runs.csv.gz", d, slug), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check 2>'%s/err'", d, d), 1);
    assert_int_equal(sh("grep -qx 'stale: stages/22-bvh/README.md' '%s/err' && grep -qx 'stale: docs/results.md' '%s/err' && "
                        "grep -q 'scaling/summary.csv$' '%s/err' && grep -q 'scaling/summary.md$' '%s/err'", d, d, d, d), 0);
    assert_int_equal(sh("grep -q '21-persist' '%s/err'", d), 1);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root'", d), 0);
    assert_int_equal(sh("grep -qxF '| random-1k | 1,000 | 3 | 36.90 | 36.70–37.00 | 32.90 | 0.89x | 1.92 |' '%s/%s'", d, bvh), 0);
}

/* ---- The path-tracing track (tools/scaling.sh --track pt) ------------------------------------ */

/* The rows of the path-tracing track's campaign (pt-scaling/, not scaling/: its runs.csv.gz), as
 * ROWS, and its verify.txt. */
#define PT_ROWS "zcat '%s/results/fake-gpu/pt-scaling/runs.csv.gz' | "
#define PT_VERIFY "'%s/results/fake-gpu/pt-scaling/verify.txt'"

/* A fake path-tracing track beside the fixture's main stages: p11-prev and p12-behind of chapter
 * P3, p13-bvh and p14-nee of chapter P4 (p14-nee with the nee estimator, so that it has a reference
 * image of its own), their fake executables (tests/fixtures/fake-pt-stage.sh) and a fake
 * pt-reference. */
static void add_pt_track(const fixture *f) {
    make_fake_stage(f->stages, "p11-prev", "none", "P3. Fake whole frame", "estimator: path", 0);
    make_fake_stage(f->stages, "p12-behind", "p11-prev", "P3. Fake whole frame", "estimator: path", 0);
    make_fake_stage(f->stages, "p13-bvh", "p12-behind", "P4. Fake scenes that grow", "estimator: path", 0);
    make_fake_stage(f->stages, "p14-nee", "p13-bvh", "P4. Fake scenes that grow", "estimator: nee", 0);
    assert_int_equal(sh("for s in p11-prev p12-behind p13-bvh p14-nee; do cp tests/fixtures/fake-pt-stage.sh '%s/bin/'$s || exit 1; done && "
                        "cp tests/fixtures/fake-pt-reference.sh '%s/bin/pt-reference'", f->dir, f->dir), 0);
}

/* The default path-tracing scenes, small: build/scenes/pt-random-1k, -10k and -100k.scene of the
 * stand-in checkout with 50, 200 and 500 spheres (the floor and two lamps included). */
static void make_pt_scenes(const fixture *f) {
    assert_int_equal(sh("mkdir -p '%s/repo/build/scenes' && cd '%s/repo/build/scenes' && "
                        "python3 '%s/scenes/generate-random.py' 47 --path-tracing --size 16x16 >pt-random-1k.scene && "
                        "python3 '%s/scenes/generate-random.py' 197 --path-tracing --size 16x16 >pt-random-10k.scene && "
                        "python3 '%s/scenes/generate-random.py' 497 --path-tracing --size 16x16 >pt-random-100k.scene",
                        f->dir, f->dir, repo, repo, repo), 0);
}

/* The environment of the path-tracing campaigns: p12-behind holds at most 100 spheres (as p12 holds
 * 1,024), the render loop takes 10100 and 20100 us in runs 1 and 2 (kernel_events 10000 and 20000,
 * rays_per_second 1e8 and 5e7: medians 15 ms and 75 M rays/s), every command line logged. */
#define PT_ENV(env, d) \
    snprintf(env, sizeof env, "FAKE_MAX_SPHERES='p12-behind:100' FAKE_PT_KERNEL_SERIES='10100 20100' FAKE_ARGS_LOG='%s/args'", d)

/* --track pt with the defaults: the stage chapter P4 builds on (p12-behind, not p11-prev) and every
 * P4 stage, on scenes/pt-benchmark.scene and build/scenes/pt-random-{1k,10k,100k}.scene; each pair
 * verified at 64x64 against pt-reference with its manifest's estimator; rows in
 * pt-scaling/runs.csv.gz, summary.md with rays per second; the main track's campaign in the same
 * folder untouched and as before (no rays per second); ./run.sh --scaling --track pt hands over. */
static void test_pt_track(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    add_pt_track(f);
    /* The main track's campaign first, in the same results folder: its default stages are still
     * chapter 4's (no path-tracing stage), its files are kept to compare. */
    char args[1024], env[512];
    three_scenes(f, args, sizeof args, "--runs 1");
    SCALING_STATUS(f, "FAKE_MAX_SPHERES='21-persist:100'", args, 0);
    assert_int_equal(sh(ROWS "awk -F, '$12 == \"total\" { print $3 }' | sort -u | paste -sd' ' - | "
                        "grep -qx '21-persist 22-bvh 23-gpu'", d), 0);
    assert_int_equal(sh("head -n1 '%s/results/fake-gpu/scaling/summary.md' | grep -qx '# Fake GPU: the scaling campaign' && "
                        "! grep -qi 'rays' '%s/results/fake-gpu/scaling/summary.md' '%s/results/fake-gpu/scaling/summary.csv'",
                        d, d, d), 0);
    assert_int_equal(sh("cp -R '%s/results/fake-gpu/scaling' '%s/main-before'", d, d), 0);

    /* Without the default scenes and a Makefile: one line with the path tracer's commands. */
    assert_int_equal(SCALING(f, "", "--track pt --runs 1"), 2);
    if (sh("test $(wc -l <'%s/err') -eq 1 && grep -q \"^scaling: error: cannot make the scenes (.*): run 'make scenes' "
           "(python3 scenes/generate-random.py 997 --path-tracing > build/scenes/pt-random-1k.scene, 9997 --path-tracing > "
           "build/scenes/pt-random-10k.scene, 99997 --path-tracing > build/scenes/pt-random-100k.scene)\" '%s/err'", d, d) != 0) {
        sh("sed 's/^/# scaling: /' '%s/err'", d);
        fail_msg("--track pt without its default scenes: want one line saying how to make them");
    }
    assert_int_equal(sh("test ! -e '%s/results/fake-gpu/pt-scaling'", d), 0);

    make_pt_scenes(f);
    PT_ENV(env, d);
    SCALING_STATUS(f, env, "--track pt --runs 2", 0);
    assert_int_equal(sh(PT_ROWS "head -n1 | grep -qx "
                        "'order,run,stage,host,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit,status,scene'", d), 0);
    assert_int_equal(sh_num(PT_ROWS "awk -F, 'NR > 1 && NF != 16' | wc -l", d), 0);
    /* p12-behind on the two scenes it holds, p13-bvh and p14-nee on all four: 10 pairs, run-major.
     */
    const char *pairs = "p12-behind pt-benchmark,p12-behind pt-random-1k,p13-bvh pt-benchmark,p13-bvh pt-random-100k,"
                        "p13-bvh pt-random-10k,p13-bvh pt-random-1k,p14-nee pt-benchmark,p14-nee pt-random-100k,"
                        "p14-nee pt-random-10k,p14-nee pt-random-1k";
    for (int run = 1; run <= 2; run++) {
        if (sh(PT_ROWS "awk -F, '$12 == \"total\" && $15 == \"ok\" && $1 > %d && $1 <= %d && $2 == %d { print $3 \" \" $16 }'"
               " | LC_ALL=C sort | paste -sd, - | grep -qx '%s'", d, 10 * (run - 1), 10 * run, run, pairs) != 0) {
            sh(PT_ROWS "awk -F, '$12 == \"total\" { print \"# \" $1, $2, $3, $16, $15 }'", d);
            fail_msg("orders %d-%d should be run %d of every (stage, scene) pair of the path-tracing track", 10 * run - 9, 10 * run, run);
        }
    }
    assert_int_equal(sh_num(PT_ROWS "awk -F, '$12 == \"total\"' | wc -l", d), 20);
    /* The spheres the stage reported are the scene's (21, 50, 200, 500). */
    assert_int_equal(sh_num(PT_ROWS "awk -F, 'NR > 1 && !($16 == \"pt-benchmark\" && $9 == 21 || $16 == \"pt-random-1k\" && $9 == 50 || "
                            "$16 == \"pt-random-10k\" && $9 == 200 || $16 == \"pt-random-100k\" && $9 == 500)' | wc -l", d), 0);
    /* Timed runs: the scene's file, --csv, nothing else. */
    assert_int_equal(sh_num("grep -c '^p13-bvh --scene build/scenes/pt-random-100k.scene --csv$' '%s/args'", d), 2);
    assert_int_equal(sh_num("grep -c '^p14-nee --scene scenes/pt-benchmark.scene --csv$' '%s/args'", d), 2);
    /* Verification: every pair at 64x64 (p12-behind's refused ones too), against pt-reference with
     * the estimator of the stage's manifest, one reference image per scene and estimator; never the
     * main track's cpu-reference (whose fake image the fake path-tracing stages do not match). */
    assert_int_equal(sh_num("grep -c '^p1[234]-[a-z]* --scene [^ ]* --size 64x64 --output [^ ]*$' '%s/args'", d), 12);
    assert_int_equal(sh_num("grep -c '^pt-reference --scene [^ ]* --size 64x64 --estimator path --output [^ ]*$' '%s/args'", d), 4);
    assert_int_equal(sh_num("grep -c '^pt-reference --scene [^ ]* --size 64x64 --estimator nee --output [^ ]*$' '%s/args'", d), 4);
    assert_int_equal(sh_num("grep -c '^pt-reference ' '%s/args'", d), 8);
    assert_int_equal(sh_num("grep -c ': ok: .* (estimator path)$' " PT_VERIFY, d), 6);
    assert_int_equal(sh_num("grep -c '^p14-nee [a-z0-9-]*: ok: .* (estimator nee)$' " PT_VERIFY, d), 4);
    assert_int_equal(sh("grep -q '^p12-behind pt-random-10k: skipped: .*200 spheres, but stage p12-behind holds at most 100 (fake)' " PT_VERIFY
                        " && grep -q '^p12-behind pt-random-100k: skipped: ' " PT_VERIFY, d, d), 0);
    assert_int_equal(sh("grep -q 'against build/pt-reference' '%s/err'", d), 0);
    assert_int_equal(sh("grep -q '^scene: pt-random-10k = build/scenes/pt-random-10k.scene (200 spheres)$' "
                        "'%s/results/fake-gpu/pt-scaling/env.txt'", d), 0);
    /* The summaries: a path-tracing campaign, with rays per second. */
    const char *md = "results/fake-gpu/pt-scaling/summary.md";
    assert_int_equal(sh("head -n1 '%s/%s' | grep -qx '# Fake GPU: the path-tracing scaling campaign'", d, md), 0);
    const char *md_lines[] = {
        "| stage | pt-benchmark (21) | pt-random-1k (50) | pt-random-10k (200) | pt-random-100k (500) |",
        "| p12-behind | 15.00 | 15.00 | – | – |",
        "| p13-bvh | 75.0 | 75.0 | 75.0 | 75.0 |",
    };
    for (size_t k = 0; k < sizeof md_lines / sizeof *md_lines; k++) {
        if (sh("grep -qxF -- '%s' '%s/%s'", md_lines[k], d, md) != 0) {
            sh("sed 's/^/# summary.md: /' '%s/%s'", d, md);
            fail_msg("the path-tracing summary.md lacks the line: %s", md_lines[k]);
        }
    }
    assert_int_equal(sh("grep -q '^## Rays per second against the scene' '%s/%s' && "
                        "grep -q '^| p14-nee | pt-random-1k | 50 | 2 | .* | 75.0 |$' '%s/%s'", d, md, d, md), 0);
    assert_int_equal(sh("head -n1 '%s/results/fake-gpu/pt-scaling/summary.csv' | "
                        "grep -q ',total_max,rays_per_second_mean,rays_per_second_median,rays_per_second_std,"
                        "rays_per_second_min,rays_per_second_max$'", d), 0);
    assert_int_equal(sh("grep -q '^p13-bvh,pt-random-10k,200,2,15000,15000,' '%s/results/fake-gpu/pt-scaling/summary.csv'", d), 0);
    if (sh("python3 -c 'import matplotlib.pyplot' 2>/dev/null") == 0)
        assert_int_equal(sh("file '%s/results/fake-gpu/pt-scaling/scaling.png' | grep -q 'PNG image'", d), 0);
    /* The main track's campaign: not a file changed, no path-tracing row in it. */
    assert_int_equal(sh("diff -r '%s/main-before' '%s/results/fake-gpu/scaling'", d, d), 0);
    assert_int_equal(sh(ROWS "grep -q ',p1[0-9]-'", d), 1);

    /* Through run.sh, the options handed over; --stages names the track's stages. */
    assert_int_equal(sh("rm -rf '%s/results/fake-gpu/pt-scaling'", d), 0);
    int status = CAMPAIGN(f, "./run.sh --no-build", env, "--scaling --track pt --runs 1 --stages p13");
    if (status != 0) sh("grep -v 'runs done' '%s/err' | sed 's/^/# run.sh --scaling --track pt: /' | tail -20", d);
    assert_int_equal(status, 0);
    assert_int_equal(sh(PT_ROWS "awk -F, '$12 == \"total\" && $15 == \"ok\" { print $3, $16 }' | LC_ALL=C sort | paste -sd, - | "
                        "grep -qx 'p13-bvh pt-benchmark,p13-bvh pt-random-100k,p13-bvh pt-random-10k,p13-bvh pt-random-1k'", d), 0);
    assert_int_equal(sh("diff -r '%s/main-before' '%s/results/fake-gpu/scaling'", d, d), 0);
}

/* README.md's headline: beside the benchmark's figures, chapter 4 on the scene of most spheres
 * that two of its stages were timed on, its first stage against its fastest there. 23-gpu, timed
 * on 10,000 spheres at 50.0 ms (median) and on 1,000 at 20.0, against 22-bvh's 99.1 ms on 10,000:
 * 2.0x; a later, slower stage (24-slow, 80.0 ms) is not the one named. With only one stage of
 * the chapter timed on a scene, no such sentence. The ratio only where the two were timed in one
 * campaign: runs interleaved with 22-bvh's (their order among its) on its GPU; the same runs on
 * another GPU are another campaign, and the sentence gives the two times and no ratio. */
static void test_update_readmes_headline_of_chapter_4(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    const char *gpu = "root/results/reference/nvidia-h100-80gb-hbm3";
    const char *header = "order,run,stage,host,gpu,gpu_uuid,width,height,spheres,block,"
                         "host_memory,metric,value,unit,status";
    const char *run = "host1,NVIDIA H100 80GB HBM3,GPU-fake-0,8192,8192";
    assert_int_equal(sh("mkdir -p '%s/root/results/reported' '%s/%s/scaling' && "
                        "cp results/reported/*.csv '%s/root/results/reported/' && "
                        "cp -R '%s/stages' '%s/root/' && mkdir '%s/root/stages/24-slow' && "
                        "printf 'lesson: slow\\nbuilds-on: 23-gpu\\nchapter: 4. Scenes that grow\\n' "
                        ">'%s/root/stages/24-slow/manifest' && "
                        "printf '# Course\\n\\n<!-- headline:begin -->\\nold\\n"
                        "<!-- headline:end -->\\n' >'%s/root/README.md'",
                        d, d, gpu, d, d, d, d, d, d), 0);
    assert_int_equal(sh("{ echo '%s'; for s in 20-prev 21-persist; do for r in 1 2 3; do "
                        "for m in total:30000 kernel_events:2000; do "
                        "echo \"$r,$r,$s,%s,19,32x8,pageable,${m%%%%:*},${m#*:},us,ok\"; "
                        "done; done; done; } | gzip -n >'%s/%s/runs.csv.gz' && "
                        "gzip -n -c tests/fixtures/scaling-runs.csv >'%s/%s/scaling/runs.csv.gz'",
                        header, run, d, gpu, d, gpu), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' 2>'%s/err'", d, d), 0);
    assert_int_equal(sh("grep -q 'Chapter 4' '%s/root/README.md'", d), 1);
    for (int elsewhere = 0; elsewhere <= 1; elsewhere++) {
        /* Orders 2 to 6, among 22-bvh's (1 to 16 in the fixture). */
        assert_int_equal(sh("{ cat tests/fixtures/scaling-runs.csv; r=1; "
                            "for row in 23-gpu:10000:random-10k:50000 23-gpu:10000:random-10k:50100 "
                            "23-gpu:10000:random-10k:49900 23-gpu:1000:random-1k:20000 "
                            "24-slow:10000:random-10k:80000; do set -- $(echo $row | tr : ' '); "
                            "r=$((r + 1)); echo \"$r,1,$1,%s,$2,32x8,pageable,kernel_events,$4,us,ok,"
                            "$3\"; done; } | sed '%s' | gzip -n >'%s/%s/scaling/runs.csv.gz'", run,
                            elsewhere ? "/,2[34]-/s/GPU-fake-0/GPU-fake-1/" : "", d, gpu), 0);
        assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' 2>'%s/err'", d, d), 0);
        const char *expected = elsewhere ? "(two campaigns, of B and A: no ratio)." : "(2.0x).";
        if (sh("grep -qF 'Chapter 4, 10,000 spheres (the scaling campaign): stage 23'\\''s kernel "
               "in 50.0 ms against stage 22'\\''s 99.1 ms %s' '%s/root/README.md'", expected, d) != 0) {
            sh("sed 's/^/# README: /' '%s/root/README.md'", d);
            fail_msg("the headline lacks chapter 4's sentence ending %s", expected);
        }
    }
}

/* tools/update_readmes.py on a root whose results/reference holds a path-tracing scaling campaign
 * (pt-scaling/, made here by tools/scaling.sh --track pt) and no main-track one: a p-stage's
 * <!-- scaling:begin --> block from pt-scaling/ (with rays/s), the <!-- pt-scaling-all:begin -->
 * block of docs/path-tracing.md, the index; the main track's blocks say it has no campaign. */
static void test_update_readmes_pt_scaling(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    const char *d = f->dir;
    add_pt_track(f);
    make_pt_scenes(f);
    char env[512];
    PT_ENV(env, d);
    SCALING_STATUS(f, env, "--track pt --runs 2", 0);
    const char *slug = "root/results/reference/fake-gpu/pt-scaling";
    assert_int_equal(sh("mkdir -p '%s/root/results/reported' '%s/root/docs' '%s/root/results/reference/fake-gpu' && "
                        "cp results/reported/*.csv '%s/root/results/reported/' && cp -R '%s/stages' '%s/root/' && "
                        "cp -R '%s/results/fake-gpu/pt-scaling' '%s/%s' && rm -f '%s/%s/scaling.png' && "
                        "for s in p11-prev p12-behind p13-bvh p14-nee 22-bvh; do "
                        "printf '# '$s'\\n\\n## Scaling campaign\\n\\n<!-- scaling:begin -->\\nold\\n<!-- scaling:end -->\\n\\ntail\\n' "
                        ">'%s/root/stages/'$s/README.md; done && "
                        "printf '# Path tracing\\n\\n## Scenes that grow\\n\\n<!-- pt-scaling-all:begin -->\\n<!-- pt-scaling-all:end -->\\n\\nend\\n' "
                        ">'%s/root/docs/path-tracing.md' && "
                        "printf '# Results\\n\\n<!-- scaling-all:begin -->\\n<!-- scaling-all:end -->\\n' >'%s/root/docs/results.md' && "
                        "printf '# Course\\n\\n<!-- index:begin -->\\n<!-- index:end -->\\n' >'%s/root/README.md'",
                        d, d, d, d, d, d, d, d, slug, d, slug, d, d, d, d), 0);
    /* A benchmark campaign on the same GPU (the index's reference GPU) that timed p12-behind only:
     * its pt-benchmark runs, without the scene column. */
    assert_int_equal(sh("zcat '%s/%s/runs.csv.gz' | awk -F, 'NR == 1 || $3 == \"p12-behind\" && $16 == \"pt-benchmark\"' | "
                        "cut -d, -f1-15 | gzip -9 -n >'%s/root/results/reference/fake-gpu/runs.csv.gz'", d, slug, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check 2>/dev/null", d), 1);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' 2>'%s/err'", d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check", d), 0);
    /* p13-bvh: a row per scene, beside p12-behind where it ran, with rays/s. */
    const char *bvh = "root/stages/p13-bvh/README.md";
    const char *rows[] = {
        "**Fake GPU** ([raw runs](../../results/reference/fake-gpu/pt-scaling/runs.csv.gz), "
        "[every statistic](../../results/reference/fake-gpu/pt-scaling/summary.md)): the kernel timed by CUDA "
        "events beside that of the stage it builds on, p12, in the same campaign, and the build of the "
        "acceleration structure, ms (vs p12: stage p12 time over this stage time), and its rays per second "
        "(rays/s median: millions of rays a second, the rays traced over the kernel time by CUDA events):",
        "| scene | spheres | runs | kernel median | kernel min–max | stage p12 kernel median | vs p12 | build median | rays/s median |",
        "| pt-benchmark | 21 | 2 | 15.00 | 10.00–20.00 | 15.00 | 1.00x | – | 75.0 |",
        "| pt-random-1k | 50 | 2 | 15.00 | 10.00–20.00 | 15.00 | 1.00x | – | 75.0 |",
        "| pt-random-10k | 200 | 2 | 15.00 | 10.00–20.00 | – | – | – | 75.0 |",
        "| pt-random-100k | 500 | 2 | 15.00 | 10.00–20.00 | – | – | – | 75.0 |",
        "<!-- generated by tools/update_readmes.py from results/reference/*/pt-scaling/runs.csv.gz (tools/scaling.sh --track pt); do not edit by hand -->",
    };
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        if (sh("grep -qxF -- '%s' '%s/%s'", rows[k], d, bvh) != 0) {
            sh("sed 's/^/# p13-bvh README: /' '%s/%s'", d, bvh);
            fail_msg("p13-bvh's README lacks the line: %s", rows[k]);
        }
    }
    assert_int_equal(sh("grep -qx tail '%s/%s' && ! grep -qx old '%s/%s'", d, bvh, d, bvh), 0);
    /* A p-stage without runs: the path-tracing campaign's command; a main stage: the main one's. */
    assert_int_equal(sh("grep -qxF 'No scaling campaign of this stage yet: run `./run.sh --scaling --track pt --reference` "
                        "(`tools/scaling.sh --help`).' '%s/root/stages/p11-prev/README.md'", d), 0);
    assert_int_equal(sh("grep -qxF 'No scaling campaign of this stage yet: run `./run.sh --scaling --reference` "
                        "(`tools/scaling.sh --help`).' '%s/root/stages/22-bvh/README.md'", d), 0);
    /* docs/path-tracing.md: kernel times and rays/s of every stage on every scene;
     * docs/results.md's
     * block is the main track's, which has no campaign here. */
    const char *pt_doc = "root/docs/path-tracing.md";
    const char *doc_lines[] = {
        "**Fake GPU** ([raw runs](../results/reference/fake-gpu/pt-scaling/runs.csv.gz), "
        "[every statistic](../results/reference/fake-gpu/pt-scaling/summary.md)): median kernel time (the render loop) "
        "by CUDA events, ms, of each stage (rows) on each scene (columns, its spheres in brackets); – where the stage "
        "was not timed on the scene (it holds fewer spheres: `verify.txt`):",
        "| stage | pt-benchmark (21) | pt-random-1k (50) | pt-random-10k (200) | pt-random-100k (500) |",
        "| p12-behind | 15.00 | 15.00 | – | – |",
        "| p12-behind | 75.0 | 75.0 | – | – |",
        "| p14-nee | 75.0 | 75.0 | 75.0 | 75.0 |",
        "end",
    };
    for (size_t k = 0; k < sizeof doc_lines / sizeof *doc_lines; k++) {
        if (sh("grep -qxF -- '%s' '%s/%s'", doc_lines[k], d, pt_doc) != 0) {
            sh("sed 's/^/# path-tracing.md: /' '%s/%s'", d, pt_doc);
            fail_msg("docs/path-tracing.md lacks the line: %s", doc_lines[k]);
        }
    }
    assert_int_equal(sh("grep -q 'scaling.png' '%s/%s'", d, pt_doc), 1);
    assert_int_equal(sh("grep -qxF 'No scaling campaign yet: run `./run.sh --scaling --reference` (`tools/scaling.sh --help`).' "
                        "'%s/root/docs/results.md' && ! grep -q 'pt-' '%s/root/docs/results.md'", d, d), 0);
    /* The index: p13-bvh, which no benchmark campaign has timed, from its track's scaling campaign.
     */
    if (sh("grep -qxF '| [p13-bvh](stages/p13-bvh/README.md) | the fake p13-bvh | kernel 1.00x on 50 spheres "
           "(scaling campaign) | pt-scaling A |' '%s/root/README.md'", d) != 0) {
        sh("sed 's/^/# README.md: /' '%s/root/README.md'", d);
        fail_msg("README.md's index should give p13-bvh's kernel against p12-behind's from the scaling campaign");
    }
    assert_int_equal(sh("head -n1 '%s/%s/summary.md' | grep -qx '# Fake GPU: the path-tracing scaling campaign'", d, slug), 0);
    /* The plot once there is one. */
    assert_int_equal(sh("touch '%s/%s/scaling.png'", d, slug), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check 2>'%s/err'", d, d), 1);
    assert_int_equal(sh("grep -qx 'stale: docs/path-tracing.md' '%s/err' && test $(wc -l <'%s/err') -eq 1", d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root'", d), 0);
    assert_int_equal(sh("grep -qxF '![Path tracing: kernel time against sphere count on Fake GPU]"
                        "(../results/reference/fake-gpu/pt-scaling/scaling.png)' '%s/%s'", d, pt_doc), 0);
    /* New data of p13-bvh: its README, docs/path-tracing.md and the summaries are stale;
     * p12-behind's is not. */
    assert_int_equal(sh("cd '%s/%s' && zcat runs.csv.gz | sed '/,p13-bvh,.*,kernel_events,10000.0,us,ok,pt-random-10k$/s/,10000.0,us,/,12000.0,us,/' "
                        "| gzip -9 -n >new.gz && mv new.gz runs.csv.gz", d, slug), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check 2>'%s/err'", d, d), 1);
    assert_int_equal(sh("grep -qx 'stale: stages/p13-bvh/README.md' '%s/err' && grep -qx 'stale: docs/path-tracing.md' '%s/err' && "
                        "grep -q 'pt-scaling/summary.csv$' '%s/err' && grep -q 'pt-scaling/summary.md$' '%s/err' && "
                        "! grep -q 'p12-behind' '%s/err'", d, d, d, d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root'", d), 0);
    assert_int_equal(sh("grep -qxF '| pt-random-10k | 200 | 2 | 16.00 | 12.00–20.00 | – | – | – | 75.0 |' '%s/%s'", d, bvh), 0);
}

int main(void) {
    if (!getcwd(repo, sizeof repo)) return 1;
    char smi[PATH_MAX + 64];
    snprintf(smi, sizeof smi, "%s/tests/fixtures/fake-nvidia-smi.sh", repo);
    setenv("RUN_NVIDIA_SMI", smi, 1);
    unsetenv("RUN_BIN_DIR");
    unsetenv("STAGES_DIR");
    const char *tools[] = {"parallel", "python3", "flock", "timeout", "awk", "make"};
    missing_tool = missing_tool_among(tools, sizeof tools / sizeof *tools);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_interleaved_runs_and_scene_column, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_scene_skipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_after_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_after_interrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_options, setup, teardown),
        cmocka_unit_test_setup_teardown(test_default_scenes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summary_of_known_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_readmes_scaling_blocks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_readmes_headline_of_chapter_4, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pt_track, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_readmes_pt_scaling, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
