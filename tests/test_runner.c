/* Tests of the timing campaign runner (run.sh and the tools/ scripts) against fake stages, a fake
 * nvidia-smi and a fake ssh (tests/fixtures/): no GPU needed. Run from the repository root. */
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

#include <cmocka.h>

#define CMD_MAX 8192

static char repo[PATH_MAX];
static const char *missing_tool; /* a tool run.sh needs that this machine lacks, or NULL */

#define REQUIRE_TOOLS()                                                         \
    do {                                                                        \
        if (missing_tool) {                                                     \
            print_message("skipped: %s is not installed\n", missing_tool);      \
            skip();                                                             \
        }                                                                       \
    } while (0)

typedef struct {
    char dir[64]; /* the test's temporary folder */
} fixture;

/* Runs a shell command built like printf from the repository root; returns its exit status. */
static int sh(const char *fmt, ...) {
    char cmd[CMD_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The number a shell command prints (-1 when it prints none). */
static long sh_num(const char *fmt, ...) {
    char cmd[CMD_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    long value = -1;
    if (p) {
        if (fscanf(p, "%ld", &value) != 1) value = -1;
        pclose(p);
    }
    return value;
}

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    strcpy(f->dir, "/tmp/test-runner-XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    const char *fx = "tests/fixtures";
    if (sh("mkdir -p %s/bin && for s in 01-base 02-static; do cp %s/fake-stage.sh %s/bin/$s; done && "
           "cp %s/fake-cpu-reference.sh %s/bin/cpu-reference && cp %s/fake-compare-images.sh %s/bin/compare-images",
           f->dir, fx, f->dir, fx, f->dir, fx, f->dir) != 0)
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

/* run.sh with the fake stages; ENV and ARGS are added; stdout/stderr go to DIR/out, DIR/err. */
#define RUN(f, env, args) \
    sh("cd '%s' && %s ./run.sh --no-build --bin-dir '%s/bin' --out '%s/results' %s >'%s/out' 2>'%s/err'", \
       repo, env, (f)->dir, (f)->dir, args, (f)->dir, (f)->dir)

/* RUN that must succeed; on failure what run.sh printed is shown before the assertion fails. */
#define RUN_OK(f, env, args)                                                                      \
    do {                                                                                          \
        int run_status_ = RUN(f, env, args);                                                      \
        if (run_status_ != 0)                                                                     \
            sh("sed 's/^/# run.sh: /' '%s/err' | tail -40", (f)->dir);                            \
        assert_int_equal(run_status_, 0);                                                         \
    } while (0)

/* The campaign's runs.csv in a test's folder. */
#define RUNS "'%s/results/fake-gpu/runs.csv'"

static void test_bad_options(void **state) {
    REQUIRE_TOOLS();
    fixture *f = *state;
    assert_int_equal(RUN(f, "", "--bogus"), 2);
    assert_int_equal(sh("grep -q '^usage: ./run.sh' '%s/err'", f->dir), 0);
    assert_int_equal(RUN(f, "", "--runs abc"), 2);
    assert_int_equal(RUN(f, "", "--stages x"), 2);
    assert_int_equal(RUN(f, "", "--gpus"), 2);
    assert_int_equal(sh("grep -q 'usage' '%s/err'", f->dir), 0);
    assert_int_equal(RUN(f, "", "--help"), 0);
    assert_int_equal(sh("grep -q '^usage: ./run.sh' '%s/out'", f->dir), 0);
}

static void test_statistics_by_hand(void **state) {
    REQUIRE_TOOLS();
    fixture *f = *state;
    /* kernel over 5 runs: 100 200 300 400 1000 -> mean 400, median 300,
     * sample std sqrt((300^2+200^2+100^2+0+600^2)/4) = sqrt(125000) = 353.553, min 100, max 1000. */
    assert_int_equal(RUN(f, "FAKE_KERNEL_SERIES='100 200 300 400 1000'", "--runs 5 --stages 1 --no-verify"), 0);
    assert_int_equal(sh("grep -qx '01-base,kernel,us,5,400,300,353.553,100,1000' '%s/results/fake-gpu/summary.csv'",
                        f->dir), 0);
    /* total = 1000+100+500+kernel+400+10+200 = 2210 + kernel */
    assert_int_equal(sh("grep -qx '01-base,total,us,5,2610,2510,353.553,2310,3210' '%s/results/fake-gpu/summary.csv'",
                        f->dir), 0);
    /* The module itself, on the same series. */
    assert_int_equal(sh("cd '%s/tools' && python3 -c \"import summarize as s; r = s.stats([100, 200, 300, 400, 1000]); "
                        "assert r == {'n': 5, 'mean': 400, 'median': 300, 'std': 125000 ** 0.5, 'min': 100, 'max': 1000}, r\"",
                        repo), 0);
    assert_int_equal(sh("grep -q '^| CUDA kernel \\[µs\\] | 400 |$' '%s/results/fake-gpu/summary.md'", f->dir), 0);
}

static void test_two_gpus_never_shared(void **state) {
    REQUIRE_TOOLS();
    fixture *f = *state;
    char env[512];
    snprintf(env, sizeof env, "FAKE_GPU_COUNT=2 FAKE_LOG='%s' FAKE_SLEEP=0.2", f->dir);
    assert_int_equal(RUN(f, env, "--runs 4 --gpus 0,1 --no-verify"), 0);
    assert_int_equal(sh("! grep -q CONFLICT '%s/events'", f->dir), 0);
    assert_int_equal(sh("grep -q '^gpu 0 ' '%s/events' && grep -q '^gpu 1 ' '%s/events'", f->dir, f->dir), 0);
    assert_int_equal(sh("grep -q '^overlap' '%s/events'", f->dir), 0); /* the two GPUs did work at once */
    assert_int_equal(sh("test -s '%s/results/fake-gpu/joblog.txt'", f->dir), 0);
    /* interleaved: order 1 and 2 are run 1 of 01 and of 02 */
    assert_int_equal(sh("awk -F, '$12 == \"total\" && $1 <= 2 { print $2 $3 }' " RUNS " | sort | paste -sd' ' - "
                        "| grep -qx '101-base 102-static'", f->dir), 0);
}

static void test_hosts_gather_results(void **state) {
    REQUIRE_TOOLS();
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
        assert_int_equal(sh_num("awk -F, -v h=%s '$12 == \"total\" && $15 == \"ok\" && $4 == h' "
                                "'%s/results/%s/runs.csv' | wc -l", host, f->dir, slug), 4);
        assert_int_equal(sh("test -s '%s/results/%s/summary.csv' && test -s '%s/results/%s/env.txt'",
                            f->dir, slug, f->dir, slug), 0);
    }
    assert_int_equal(sh("grep -q 'Fake hostB GPU' '%s/results/README.md'", f->dir), 0);
}

/* awk printing how many (stage, run) pairs among the rows matching COND lack the 17 rows of a
 * complete run (the fake stage's metrics, no --output). */
#define INCOMPLETE(cond) \
    "awk -F, '" cond " { n[$3 \" \" $2]++ } END { bad = 0; for (k in n) if (n[k] != 17) bad++; print bad }' "

/* Every (stage, run) pair has exactly one complete ok run. */
static void assert_runs_exact(const fixture *f, long pairs) {
    assert_int_equal(sh_num(INCOMPLETE("NR > 1 && $15 == \"ok\"") RUNS, f->dir), 0);
    assert_int_equal(sh_num("awk -F, '$12 == \"total\" && $15 == \"ok\"' " RUNS " | wc -l", f->dir), pairs);
    assert_int_equal(sh_num("awk -F, '$12 == \"total\" && $15 == \"ok\" { print $3, $2 }' " RUNS " | sort -u | wc -l",
                            f->dir), pairs);
    assert_int_equal(sh_num("awk -F, '$15 == \"failed\"' " RUNS " | wc -l", f->dir), 0);
}

static void test_resume_after_failure(void **state) {
    REQUIRE_TOOLS();
    fixture *f = *state;
    assert_int_equal(RUN(f, "FAKE_FAIL='02-static:2'", "--runs 3"), 1);
    assert_int_equal(sh("grep -q '02-static run 2: exit status 1' '%s/err'", f->dir), 0);
    assert_int_equal(RUN(f, "", "--runs 3"), 2); /* refuses to overwrite without --resume */
    assert_int_equal(RUN(f, "", "--runs 4 --resume"), 0);
    assert_runs_exact(f, 8);
    assert_int_equal(sh_num("grep -c ',failed$' '%s/results/fake-gpu/failed-runs.csv'", f->dir), 1);
}

static void test_resume_after_interrupt(void **state) {
    REQUIRE_TOOLS();
    fixture *f = *state;
    char cmd[CMD_MAX];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && FAKE_SLEEP=0.3 exec ./run.sh --no-build --bin-dir '%s/bin' --out '%s/results' --runs 6 "
             "--no-verify >'%s/out' 2>'%s/err'", repo, f->dir, f->dir, f->dir, f->dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    for (int i = 0; i < 200; i++) { /* until 3 runs are recorded (at most 20 s) */
        if (sh_num("awk -F, '$12 == \"total\"' " RUNS " 2>/dev/null | wc -l", f->dir) >= 3) break;
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    kill(-pid, SIGINT); /* what Ctrl-C does */
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    long done = sh_num("awk -F, '$12 == \"total\"' " RUNS " | wc -l", f->dir);
    assert_true(done >= 3 && done < 12);
    assert_int_equal(sh_num(INCOMPLETE("NR > 1") RUNS, f->dir), 0); /* no half-written run */
    assert_int_equal(RUN(f, "", "--runs 6 --resume --no-verify"), 0);
    assert_runs_exact(f, 12);
}

static void test_failed_hung_garbage_runs(void **state) {
    REQUIRE_TOOLS();
    fixture *f = *state;
    assert_int_equal(RUN(f, "FAKE_HANG='01-base:1' FAKE_GARBAGE='02-static:1' FAKE_FAIL='01-base:2'",
                         "--runs 3 --timeout 2 --no-verify"), 1);
    assert_int_equal(sh("grep -q '01-base run 1: timeout after 2s' '%s/err'", f->dir), 0);
    assert_int_equal(sh("grep -q '02-static run 1: output is not the stage CSV' '%s/err'", f->dir), 0);
    assert_int_equal(sh("grep -q '01-base run 2: exit status 1' '%s/err'", f->dir), 0);
    assert_int_equal(sh_num("awk -F, '$15 == \"failed\"' " RUNS " | wc -l", f->dir), 3);
    assert_int_equal(sh_num("awk -F, '$12 == \"total\" && $15 == \"ok\"' " RUNS " | wc -l", f->dir), 3);
    assert_int_equal(sh("test -s '%s/results/fake-gpu/logs/01-base-run1.log'", f->dir), 0);
}

static void test_verification_failure_not_timed(void **state) {
    REQUIRE_TOOLS();
    fixture *f = *state;
    assert_int_equal(RUN(f, "FAKE_BAD_IMAGE=02-static", "--runs 2"), 1);
    assert_int_equal(sh("grep -q '02-static FAILED verification' '%s/err'", f->dir), 0);
    assert_int_equal(sh("grep -q '^02-static: FAILED' '%s/results/fake-gpu/verify.txt'", f->dir), 0);
    assert_int_equal(sh_num("awk -F, '$3 == \"02-static\"' " RUNS " | wc -l", f->dir), 0);
    assert_int_equal(sh_num("awk -F, '$12 == \"total\" && $3 == \"01-base\"' " RUNS " | wc -l", f->dir), 2);
}

static void test_update_readmes_check(void **state) {
    REQUIRE_TOOLS();
    fixture *f = *state;
    const char *d = f->dir;
    assert_int_equal(sh("mkdir -p '%s/root/stages/01-base' '%s/root/stages/02-static' && cp -r '%s/results' '%s/root/' 2>/dev/null; "
                        "mkdir -p '%s/root/results/reported' && cp results/reported/*.csv '%s/root/results/reported/' && "
                        "printf '# Course\\n<!-- results:begin -->\\nold\\n<!-- results:end -->\\ntail\\n' >'%s/root/README.md' && "
                        "printf '# 01\\n<!-- results:begin -->\\n<!-- results:end -->\\n' >'%s/root/stages/01-base/README.md' && "
                        "printf '# 02 without markers\\n' >'%s/root/stages/02-static/README.md'",
                        d, d, d, d, d, d, d, d, d), 0);
    assert_int_equal(sh("cd '%s' && FAKE_KERNEL_SERIES='100 300' ./run.sh --no-build --bin-dir '%s/bin' "
                        "--out '%s/root/results' --runs 2 --no-verify 2>/dev/null", repo, d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' 2>'%s/err'", d, d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check", d), 0);
    assert_int_equal(sh("grep -q '^| CUDA kernel \\[µs\\] | 200 | 200 |$' '%s/root/README.md' && grep -qx tail '%s/root/README.md'",
                        d, d), 0);
    assert_int_equal(sh("grep -q '^| CUDA kernel | – | 200 |' '%s/root/stages/01-base/README.md'", d), 0);
    assert_int_equal(sh("grep -qx '# 02 without markers' '%s/root/stages/02-static/README.md' && "
                        "test \"$(wc -l <'%s/root/stages/02-static/README.md')\" -eq 1", d, d), 0);
    assert_int_equal(sh("grep -q 'PSeasword/CUDAOptimizedRayTracer' '%s/root/results/README.md'", d), 0);
    /* New data: every generated file is now stale and --check names them. */
    assert_int_equal(sh("sed -i 's/,kernel,100,us,ok$/,kernel,500,us,ok/' '%s/root/results/fake-gpu/runs.csv'", d), 0);
    assert_int_equal(sh("python3 tools/update_readmes.py --root '%s/root' --check 2>'%s/err'", d, d), 1);
    assert_int_equal(sh("grep -q 'stale: README.md' '%s/err' && grep -q 'stages/01-base/README.md' '%s/err' && "
                        "grep -q 'summary.csv' '%s/err'", d, d, d), 0);
    assert_int_equal(sh("grep -q '02-static' '%s/err'", d), 1);
}

int main(void) {
    if (!getcwd(repo, sizeof repo)) return 1;
    char smi[PATH_MAX + 64];
    snprintf(smi, sizeof smi, "%s/tests/fixtures/fake-nvidia-smi.sh", repo);
    setenv("RUN_NVIDIA_SMI", smi, 1);
    unsetenv("RUN_BIN_DIR");
    const char *tools[] = {"parallel", "python3", "flock", "timeout", "base64", "tar", "awk"};
    for (size_t i = 0; i < sizeof tools / sizeof *tools && !missing_tool; i++)
        if (sh("command -v %s >/dev/null 2>&1", tools[i]) != 0) missing_tool = tools[i];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bad_options, setup, teardown),
        cmocka_unit_test_setup_teardown(test_statistics_by_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_gpus_never_shared, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hosts_gather_results, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_after_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_after_interrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_hung_garbage_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verification_failure_not_timed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_readmes_check, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
