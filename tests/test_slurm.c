/* Tests of tools/slurm-campaign.sh, the timing campaign on the nodes of a Slurm cluster, without
 * Slurm and without a GPU: stand-ins for sbatch, srun and scontrol (tests/fixtures/fake-sbatch.sh,
 * fake-srun.sh, fake-slurm-scontrol.sh) on PATH, fake stages and a fake nvidia-smi as in
 * test_runner.c. The fake sbatch logs its arguments and, with FAKE_SBATCH_RUN=1, runs the batch
 * script at once with SLURM_JOB_ID=4242 and SLURM_JOB_NODELIST=node[1-N]; the fake srun runs a
 * step here with a GPU named after its node. What the test needs of run.sh: --no-build,
 * --bin-dir, --out, --runs, --stages N,M (main stages N and M only), --resume, --hosts and
 * RUN_SSH, RUN_NVIDIA_SMI, and its stage folders stages/01-* and stages/02-*. Run from the
 * repository root. (Two nodes and --resume need the stand-ins; tests/test_local_slurm.c runs one
 * node's campaign through a real Slurm, where one can run.) */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static char repo[PATH_MAX];
static const char *missing_tool; /* a tool the campaign needs that this machine lacks, or NULL */

typedef struct {
    char dir[64]; /* the test's temporary folder: slurm-bin/ (the fakes), bin/ (fake stages), work/ */
    char env[1024]; /* the environment words every command gets: PATH with the fakes, the log */
} fixture;

#define SCRIPT "tools/slurm-campaign.sh"

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    snprintf(f->dir, sizeof f->dir, "%s", make_temporary_folder());
    struct command_result *r = run_shell(
        "cd '%s' && d='%s' && mkdir -p \"$d/slurm-bin\" \"$d/bin\" && "
        "ln -s \"$PWD/tests/fixtures/fake-sbatch.sh\" \"$d/slurm-bin/sbatch\" && "
        "ln -s \"$PWD/tests/fixtures/fake-srun.sh\" \"$d/slurm-bin/srun\" && "
        "ln -s \"$PWD/tests/fixtures/fake-slurm-scontrol.sh\" \"$d/slurm-bin/scontrol\" && "
        /* fake executables for main stages 01 and 02, under the names of their folders */
        "for s in stages/01-* stages/02-*; do cp tests/fixtures/fake-stage.sh \"$d/bin/${s#stages/}\"; done && "
        "cp tests/fixtures/fake-cpu-reference.sh \"$d/bin/cpu-reference\" && "
        "cp tests/fixtures/fake-compare-images.sh \"$d/bin/compare-images\"",
        repo, f->dir);
    if (r->exit_code != 0) {
        print_message("# setup failed: %s\n", r->err);
        return -1;
    }
    snprintf(f->env, sizeof f->env, "PATH='%s/slurm-bin':\"$PATH\" FAKE_SLURM_LOG='%s/log'", f->dir, f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    remove_temporary_folder(f->dir);
    free(f);
    return 0;
}

/* tools/slurm-campaign.sh ARGS from the repository root, with the fixture's environment and ENV. */
static struct command_result *campaign(const fixture *f, const char *env, const char *args) {
    return run_shell("cd '%s' && %s %s " SCRIPT " %s", repo, f->env, env, args);
}

/* Shows what a command printed when it did not end as expected. */
static void assert_status(const struct command_result *r, int expected) {
    if (r->exit_code != expected)
        print_message("# exit status %d, stdout:\n%.3000s\n# stderr:\n%.3000s\n", r->exit_code, r->out, r->err);
    assert_int_equal(r->exit_code, expected);
}

/* The number a shell command, built like printf, prints (-1 when it prints none). */
static long shell_number(const char *format, ...) {
    char command[4096];
    va_list args;
    va_start(args, format);
    vsnprintf(command, sizeof command, format, args);
    va_end(args);
    struct command_result *r = run_shell("%s", command);
    long value = -1;
    if (sscanf(r->out, "%ld", &value) != 1) value = -1;
    return value;
}

static void test_submission(void **state) {
    fixture *f = *state;
    char args[512];
    snprintf(args, sizeof args,
             "--nodes 3 --gpus-per-node 4 --partition gpu --time 01:30:00 --account course "
             "--sbatch-arg --qos=high --work '%s/work' -- --runs 5 --stages 1,2",
             f->dir);
    struct command_result *r = campaign(f, "", args);
    assert_status(r, 0);
    assert_non_null(strstr(r->out, "submitted job 4242"));
    assert_non_null(strstr(r->out, "squeue -j 4242"));
    /* One sbatch call, and it asked for the nodes, the GPUs, whole nodes and the options given. */
    assert_int_equal(shell_number("grep -c '^sbatch ' '%s/log'", f->dir), 1);
    const char *wanted[] = {" --nodes=3 ", " --gres=gpu:4 ", " --exclusive ", " --partition=gpu ",
                            " --time=01:30:00 ", " --account=course ", " --qos=high ", " --ntasks-per-node=1 "};
    for (size_t i = 0; i < sizeof wanted / sizeof *wanted; i++) {
        long found = shell_number("grep -c -e '%s' '%s/log'", wanted[i], f->dir);
        if (found != 1) print_message("# the sbatch line lacks '%s'\n", wanted[i]);
        assert_int_equal(found, 1);
    }
    /* The batch script is this script (the first word after sbatch's options), and run.sh's
     * options follow its "--". */
    r = run_shell("cd '%s' && line=\"$(grep '^sbatch ' '%s/log')\" && "
                  "bash -c 'eval \"set -- ${1#sbatch }\"; while [ \"${1#-}\" != \"$1\" ]; do shift; done; "
                  "printf \"%%s\\n\" \"$@\"' - \"$line\"",
                  repo, f->dir);
    assert_status(r, 0);
    char expected[PATH_MAX + 128];
    snprintf(expected, sizeof expected, "%s/" SCRIPT "\n--work\n%s/work\n--\n--runs\n5\n--stages\n1,2\n", repo, f->dir);
    assert_string_equal(r->out, expected);
}

static void test_dry_run_submits_nothing(void **state) {
    fixture *f = *state;
    char args[256];
    snprintf(args, sizeof args, "--nodes 2 --dry-run --work '%s/work' -- --runs 3", f->dir);
    struct command_result *r = campaign(f, "", args);
    assert_status(r, 0);
    assert_true(strncmp(r->out, "sbatch ", 7) == 0);
    assert_non_null(strstr(r->out, " --nodes=2 "));
    assert_non_null(strstr(r->out, " --gres=gpu:1 "));
    assert_int_equal(run_shell("test ! -e '%s/log' && test ! -e '%s/work'", f->dir, f->dir)->exit_code, 0);
}

static void test_bad_usage(void **state) {
    fixture *f = *state;
    static const struct {
        const char *args, *message;
    } bad[] = {
        {"-- --runs 3", "--nodes N is required"},
        {"--nodes", "--nodes needs a value"},
        {"--nodes two -- --runs 3", "--nodes needs a positive number, not 'two'"},
        {"--nodes 0", "--nodes needs a positive number"},
        {"--nodes 2 --gpus-per-node many", "--gpus-per-node needs a positive number"},
        {"--nodes 2 --time 4h", "is not a Slurm time"},
        {"--nodes 2 --partition 'a b'", "is not a partition name"},
        {"--nodes 2 --sbatch-arg qos", "is not an sbatch option"},
        {"--nodes 2 --frobnicate", "unknown option '--frobnicate'"},
        {"--nodes 2 --runs 3", "run.sh's options go after '--'"},
        {"--nodes 2 -- --hosts hosts.txt", "--hosts is this script's to set"},
        {"--nodes 2 -- --runs many", "run.sh refuses its options"},
        {"--nodes 2 -- --no-such-option", "run.sh refuses its options"},
        {"--nodes 2 --work stages/here", "is inside the repository"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct command_result *r = campaign(f, "", bad[i].args);
        if (r->exit_code != 2 || !strstr(r->err, bad[i].message))
            print_message("# %s: exit status %d, stderr: %s\n", bad[i].args, r->exit_code, r->err);
        assert_int_equal(r->exit_code, 2);
        assert_non_null(strstr(r->err, bad[i].message));
        assert_int_equal(strchr(r->err, '\n') - r->err + 1, (long)strlen(r->err)); /* one line */
        assert_string_equal(r->out, "");
        assert_int_equal(run_shell("test ! -e '%s/log'", f->dir)->exit_code, 0); /* nothing submitted */
    }
    /* No sbatch here: a PATH of the few tools the script needs before it looks for sbatch. */
    struct command_result *r = run_shell(
        "cd '%s' && mkdir -p '%s/no-slurm' && for t in bash dirname realpath; do "
        "ln -sf \"$(command -v $t)\" '%s/no-slurm/'$t; done && PATH='%s/no-slurm' " SCRIPT " --nodes 2 -- --runs 3",
        repo, f->dir, f->dir, f->dir);
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, "slurm-campaign: error: sbatch not found: this is for Slurm clusters; "
                                "elsewhere use ./run.sh or ./run.sh --hosts FILE\n");
}

/* GNU parallel's ssh command: "--as-ssh [-l USER] HOST -- WORDS" becomes one srun step on HOST
 * that runs WORDS joined (as ssh does) in HOST's work folder, node-K. */
static void test_ssh_command_is_an_srun_step(void **state) {
    fixture *f = *state;
    char env[512];
    snprintf(env, sizeof env,
             "SLURM_JOB_ID=7 SLURM_JOB_NODELIST='node[1-2]' SLURM_CAMPAIGN_HOSTS='%s/hosts' "
             "SLURM_CAMPAIGN_WORK='%s/work'",
             f->dir, f->dir);
    assert_int_equal(run_shell("printf 'node1\\nnode2\\n' >'%s/hosts'", f->dir)->exit_code, 0);
    struct command_result *r = campaign(f, env, "--as-ssh -l someone node2 -- echo '\"$PWD\"' '\"$RUN_HOSTNAME\"'");
    assert_status(r, 0);
    char expected[256];
    snprintf(expected, sizeof expected, "%s/work/node-2 node2\n", f->dir);
    assert_string_equal(r->out, expected);
    assert_int_equal(shell_number("grep '^srun ' '%s/log' | grep ' --nodes=1 ' | grep -c ' --nodelist=node2 '", f->dir), 1);
    assert_int_equal(shell_number("grep '^srun ' '%s/log' | grep -c -e ' -l ' -e ' someone '", f->dir), 0);
}

/* Inside an allocation of salloc (SLURM_JOB_ID set), --dry-run shows the run.sh command. */
static void test_inside_an_allocation_dry_run(void **state) {
    fixture *f = *state;
    char args[256];
    snprintf(args, sizeof args, "--dry-run --work '%s/work' -- --runs 3", f->dir);
    struct command_result *r = campaign(f, "SLURM_JOB_ID=99 SLURM_JOB_NODELIST='gpu[07-08]'", args);
    assert_status(r, 0);
    assert_non_null(strstr(r->out, "./run.sh --hosts "));
    assert_non_null(strstr(r->out, "/work/job-99.hosts --runs 3"));
    assert_non_null(strstr(r->out, "--as-ssh"));
    assert_non_null(strstr(r->err, "2 node(s): gpu07 gpu08"));
    assert_int_equal(run_shell("printf 'gpu07\\ngpu08\\n' | cmp -s - '%s/work/job-99.hosts'", f->dir)->exit_code, 0);
    assert_int_equal(run_shell("test ! -e '%s/log'", f->dir)->exit_code, 0); /* no step started */
}

/* Asserts the job's exit status (the fake sbatch logs it); shows the end of its log otherwise. */
static void assert_job_status(const fixture *f, int expected) {
    struct command_result *r = run_shell("sed -n 's/^job 4242 exit //p' '%s/log'", f->dir);
    int status = -1;
    if (sscanf(r->out, "%d", &status) != 1 || status != expected) {
        r = run_shell("tail -40 '%s/work/slurm-campaign-4242.out'", f->dir);
        print_message("# job status %d, the end of its log:\n%.6000s\n", status, r->out);
    }
    assert_int_equal(status, expected);
}

/* The runs of node N's runs.csv.gz (what its campaign left, brought back) in the results folder
 * recorded on host nodeN with STATUS: "ok" (counted by their total row) or "failed" (a failed run
 * has one row). */
static long node_runs(const fixture *f, int node, const char *status) {
    return shell_number("zcat '%s/results/fake-node%d-gpu/runs.csv.gz' | "
                        "awk -F, '$15 == \"%s\" && ($12 == \"total\" || $15 == \"failed\") && $4 == \"node%d\"' | wc -l",
                        f->dir, node, status, node);
}

/* The whole route: sbatch runs the job at once; in it the node list is expanded, run.sh --hosts
 * runs the campaign on both nodes through srun, and each node's results come back; then an
 * interrupted campaign (a failed run) is continued with --resume in a second job. */
static void test_campaign_on_two_nodes(void **state) {
    SKIP_WITHOUT_TOOL(missing_tool);
    fixture *f = *state;
    char args[512];
    snprintf(args, sizeof args,
             "--nodes 2 --gpus-per-node 2 --work '%s/work' -- --no-build --bin-dir '%s/bin' --out '%s/results' "
             "--runs 2 --stages 1,2",
             f->dir, f->dir, f->dir);
    struct command_result *r = campaign(f, "FAKE_SBATCH_RUN=1 FAKE_GPU_COUNT=2 FAKE_FAIL='01-base:2'", args);
    assert_status(r, 0); /* the submission */
    assert_job_status(f, 1); /* a run failed */
    /* One srun step a node, each in its own work folder. */
    assert_int_equal(shell_number("grep '^srun ' '%s/log' | grep -c ' --nodelist=node1 '", f->dir), 1);
    assert_int_equal(shell_number("grep '^srun ' '%s/log' | grep -c ' --nodelist=node2 '", f->dir), 1);
    r = run_shell("cd '%s/work' && ls -d node-*/cuda-raytracer-campaign", f->dir);
    assert_string_equal(r->out, "node-1/cuda-raytracer-campaign\nnode-2/cuda-raytracer-campaign\n");
    for (int node = 1; node <= 2; node++) {
        assert_int_equal(node_runs(f, node, "ok"), 3); /* 2 stages x 2 runs, 01-base's run 2 failed */
        assert_int_equal(node_runs(f, node, "failed"), 1);
    }
    /* Both GPUs of a node were used (one GNU parallel slot per GPU). */
    assert_int_equal(shell_number("zcat '%s/results/fake-node1-gpu/runs.csv.gz' | awk -F, 'NR > 1 { print $6 }' | sort -u | wc -l",
                                  f->dir), 2);
    /* Each node's campaign closed its runs (runs.csv.gz, no runs.csv), there and here. */
    assert_int_equal(shell_number("ls '%s'/work/node-*/cuda-raytracer-campaign/campaign-results/*/runs.csv.gz "
                                  "'%s'/results/*/runs.csv.gz | wc -l", f->dir, f->dir), 4);
    assert_int_equal(shell_number("ls '%s'/work/node-*/cuda-raytracer-campaign/campaign-results/*/runs.csv "
                                  "'%s'/results/*/runs.csv 2>/dev/null | wc -l", f->dir, f->dir), 0);

    /* The same command with --resume: node K of the new job continues node K's runs. */
    assert_int_equal(run_shell("rm '%s/log'", f->dir)->exit_code, 0);
    snprintf(args, sizeof args,
             "--nodes 2 --gpus-per-node 2 --work '%s/work' -- --no-build --bin-dir '%s/bin' --out '%s/results' "
             "--runs 2 --stages 1,2 --resume",
             f->dir, f->dir, f->dir);
    r = campaign(f, "FAKE_SBATCH_RUN=1 FAKE_GPU_COUNT=2", args);
    assert_status(r, 0);
    assert_job_status(f, 0);
    for (int node = 1; node <= 2; node++) {
        assert_int_equal(node_runs(f, node, "ok"), 4);
        assert_int_equal(node_runs(f, node, "failed"), 0);
    }
}

int main(void) {
    if (!getcwd(repo, sizeof repo)) return 1;
    char smi[PATH_MAX + 64];
    snprintf(smi, sizeof smi, "%s/tests/fixtures/fake-nvidia-smi.sh", repo);
    setenv("RUN_NVIDIA_SMI", smi, 1);
    /* Nothing of a real job or of the caller's campaigns leaks in. */
    const char *unset[] = {"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_CAMPAIGN_WORK", "SLURM_CAMPAIGN_HOSTS",
                           "RUN_BIN_DIR", "RUN_SSH", "RUN_REMOTE_DIR", "FAKE_SBATCH_RUN", "FAKE_SLURM_NODELIST"};
    for (size_t i = 0; i < sizeof unset / sizeof *unset; i++) unsetenv(unset[i]);
    const char *tools[] = {"parallel", "python3", "perl", "flock", "timeout", "base64", "tar", "awk"};
    missing_tool = missing_tool_among(tools, sizeof tools / sizeof *tools);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_submission, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dry_run_submits_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_usage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ssh_command_is_an_srun_step, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inside_an_allocation_dry_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_campaign_on_two_nodes, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
