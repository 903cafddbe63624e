/* One process a GPU (chapter 6, stage 42), without a GPU: which rank of how many a process is, as
 * each launcher's environment says (common/runtime/ranks.c), the GPU it takes on its node, its
 * rows, the rendezvous file through which rank 0 hands the others the communicator's id, and
 * tools/launch-ranks.sh, which starts the ranks on one machine (with a stand-in command). Run from
 * the repository root. */
#include "test_support.h"

#include <time.h>
#include <unistd.h>

#include "runtime/ranks.h"

/* ---- an environment of the test's own ------------------------------------------------------- */

#define MAX_VARIABLES 16
static const char *names[MAX_VARIABLES], *values[MAX_VARIABLES];
static int variables;

static const char *fake_getenv(const char *name)
{
    for (int i = 0; i < variables; ++i)
        if (strcmp(names[i], name) == 0)
            return values[i];
    return NULL;
}

/* The environment NAME=VALUE pairs, then NULL. */
static void environment(const char *first, ...)
{
    variables = 0;
    va_list args;
    va_start(args, first);
    for (const char *pair = first; pair && variables < MAX_VARIABLES; pair = va_arg(args, const char *)) {
        static char copies[MAX_VARIABLES][256];
        snprintf(copies[variables], sizeof copies[variables], "%s", pair);
        char *equals = strchr(copies[variables], '=');
        assert_non_null(equals);
        *equals = '\0';
        names[variables] = copies[variables];
        values[variables] = equals + 1;
        variables++;
    }
    va_end(args);
}

static char error[1024];

static struct ranks read_ranks(const char *given, int timeout)
{
    struct ranks r;
    error[0] = '\0';
    if (ranks_from_environment(fake_getenv, given, timeout, &r, error, sizeof error))
        fail_msg("refused: %s", error);
    return r;
}

/* Refused, with one line holding `expected`. */
static void refused(const char *given, const char *expected)
{
    struct ranks r;
    error[0] = '\0';
    assert_int_equal(ranks_from_environment(fake_getenv, given, 0, &r, error, sizeof error), -1);
    if (!strstr(error, expected))
        fail_msg("expected '%s' in: %s", expected, error);
    assert_null(strchr(error, '\n'));
}

/* ---- the environment of each launcher -------------------------------------------------------- */

static void no_launcher_is_a_world_of_one(void **state)
{
    (void)state;
    environment(NULL);
    struct ranks r = read_ranks(NULL, 0);
    assert_int_equal(r.rank, 0);
    assert_int_equal(r.size, 1);
    assert_int_equal(r.local_rank, -1);
    assert_string_equal(r.launcher, "none");
    assert_string_equal(r.rendezvous, ""); /* a world of one meets nobody */
    assert_int_equal(r.timeout_seconds, RANKS_DEFAULT_TIMEOUT);
    /* Empty variables count as unset; so does Slurm's rank in a batch script (no step count). */
    environment("RANK=", "WORLD_SIZE=", "SLURM_PROCID=0", "SLURM_NTASKS=4", "SLURM_JOB_ID=9", NULL);
    r = read_ranks(NULL, 30);
    assert_int_equal(r.size, 1);
    assert_string_equal(r.launcher, "none");
    assert_int_equal(r.timeout_seconds, 30);
}

static void each_launcher_is_read(void **state)
{
    (void)state;
    environment("RANK=2", "WORLD_SIZE=3", "LOCAL_RANK=2", "RANKS_JOB_ID=123-456", NULL);
    struct ranks r = read_ranks(NULL, 0);
    assert_int_equal(r.rank, 2);
    assert_int_equal(r.size, 3);
    assert_int_equal(r.local_rank, 2);
    assert_string_equal(r.launcher, "RANK");
    assert_string_equal(r.job, "ranks-123-456");
    assert_string_equal(r.rendezvous, "/tmp/raytracer-rendezvous-ranks-123-456.id");

    environment("SLURM_PROCID=5", "SLURM_STEP_NUM_TASKS=8", "SLURM_NTASKS=16", "SLURM_LOCALID=1",
                "SLURM_JOB_ID=4242", "SLURM_STEP_ID=3", NULL);
    r = read_ranks(NULL, 0);
    assert_int_equal(r.rank, 5);
    assert_int_equal(r.size, 8); /* the step's tasks, not the job's */
    assert_int_equal(r.local_rank, 1);
    assert_string_equal(r.launcher, "srun");
    assert_string_equal(r.rendezvous, "/tmp/raytracer-rendezvous-slurm-4242.3.id");
    environment("SLURM_PROCID=0", "SLURM_STEP_NUM_TASKS=2", "SLURM_JOB_ID=7", "SLURM_STEPID=0", NULL);
    assert_string_equal(read_ranks(NULL, 0).job, "slurm-7.0"); /* older Slurm's name */

    environment("OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=4", "OMPI_COMM_WORLD_LOCAL_RANK=1",
                "PMIX_NAMESPACE=prterun-node7-1234@1", NULL);
    r = read_ranks(NULL, 0);
    assert_int_equal(r.rank, 1);
    assert_int_equal(r.size, 4);
    assert_string_equal(r.launcher, "mpirun");
    assert_string_equal(r.job, "ompi-prterun-node7-1234_1"); /* a file name's characters only */
    environment("OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=2", "OMPI_MCA_ess_base_jobid=99",
                NULL);
    r = read_ranks(NULL, 0);
    assert_string_equal(r.job, "ompi-99");
    assert_int_equal(r.local_rank, -1);

    environment("PMI_RANK=3", "PMI_SIZE=4", "MPI_LOCALRANKID=3", "PMI_JOBID=abc", NULL);
    r = read_ranks(NULL, 0);
    assert_int_equal(r.rank, 3);
    assert_int_equal(r.local_rank, 3);
    assert_string_equal(r.launcher, "PMI");
    assert_string_equal(r.job, "pmi-abc");
}

/* A launcher started inside another leaves the outer one's variables: the inner one's win. */
static void the_innermost_launcher_wins(void **state)
{
    (void)state;
    /* tools/launch-ranks.sh in a Slurm batch job, or under srun */
    environment("RANK=1", "WORLD_SIZE=2", "LOCAL_RANK=1", "RANKS_JOB_ID=j", "SLURM_PROCID=0",
                "SLURM_STEP_NUM_TASKS=1", "SLURM_JOB_ID=5", "SLURM_STEP_ID=0", NULL);
    struct ranks r = read_ranks(NULL, 0);
    assert_string_equal(r.launcher, "RANK");
    assert_int_equal(r.rank, 1);
    /* mpirun in a Slurm allocation: its processes inherit the daemon's SLURM_PROCID */
    environment("OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4", "SLURM_PROCID=1",
                "SLURM_STEP_NUM_TASKS=2", "SLURM_JOB_ID=5", "SLURM_STEP_ID=1",
                "PMIX_NAMESPACE=n", NULL);
    r = read_ranks(NULL, 0);
    assert_string_equal(r.launcher, "mpirun");
    assert_int_equal(r.rank, 3);
    assert_int_equal(r.size, 4);
    /* srun --mpi=pmi2 sets PMI_RANK as well: the same numbers */
    environment("PMI_RANK=1", "PMI_SIZE=2", "SLURM_PROCID=1", "SLURM_STEP_NUM_TASKS=2",
                "SLURM_JOB_ID=5", "SLURM_STEP_ID=1", NULL);
    r = read_ranks("/shared/meet.id", 0);
    assert_string_equal(r.launcher, "PMI");
    assert_int_equal(r.rank, 1);
    assert_string_equal(r.rendezvous, "/shared/meet.id");
}

static void bad_environments_are_refused_in_one_line(void **state)
{
    (void)state;
    environment("RANK=1", NULL);
    refused(NULL, "RANK is set (1) but WORLD_SIZE is not");
    environment("RANK=0", "WORLD_SIZE=0", NULL);
    refused(NULL, "WORLD_SIZE '0' is not a number of ranks from 1 to");
    environment("RANK=0", "WORLD_SIZE=two", NULL);
    refused(NULL, "WORLD_SIZE 'two' is not a number of ranks");
    environment("RANK=0", "WORLD_SIZE=99999999999999999999", NULL);
    refused(NULL, "is not a number of ranks");
    environment("RANK=3", "WORLD_SIZE=3", NULL);
    refused(NULL, "RANK '3' is not a rank from 0 to 2 (WORLD_SIZE is 3)");
    environment("RANK=-1", "WORLD_SIZE=3", NULL);
    refused(NULL, "RANK '-1' is not a rank from 0 to 2");
    environment("RANK=0", "WORLD_SIZE=2", "LOCAL_RANK=x", "RANKS_JOB_ID=j", NULL);
    refused(NULL, "LOCAL_RANK 'x' is not a local rank from 0 to 1");
    environment("SLURM_PROCID=4", "SLURM_STEP_NUM_TASKS=4", "SLURM_JOB_ID=1", NULL);
    refused(NULL, "SLURM_PROCID '4' is not a rank from 0 to 3 (SLURM_STEP_NUM_TASKS is 4)");
    /* More than one rank and no job id to name the file by: --rendezvous, or refused. */
    environment("RANK=0", "WORLD_SIZE=2", NULL);
    refused(NULL, "rank 0 of 2: the launcher (RANK) gives no job id to name the rendezvous file by: "
                  "name one with --rendezvous FILE");
    assert_string_equal(read_ranks("/nfs/job.id", 0).rendezvous, "/nfs/job.id");
    static char long_path[RANKS_PATH_BYTES + 8];
    memset(long_path, 'a', sizeof long_path - 1);
    refused(long_path, "--rendezvous: the path is longer than");
}

/* ---- the GPU and the rows --------------------------------------------------------------------- */

static void each_rank_takes_the_gpu_of_its_local_rank(void **state)
{
    (void)state;
    struct ranks r = {.rank = 5, .size = 8, .local_rank = 1, .launcher = "srun"};
    int device = -1;
    assert_int_equal(ranks_device(&r, 0, 4, &device, error, sizeof error), 0);
    assert_int_equal(device, 1);
    assert_int_equal(ranks_device(&r, 2, 4, &device, error, sizeof error), 0); /* --device 2 */
    assert_int_equal(device, 3);
    /* No local rank: the rank modulo the GPUs from --device on. */
    r.local_rank = -1;
    assert_int_equal(ranks_device(&r, 0, 4, &device, error, sizeof error), 0);
    assert_int_equal(device, 1);
    /* srun showed this process one GPU: its own, whatever its local rank. tools/launch-ranks.sh
     * shows every rank the same GPUs: a second rank on a machine of one GPU is one too many. */
    r.local_rank = 3;
    assert_int_equal(ranks_device(&r, 0, 1, &device, error, sizeof error), 0);
    assert_int_equal(device, 0);
    struct ranks launched = {.rank = 1, .size = 2, .local_rank = 1, .launcher = "RANK"};
    assert_int_equal(ranks_device(&launched, 0, 1, &device, error, sizeof error), -1);
    assert_non_null(strstr(error, "rank 1 of 2 is local rank 1 on its node, but this process sees 1 "
                                  "GPU from --device 0 on: start at most 1 rank a node"));
    /* No GPU found: --device, and opening it says why. */
    assert_int_equal(ranks_device(&r, 1, 0, &device, error, sizeof error), 0);
    assert_int_equal(device, 1);
    /* More ranks on a node than GPUs: one line. */
    r.local_rank = 2;
    assert_int_equal(ranks_device(&r, 0, 2, &device, error, sizeof error), -1);
    assert_non_null(strstr(error, "rank 5 of 8 is local rank 2 on its node, but this process sees 2 "
                                  "GPUs from --device 0 on: start at most 2 ranks a node"));
    assert_int_equal(ranks_device(&r, 1, 3, &device, error, sizeof error), -1);
    assert_non_null(strstr(error, "sees 2 GPUs from --device 1 on"));
}

static void the_ranks_rows_cover_the_image_once(void **state)
{
    (void)state;
    const int heights[] = {1, 2, 7, 777, 8192, 32768};
    const int sizes[] = {1, 2, 3, 8, 1024};
    for (size_t h = 0; h < sizeof heights / sizeof *heights; ++h)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
            const int height = heights[h], size = sizes[s];
            if (size > height)
                continue; /* refused before (stage_main.c): at most one rank a row */
            assert_int_equal(ranks_first_row(0, size, height), 0);
            assert_int_equal(ranks_first_row(size, size, height), height);
            for (int r = 0; r < size; ++r) {
                const int rows = ranks_first_row(r + 1, size, height) - ranks_first_row(r, size, height);
                assert_true(rows >= height / size && rows <= height / size + 1);
            }
        }
    /* Stage 40's split of 1000x777 over two GPUs: 388 rows and 389. */
    assert_int_equal(ranks_first_row(1, 2, 777), 388);
}

/* ---- the rendezvous file ---------------------------------------------------------------------- */

static struct ranks rank_of(int rank, int size, const char *job, const char *path, int timeout)
{
    struct ranks r = {.rank = rank, .size = size, .local_rank = rank, .launcher = "RANK",
                      .timeout_seconds = timeout};
    snprintf(r.job, sizeof r.job, "%s", job);
    snprintf(r.rendezvous, sizeof r.rendezvous, "%s", path);
    return r;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void rank_0_hands_the_id_to_the_others(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    char path[512];
    snprintf(path, sizeof path, "%s/meet.id", dir);
    unsigned char id[128], got[128];
    for (size_t i = 0; i < sizeof id; ++i)
        id[i] = (unsigned char)(i * 37 + 11);
    struct ranks zero = rank_of(0, 3, "ranks-1", path, 5), two = rank_of(2, 3, "ranks-1", path, 5);
    assert_int_equal(ranks_publish(&zero, id, sizeof id, error, sizeof error), 0);
    assert_int_equal(ranks_await(&two, got, sizeof got, error, sizeof error), 0);
    assert_memory_equal(id, got, sizeof id);
    /* Written whole, then renamed: nothing else is left beside it. */
    assert_int_equal(sh_num("ls -A '%s' | wc -l", dir), 1);

    /* A rank that starts first waits for the file: rank 0 writes it 0.3 s later. */
    assert_int_equal(remove(path), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        const struct timespec pause = {0, 300000000L};
        nanosleep(&pause, NULL);
        _exit(ranks_publish(&zero, id, sizeof id, error, sizeof error) ? 1 : 0);
    }
    memset(got, 0, sizeof got);
    const double start = seconds_now();
    assert_int_equal(ranks_await(&two, got, sizeof got, error, sizeof error), 0);
    assert_true(seconds_now() - start >= 0.25);
    assert_memory_equal(id, got, sizeof id);
    int status = -1;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_int_equal(status, 0);
    remove_temporary_folder(dir);
}

static void a_rank_waits_no_longer_than_its_timeout(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    char path[512];
    snprintf(path, sizeof path, "%s/meet.id", dir);
    unsigned char id[128] = {0};
    /* No file: one line after the timeout. */
    struct ranks one = rank_of(1, 2, "ranks-7", path, 1);
    double start = seconds_now();
    assert_int_equal(ranks_await(&one, id, sizeof id, error, sizeof error), -1);
    const double waited = seconds_now() - start;
    assert_true(waited >= 0.95 && waited < 3);
    assert_non_null(strstr(error, "rank 1 of 2 waited 1 s for rank 0's rendezvous file"));
    assert_non_null(strstr(error, "it is not there"));
    assert_null(strchr(error, '\n'));
    /* A file an earlier launch left (another job, or another world size) is not taken. */
    struct ranks earlier = rank_of(0, 2, "ranks-6", path, 1);
    assert_int_equal(ranks_publish(&earlier, id, sizeof id, error, sizeof error), 0);
    assert_int_equal(ranks_await(&one, id, sizeof id, error, sizeof error), -1);
    assert_non_null(strstr(error, "it holds another launch's id (job ranks-6, 2 ranks)"));
    struct ranks bigger = rank_of(0, 4, "ranks-7", path, 1);
    assert_int_equal(ranks_publish(&bigger, id, sizeof id, error, sizeof error), 0);
    assert_int_equal(ranks_await(&one, id, sizeof id, error, sizeof error), -1);
    assert_non_null(strstr(error, "(job ranks-7, 4 ranks)"));
    test_write_file(path, "not a rendezvous file\n");
    assert_int_equal(ranks_await(&one, id, sizeof id, error, sizeof error), -1);
    assert_non_null(strstr(error, "it is not a rendezvous file of this program"));
    /* A folder rank 0 cannot write: one line. */
    struct ranks nowhere = rank_of(0, 2, "ranks-7", "/nonexistent-folder/meet.id", 1);
    assert_int_equal(ranks_publish(&nowhere, id, sizeof id, error, sizeof error), -1);
    assert_non_null(strstr(error, "rank 0 of 2 cannot write the rendezvous file /nonexistent-folder/"));
    remove_temporary_folder(dir);
}

/* ---- tools/launch-ranks.sh ------------------------------------------------------------------- */

/* Shell: whether process PID has ended (gone, or a zombie its new parent has not reaped yet: a
 * container's first process may never reap them). */
#define GONE(pid) "{ s=$(ps -o stat= -p \"" pid "\" 2>/dev/null); [ -z \"$s\" ] || [ \"${s#Z}\" != \"$s\" ]; }"

static void the_launcher_starts_every_rank(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    /* Each rank writes what it was given to a file of its own. */
    struct command_result *r = run_shell(
        "tools/launch-ranks.sh 3 -- sh -c 'echo \"$RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE "
        "$RANKS_JOB_ID $CUDA_VISIBLE_DEVICES\" >%s/rank-$RANK; echo out-$RANK' ", dir);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(r->err, "");
    assert_int_equal(line_count(r->out), 3); /* their stdout is the launcher's */
    for (int k = 0; k < 3; ++k) {
        char path[512], text[512], expected[64];
        snprintf(path, sizeof path, "%s/rank-%d", dir, k);
        test_read_file(path, text, sizeof text);
        snprintf(expected, sizeof expected, "%d 3 %d 3 ", k, k);
        assert_int_equal(strncmp(text, expected, strlen(expected)), 0);
    }
    /* One job id for the three, another for the next launch; CUDA_VISIBLE_DEVICES passed on. */
    assert_int_equal(sh("cd '%s' && test \"$(cut -d' ' -f5 rank-* | sort -u | wc -l)\" = 1", dir), 0);
    assert_int_equal(sh("cd '%s' && cut -d' ' -f5 rank-0 >first && cd - >/dev/null && "
                        "CUDA_VISIBLE_DEVICES=3,5 tools/launch-ranks.sh 1 -- sh -c 'echo \"$RANKS_JOB_ID "
                        "$CUDA_VISIBLE_DEVICES\" >%s/again' && cd '%s' && ! grep -qxFf first again && "
                        "grep -q ' 3,5$' again", dir, dir, dir), 0);
    remove_temporary_folder(dir);
}

static void a_failing_rank_stops_the_others(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    /* Rank 1 fails at once; ranks 0 and 2 (shells, each with a child) would sleep a minute. */
    const double start = seconds_now();
    struct command_result *r = run_shell(
        "tools/launch-ranks.sh 3 -- sh -c 'if [ $RANK = 1 ]; then exit 5; fi; "
        "sleep 60 & echo $! >%s/child-$RANK; wait; touch %s/survived-$RANK'", dir, dir);
    assert_int_equal(r->exit_code, 5); /* the failing rank's status */
    assert_true(seconds_now() - start < 10);
    assert_int_equal(sh("sleep 0.3; cd '%s' && test ! -e survived-0 && test ! -e survived-2 && "
                        "for f in child-*; do " GONE("$(cat $f)") " || exit 1; done", dir), 0);
    /* The first failure's status, whatever the others end with once stopped. */
    r = run_shell("tools/launch-ranks.sh 2 -- sh -c 'if [ $RANK = 0 ]; then exit 3; fi; sleep 60'");
    assert_int_equal(r->exit_code, 3);
    /* Every rank succeeded: 0, after the slowest. */
    r = run_shell("tools/launch-ranks.sh 2 -- sh -c 'sleep 0.$RANK'");
    assert_int_equal(r->exit_code, 0);
    remove_temporary_folder(dir);
}

static void a_stopped_launcher_stops_its_ranks(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    assert_int_equal(sh("tools/launch-ranks.sh 2 -- sh -c 'echo $$ >%s/rank-$RANK; exec sleep 60' & "
                        "launcher=$!; sleep 0.5; kill -TERM $launcher; wait $launcher; "
                        "echo $? >%s/status", dir, dir), 0);
    char text[64];
    char path[512];
    snprintf(path, sizeof path, "%s/status", dir);
    test_read_file(path, text, sizeof text);
    assert_int_equal(atoi(text), 143);
    assert_int_equal(sh("sleep 0.3; cd '%s' && for f in rank-*; do " GONE("$(cat $f)")
                        " || exit 1; done", dir), 0);
    remove_temporary_folder(dir);
}

static void the_launcher_refuses_bad_usage_in_one_line(void **state)
{
    (void)state;
    const struct {
        const char *args, *message;
    } bad[] = {
        {"", "name the number of ranks and the command"},
        {"0 -- true", "'0' is not a number of ranks from 1 to 9999"},
        {"two -- true", "'two' is not a number of ranks"},
        {"2 true", "the command comes after '--'"},
        {"2 --", "no command after '--'"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; ++k) {
        struct command_result *r = run_shell("tools/launch-ranks.sh %s", bad[k].args);
        if (r->exit_code != 2 || line_count(r->err) != 1 || !strstr(r->err, bad[k].message))
            fail_msg("launch-ranks.sh %s: status %d, stderr: %s", bad[k].args, r->exit_code, r->err);
        assert_string_equal(r->out, "");
    }
    struct command_result *r = run_shell("tools/launch-ranks.sh --help");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "usage: tools/launch-ranks.sh N -- COMMAND"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_launcher_is_a_world_of_one),
        cmocka_unit_test(each_launcher_is_read),
        cmocka_unit_test(the_innermost_launcher_wins),
        cmocka_unit_test(bad_environments_are_refused_in_one_line),
        cmocka_unit_test(each_rank_takes_the_gpu_of_its_local_rank),
        cmocka_unit_test(the_ranks_rows_cover_the_image_once),
        cmocka_unit_test(rank_0_hands_the_id_to_the_others),
        cmocka_unit_test(a_rank_waits_no_longer_than_its_timeout),
        cmocka_unit_test(the_launcher_starts_every_rank),
        cmocka_unit_test(a_failing_rank_stops_the_others),
        cmocka_unit_test(a_stopped_launcher_stops_its_ranks),
        cmocka_unit_test(the_launcher_refuses_bad_usage_in_one_line),
    };
    return cmocka_run_group_tests_name("ranks", tests, NULL, NULL);
}
