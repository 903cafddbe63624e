/* tools/slurm-campaign.sh against a real Slurm: a cluster of one node that the test starts on this
 * machine with tools/local-slurm.sh (Debian's munged, slurmctld and slurmd, all their files in the
 * test's folder; no cgroups; the node's one GPU a stand-in that only grants --gres=gpu:1), with the
 * fake stages and the fake nvidia-smi of test_slurm.c, whose stand-ins for sbatch, srun and
 * scontrol the real ones replace here. A campaign goes in through sbatch, the test waits for the
 * job (at most JOB_WAIT_S) and checks what came back: the fake stages' runs, env.txt and the job's
 * state in Slurm; a campaign that fails on the node must fail the job. Where Slurm cannot run here
 * (not installed, not root, its node not taking jobs in time, as in a container without the
 * privileges), the tests that need it skip with tools/local-slurm.sh's one line saying why (status
 * 77); PATH=/usr/bin:/bin, which lacks the daemons, shows that path. Run from the repository root. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

#define SCRIPT "tools/local-slurm.sh"
#define START_WAIT_S 60 /* for start (which gives up itself after LOCAL_SLURM_TIMEOUT, 30 s) */
#define JOB_WAIT_S 120  /* for a job: a campaign of 4 fake runs took 25 s on 2 busy cores */
#define SLURM_UNAVAILABLE 77

static char repo[PATH_MAX];
static const char *missing_tool; /* a tool the campaign needs that this machine lacks, or NULL */

/* The one cluster of all the tests, started by the group's setup. */
static struct {
    char dir[64];      /* the test's temporary folder: slurm/ (the cluster), bin/ (fake stages), ... */
    char conf[128];    /* DIR/slurm/slurm.conf: SLURM_CONF for every Slurm command */
    char node[256];    /* the node's name (hostname -s) */
    char host[256];    /* what `hostname` says, the runs' host column and env.txt's host line */
    int up;            /* its node takes jobs */
    char why_not[600]; /* when not up: why, the line to skip with (or to fail with, when broken) */
    int broken;        /* start failed otherwise than with "Slurm cannot run here": the tests fail */
} cluster;

/* The first line of text, without its newline, into line. */
static void first_line(const char *text, char *line, size_t size) {
    snprintf(line, size, "%.*s", (int)strcspn(text, "\n"), text);
}

static int start_cluster(void **state) {
    (void)state;
    if (missing_tool) return 0; /* every test that needs the cluster skips */
    snprintf(cluster.dir, sizeof cluster.dir, "%s", make_temporary_folder());
    snprintf(cluster.conf, sizeof cluster.conf, "%s/slurm/slurm.conf", cluster.dir);
    struct command_result *r = run_shell(
        /* munged serves its socket only where every folder above it is open to all */
        "cd '%s' && d='%s' && chmod 755 \"$d\" && mkdir \"$d/bin\" && "
        "for s in stages/01-* stages/02-*; do cp tests/fixtures/fake-stage.sh \"$d/bin/${s#stages/}\"; done && "
        "cp tests/fixtures/fake-cpu-reference.sh \"$d/bin/cpu-reference\" && "
        "cp tests/fixtures/fake-compare-images.sh \"$d/bin/compare-images\"",
        repo, cluster.dir);
    if (r->exit_code != 0) {
        print_message("# setup failed: %s\n", r->err);
        return -1;
    }
    /* (as tools/local-slurm.sh names the node, and tools/runner/env-info.sh the host) */
    r = run_shell("{ hostname -s 2>/dev/null || uname -n; } | cut -d. -f1; hostname");
    if (sscanf(r->out, "%255s %255s", cluster.node, cluster.host) != 2) return -1;

    r = run_shell("cd '%s' && LOCAL_SLURM_TIMEOUT=30 timeout -k 5 %d " SCRIPT " start '%s/slurm' --stop-after 600",
                  repo, START_WAIT_S, cluster.dir);
    if (r->exit_code == 0) {
        cluster.up = 1;
    } else if (r->exit_code == SLURM_UNAVAILABLE) {
        first_line(r->err, cluster.why_not, sizeof cluster.why_not);
    } else if (r->exit_code == 124 || r->exit_code == 137) {
        snprintf(cluster.why_not, sizeof cluster.why_not, SCRIPT " start did not end within %d s", START_WAIT_S);
    } else {
        cluster.broken = 1;
        snprintf(cluster.why_not, sizeof cluster.why_not, SCRIPT " start failed with status %d: %.400s", r->exit_code,
                 r->err);
    }
    return 0;
}

static int stop_cluster(void **state) {
    (void)state;
    /* Whatever start left running (a start cut short by its timeout, a test that failed before
     * stopping it): stop is for a folder that start marked as its cluster's. */
    if (cluster.dir[0] && sh("test -e '%s/slurm/made-by-local-slurm'", cluster.dir) == 0) {
        struct command_result *r = run_shell("timeout -k 5 60 " SCRIPT " stop '%s/slurm'", cluster.dir);
        if (r->exit_code != 0) print_message("# stopping the cluster failed (status %d): %s\n", r->exit_code, r->err);
    }
    if (cluster.dir[0]) remove_temporary_folder(cluster.dir);
    return 0;
}

/* Skips the test where the cluster could not run here, saying why; fails it where start broke. */
#define REQUIRE_CLUSTER()                                                                         \
    do {                                                                                          \
        SKIP_WITHOUT_TOOL(missing_tool);                                                          \
        if (cluster.broken) fail_msg("%s", cluster.why_not);                                      \
        if (!cluster.up) {                                                                        \
            print_message("# skipped: %s\n", cluster.why_not);                                    \
            skip();                                                                               \
        }                                                                                         \
    } while (0)

/* Shows what a command printed when it did not end as expected. */
static void assert_status(const struct command_result *r, int expected) {
    if (r->exit_code != expected)
        print_message("# exit status %d, stdout:\n%.3000s\n# stderr:\n%.3000s\n", r->exit_code, r->out, r->err);
    assert_int_equal(r->exit_code, expected);
}

/* Submits a campaign through tools/slurm-campaign.sh (its options before "--": ARGS, work folder
 * DIR/WORK) and returns its job's id. */
static long submit(const char *work, const char *args) {
    struct command_result *r = run_shell("cd '%s' && SLURM_CONF='%s' tools/slurm-campaign.sh --nodes 1 --time 5 "
                                         "--work '%s/%s' -- %s",
                                         repo, cluster.conf, cluster.dir, work, args);
    assert_status(r, 0);
    /* The real sbatch got the command that a GPU cluster gets: a GPU and the whole node. */
    assert_true(strncmp(r->out, "sbatch ", 7) == 0);
    assert_non_null(strstr(r->out, " --gres=gpu:1 "));
    assert_non_null(strstr(r->out, " --exclusive "));
    const char *said = strstr(r->out, "slurm-campaign: submitted job ");
    long job = -1;
    if (!said || sscanf(said, "slurm-campaign: submitted job %ld", &job) != 1 || job < 1)
        fail_msg("no job id in what slurm-campaign.sh printed: %.1000s", r->out);
    return job;
}

/* Waits for the job to end, at most JOB_WAIT_S, and returns its "JobState=... ExitCode=..." as
 * scontrol shows it; when it does not end in time, the test fails, showing the queue and the end of
 * the job's log (it is cancelled when the cluster stops). */
static const char *job_end(long job, const char *work) {
    static char end[256];
    struct command_result *r = run_shell(
        "SLURM_CONF='%s' timeout %d sh -c 'while :; do "
        "  s=$(scontrol show job %ld | grep -o -e \"JobState=[A-Z_]*\" -e \"ExitCode=[0-9:]*\" | paste -sd \" \" -); "
        "  case $s in *=PENDING*|*=CONFIGURING*|*=RUNNING*|*=COMPLETING*|*=SUSPENDED*|\"\") sleep 0.5 ;; "
        "  *) echo \"$s\"; exit 0 ;; esac; "
        "done'",
        cluster.conf, JOB_WAIT_S, job);
    if (r->exit_code != 0) {
        r = run_shell("SLURM_CONF='%s' squeue; tail -n 30 '%s/%s/slurm-campaign-%ld.out'", cluster.conf, cluster.dir,
                      work, job);
        print_message("# the queue, then the end of the job's log:\n%.6000s\n", r->out);
        fail_msg("job %ld did not end within %d s", job, JOB_WAIT_S);
    }
    first_line(r->out, end, sizeof end);
    return end;
}

/* Asserts the job's end; shows the end of its log and of slurmd's otherwise. */
static void assert_job_end(long job, const char *work, const char *expected) {
    const char *end = job_end(job, work);
    if (strcmp(end, expected) != 0) {
        struct command_result *r = run_shell("tail -n 40 '%s/%s/slurm-campaign-%ld.out'; echo '# slurmd.log:'; "
                                             "tail -n 20 '%s/slurm/slurmd.log'",
                                             cluster.dir, work, job, cluster.dir);
        print_message("# job %ld: %s, the end of its log:\n%.8000s\n", job, end, r->out);
    }
    assert_string_equal(end, expected);
}

/* The skip path, wherever the test runs: without Slurm's programs, start says which one is missing,
 * in one line, with status 77, and makes nothing. */
static void test_without_slurm_start_says_why_in_one_line(void **state) {
    (void)state;
    char *folder = make_temporary_folder();
    struct command_result *r = run_shell(
        "cd '%s' && mkdir '%s/no-slurm' && for t in bash realpath; do ln -s \"$(command -v $t)\" '%s/no-slurm/'; done "
        "&& PATH='%s/no-slurm' " SCRIPT " start '%s/slurm'",
        repo, folder, folder, folder, folder);
    assert_int_equal(r->exit_code, SLURM_UNAVAILABLE);
    assert_string_equal(r->err, "local-slurm: cannot run Slurm here: munged is not installed "
                                "(Debian: apt-get install slurm-wlm munge; tools/install-deps.sh slurm)\n");
    assert_int_equal(run_shell("test ! -e '%s/slurm'", folder)->exit_code, 0);
    remove_temporary_folder(folder);
}

/* A start that cannot bring the node up (here a slurmd that fails, as one may in a container
 * without the privileges) says why in one line, with status 77, and stops the daemons it had
 * started: the real munged and slurmctld, found by their environment's mark, LOCAL_SLURM_DIR. */
static void test_a_failed_start_says_why_and_stops_what_it_started(void **state) {
    (void)state;
    REQUIRE_CLUSTER(); /* Slurm can run here: only the stand-in slurmd fails */
    struct command_result *r = run_shell(
        "cd '%s' && d='%s/failing' && mkdir -p \"$d/bin\" && "
        "printf '#!/bin/sh\\necho \"slurmd: error: a stand-in that fails\" >&2\\nexit 1\\n' >\"$d/bin/slurmd\" && "
        "chmod +x \"$d/bin/slurmd\" && PATH=\"$d/bin:$PATH\" timeout -k 5 %d " SCRIPT " start \"$d/slurm\"",
        repo, cluster.dir, START_WAIT_S);
    assert_int_equal(r->exit_code, SLURM_UNAVAILABLE);
    assert_string_equal(r->err,
                        "local-slurm: cannot run Slurm here: slurmd did not start: slurmd: error: a stand-in that fails\n");
    /* munged and slurmctld had started (their logs say so), and are gone. */
    assert_int_equal(sh("grep -q 'Created socket' '%s/failing/slurm/munged.log' && "
                        "grep -q 'Running as primary controller' '%s/failing/slurm/slurmctld.log'",
                        cluster.dir, cluster.dir),
                     0);
    assert_int_equal(sh_num("grep -lszxF 'LOCAL_SLURM_DIR=%s/failing/slurm' /proc/[0-9]*/environ | wc -l", cluster.dir),
                     0);
}

/* The whole route on a real Slurm: sbatch queues the job, slurmd runs it, scontrol expands its node
 * list, the node's campaign runs as a real srun step, and its results come back. */
static void test_campaign_through_a_real_slurm(void **state) {
    (void)state;
    REQUIRE_CLUSTER();
    char args[512];
    snprintf(args, sizeof args, "--no-build --bin-dir '%s/bin' --out '%s/results' --runs 2 --stages 1,2",
             cluster.dir, cluster.dir);
    long job = submit("work", args);
    assert_job_end(job, "work", "JobState=COMPLETED ExitCode=0:0");

    /* The job expanded its node list and ran the node's campaign as step 0, launched by slurmd. */
    assert_int_equal(sh_num("grep -c -x -F 'slurm-campaign: job %ld: the campaign on 1 node(s): %s; node work folders "
                            "in %s/work/node-K' '%s/work/slurm-campaign-%ld.out'",
                            job, cluster.node, cluster.dir, cluster.dir, job),
                     1);
    assert_int_equal(sh_num("grep -c 'launch task StepId=%ld\\.0 ' '%s/slurm/slurmd.log'", job, cluster.dir), 1);
    assert_int_equal(sh("test -d '%s/work/node-1/cuda-raytracer-campaign/campaign-results/fake-gpu'", cluster.dir), 0);

    /* What came back: every run of both stages, ok, recorded on this machine, its runs closed. */
    const char *runs = "zcat '%s/results/fake-gpu/runs.csv.gz' | awk -F, 'NR > 1 && $4 == \"%s\" && %s' | wc -l";
    char query[1024];
    snprintf(query, sizeof query, runs, cluster.dir, cluster.host, "$12 == \"total\" && $15 == \"ok\"");
    assert_int_equal(sh_num("%s", query), 4); /* 2 stages x 2 runs */
    snprintf(query, sizeof query, runs, cluster.dir, cluster.host, "$15 != \"ok\"");
    assert_int_equal(sh_num("%s", query), 0);
    assert_int_equal(sh_num("zcat '%s/results/fake-gpu/runs.csv.gz' | awk -F, 'NR > 1 { print $3 }' | sort -u | "
                            "paste -sd' ' - | grep -c -x '01-base 02-static-registers'",
                            cluster.dir),
                     1);
    assert_int_equal(sh("test ! -e '%s/results/fake-gpu/runs.csv'", cluster.dir), 0);
    /* env.txt describes the node's machine and the command it ran. */
    assert_int_equal(sh_num("grep -c -x -e 'host: %s' -e 'gpu: 0, Fake GPU, GPU-fake-0' "
                            "-e 'command: ./run.sh --no-build --bin-dir %s/bin --runs 2 --stages 1,2 --out campaign-results' "
                            "'%s/results/fake-gpu/env.txt'",
                            cluster.host, cluster.dir, cluster.dir),
                     3);
}

/* A campaign that fails on the node fails the job: run.sh there finds no stage program, and the
 * job ends FAILED with exit code 1 (a host failed), which is what scontrol and sacct show. */
static void test_a_failed_campaign_fails_the_job(void **state) {
    (void)state;
    REQUIRE_CLUSTER();
    char args[512];
    snprintf(args, sizeof args, "--no-build --bin-dir '%s/no-such-bin' --out '%s/failed-results' --runs 1 --stages 1",
             cluster.dir, cluster.dir);
    long job = submit("failed-work", args);
    assert_job_end(job, "failed-work", "JobState=FAILED ExitCode=1:0");
    assert_int_equal(sh_num("grep -c -e 'run.sh: error: no executable in %s/no-such-bin for 01-base' "
                            "-e 'run.sh: 1 host(s) failed' '%s/failed-work/slurm-campaign-%ld.out'",
                            cluster.dir, cluster.dir, job),
                     2);
    assert_int_equal(sh("test ! -e '%s/failed-results/fake-gpu'", cluster.dir), 0);
}

/* stop ends every process of the cluster: the daemons (and any job step), found by the mark in
 * their environment, LOCAL_SLURM_DIR, which all three carry while it runs. */
static void test_stop_ends_every_daemon(void **state) {
    (void)state;
    REQUIRE_CLUSTER();
    const char *marked = "grep -lszxF 'LOCAL_SLURM_DIR=%s/slurm' /proc/[0-9]*/environ | wc -l";
    char count[256];
    snprintf(count, sizeof count, marked, cluster.dir);
    assert_true(sh_num("%s", count) >= 3); /* munged, slurmctld, slurmd */
    struct command_result *r = run_shell("timeout -k 5 60 " SCRIPT " stop '%s/slurm'", cluster.dir);
    assert_status(r, 0);
    assert_int_equal(sh_num("%s", count), 0);
    assert_int_equal(sh("cd '%s/slurm' && test ! -e munged.pid && test ! -e slurmctld.pid && test ! -e slurmd.pid",
                        cluster.dir),
                     0);
    cluster.up = 0;
    snprintf(cluster.why_not, sizeof cluster.why_not, "the cluster was stopped");
}

extern char **environ;

/* Unsets every FAKE_* variable (the fixtures' settings: FAKE_FAIL, FAKE_GPU_COUNT, ...). */
static void unset_fake_settings(void) {
    char names[64][128];
    int count = 0;
    for (char **word = environ; *word && count < 64; word++)
        if (strncmp(*word, "FAKE_", 5) == 0 && strcspn(*word, "=") < sizeof names[0])
            snprintf(names[count++], sizeof names[0], "%.*s", (int)strcspn(*word, "="), *word);
    for (int i = 0; i < count; i++) unsetenv(names[i]);
}

int main(void) {
    if (!getcwd(repo, sizeof repo)) return 1;
    char smi[PATH_MAX + 64];
    snprintf(smi, sizeof smi, "%s/tests/fixtures/fake-nvidia-smi.sh", repo);
    setenv("RUN_NVIDIA_SMI", smi, 1); /* sbatch --export=ALL takes it to the job, srun to the node */
    /* Nothing of a real job, of another cluster, of the caller's campaigns or fake stages leaks in
     * (sbatch --export=ALL would take it to the job). */
    const char *unset[] = {"SLURM_CONF", "SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_CAMPAIGN_WORK",
                           "SLURM_CAMPAIGN_HOSTS", "RUN_BIN_DIR", "RUN_SSH", "RUN_REMOTE_DIR", "LOCAL_SLURM_DIR",
                           "STAGES_DIR"};
    for (size_t i = 0; i < sizeof unset / sizeof *unset; i++) unsetenv(unset[i]);
    unset_fake_settings();
    const char *tools[] = {"parallel", "python3", "perl", "flock", "timeout", "base64", "tar", "awk"};
    missing_tool = missing_tool_among(tools, sizeof tools / sizeof *tools);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_without_slurm_start_says_why_in_one_line),
        cmocka_unit_test(test_a_failed_start_says_why_and_stops_what_it_started),
        cmocka_unit_test(test_campaign_through_a_real_slurm),
        cmocka_unit_test(test_a_failed_campaign_fails_the_job),
        cmocka_unit_test(test_stop_ends_every_daemon),
    };
    return cmocka_run_group_tests(tests, start_cluster, stop_cluster);
}
