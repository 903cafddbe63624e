#include "runtime/ranks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define POLL_NANOSECONDS 20000000L /* a waiting rank looks at the file every 20 ms */
#define RENDEZVOUS_MAGIC "raytracer-rendezvous"

/* One launcher's variables: the rank and world size it sets (both, or neither), its local rank
 * (may be unset) and the variables of its job's id (joined with '.' when there are two). */
struct launcher {
    const char *name, *rank, *size, *local_rank;
    const char *job_prefix, *job[2], *job_fallback;
};

/* The innermost launcher first (ranks.h says why). */
static const struct launcher launchers[] = {
    {"RANK", "RANK", "WORLD_SIZE", "LOCAL_RANK", "ranks", {"RANKS_JOB_ID", NULL}, NULL},
    {"mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "ompi", {"PMIX_NAMESPACE", NULL}, "OMPI_MCA_ess_base_jobid"},
    {"PMI", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "pmi", {"PMI_JOBID", NULL}, NULL},
    {"srun", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID", "slurm",
     {"SLURM_JOB_ID", "SLURM_STEP_ID"}, "SLURM_STEPID"},
};

#define LAUNCHERS (sizeof launchers / sizeof *launchers)

const char *ranks_getenv(const char *name)
{
    return getenv(name);
}

/* The variable's value, NULL when unset or empty. */
static const char *value_of(ranks_getenv_fn get, const char *name)
{
    const char *value = name ? get(name) : NULL;
    return value && *value ? value : NULL;
}

/* A whole number from 0 to max, written in decimal digits alone; 0 or -1. */
static int whole_number(const char *text, long max, int *out)
{
    long value = 0;
    if (!*text)
        return -1;
    for (const char *c = text; *c; ++c) {
        if (*c < '0' || *c > '9')
            return -1;
        value = value * 10 + (*c - '0');
        if (value > max)
            return -1;
    }
    *out = (int)value;
    return 0;
}

/* The job id as a file name's part: letters, digits, '.', '-' and '_' kept, the rest '_'. */
static void append_job_part(char *job, size_t size, const char *part)
{
    size_t length = strlen(job);
    for (const char *c = part; *c && length + 1 < size; ++c) {
        const int keep = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                         (*c >= '0' && *c <= '9') || *c == '.' || *c == '-' || *c == '_';
        job[length++] = keep ? *c : '_';
    }
    job[length] = '\0';
}

static void read_job(ranks_getenv_fn get, const struct launcher *l, char *job, size_t size)
{
    const char *first = value_of(get, l->job[0]);
    const char *second = value_of(get, l->job[1]);
    if (!first && !l->job[1])
        first = value_of(get, l->job_fallback);
    if (l->job[1] && !second)
        second = value_of(get, l->job_fallback);
    job[0] = '\0';
    if (!first)
        return;
    snprintf(job, size, "%s-", l->job_prefix);
    append_job_part(job, size, first);
    if (second) {
        append_job_part(job, size, ".");
        append_job_part(job, size, second);
    }
}

int ranks_from_environment(ranks_getenv_fn get, const char *given, int timeout_seconds,
                           struct ranks *ranks, char *error, size_t error_size)
{
    memset(ranks, 0, sizeof *ranks);
    ranks->size = 1;
    ranks->local_rank = -1;
    ranks->launcher = "none";
    ranks->timeout_seconds = timeout_seconds > 0 ? timeout_seconds : RANKS_DEFAULT_TIMEOUT;
    const struct launcher *l = NULL;
    for (size_t i = 0; i < LAUNCHERS && !l; ++i) {
        /* Slurm's rank alone is also set in a batch script, which srun did not start. */
        const int srun = strcmp(launchers[i].name, "srun") == 0;
        if (value_of(get, launchers[i].rank) && (!srun || value_of(get, launchers[i].size)))
            l = &launchers[i];
    }
    if (l) {
        const char *rank = value_of(get, l->rank), *size = value_of(get, l->size);
        const char *local = value_of(get, l->local_rank);
        if (!size) {
            snprintf(error, error_size,
                     "%s is set (%.40s) but %s is not: the launcher must give both", l->rank, rank,
                     l->size);
            return -1;
        }
        if (whole_number(size, RANKS_MAX, &ranks->size) || ranks->size < 1) {
            snprintf(error, error_size, "%s '%.40s' is not a number of ranks from 1 to %d", l->size,
                     size, RANKS_MAX);
            return -1;
        }
        if (whole_number(rank, RANKS_MAX, &ranks->rank) || ranks->rank >= ranks->size) {
            snprintf(error, error_size, "%s '%.40s' is not a rank from 0 to %d (%s is %d)", l->rank,
                     rank, ranks->size - 1, l->size, ranks->size);
            return -1;
        }
        if (local && (whole_number(local, RANKS_MAX, &ranks->local_rank) ||
                      ranks->local_rank >= ranks->size)) {
            snprintf(error, error_size, "%s '%.40s' is not a local rank from 0 to %d (%s is %d)",
                     l->local_rank, local, ranks->size - 1, l->size, ranks->size);
            return -1;
        }
        ranks->launcher = l->name;
        read_job(get, l, ranks->job, sizeof ranks->job);
    }
    if (ranks->size == 1)
        return 0; /* a world of one meets nobody: no file */
    if (given) {
        if (strlen(given) >= sizeof ranks->rendezvous) {
            snprintf(error, error_size, "--rendezvous: the path is longer than %zu bytes",
                     sizeof ranks->rendezvous - 1);
            return -1;
        }
        snprintf(ranks->rendezvous, sizeof ranks->rendezvous, "%s", given);
        return 0;
    }
    if (!ranks->job[0]) {
        snprintf(error, error_size,
                 "rank %d of %d: the launcher (%s) gives no job id to name the rendezvous file by: "
                 "name one with --rendezvous FILE, on a file system every rank sees",
                 ranks->rank, ranks->size, l->name);
        return -1;
    }
    snprintf(ranks->rendezvous, sizeof ranks->rendezvous, "/tmp/raytracer-rendezvous-%s.id",
             ranks->job);
    return 0;
}

int ranks_device(const struct ranks *ranks, int first_device, int device_count, int *device,
                 char *error, size_t error_size)
{
    *device = first_device;
    const int available = device_count - first_device;
    if (available <= 0)
        return 0; /* no GPU, or --device past them: opening it says which */
    const int local = ranks->local_rank >= 0 ? ranks->local_rank : ranks->rank % available;
    if (local < available) {
        *device = first_device + local;
        return 0;
    }
    if (device_count == 1 && strcmp(ranks->launcher, "RANK") != 0)
        return 0; /* this rank's own GPU, the only one srun or mpirun shows it */
    snprintf(error, error_size,
             "rank %d of %d is local rank %d on its node, but this process sees %d GPU%s from "
             "--device %d on: start at most %d rank%s a node",
             ranks->rank, ranks->size, local, available, available == 1 ? "" : "s", first_device,
             available, available == 1 ? "" : "s");
    return -1;
}

int ranks_first_row(int rank, int size, int height)
{
    return (int)((long long)height * rank / size);
}

/* ---- the rendezvous file: one line "raytracer-rendezvous JOB SIZE HEX" ----------------------- */

int ranks_publish(const struct ranks *ranks, const unsigned char *id, size_t bytes, char *error,
                  size_t error_size)
{
    char partial[RANKS_PATH_BYTES + 32];
    snprintf(partial, sizeof partial, "%s.tmp.%ld", ranks->rendezvous, (long)getpid());
    FILE *file = fopen(partial, "w");
    if (!file) {
        snprintf(error, error_size, "rank 0 of %d cannot write the rendezvous file %.200s: %s",
                 ranks->size, partial, strerror(errno));
        return -1;
    }
    fprintf(file, "%s %s %d ", RENDEZVOUS_MAGIC, ranks->job[0] ? ranks->job : "-", ranks->size);
    for (size_t i = 0; i < bytes; ++i)
        fprintf(file, "%02x", id[i]);
    fprintf(file, "\n");
    const int failed = ferror(file);
    if (fclose(file) != 0 || failed || rename(partial, ranks->rendezvous) != 0) {
        snprintf(error, error_size, "rank 0 of %d cannot write the rendezvous file %.200s: %s",
                 ranks->size, ranks->rendezvous, strerror(errno));
        remove(partial);
        return -1;
    }
    return 0;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* 1: the file holds an id of this launch, read into id; 0: no such file (yet), or another
 * launch's (what it holds goes into seen). */
static int read_rendezvous(const struct ranks *ranks, unsigned char *id, size_t bytes, char *seen,
                           size_t seen_size)
{
    FILE *file = fopen(ranks->rendezvous, "r");
    if (!file)
        return 0;
    char line[RANKS_JOB_BYTES + 4096];
    const int got = fgets(line, sizeof line, file) != NULL;
    fclose(file);
    if (!got)
        return 0;
    char magic[32], job[RANKS_JOB_BYTES], hex[2048];
    int size = 0;
    if (sscanf(line, "%31s %127s %d %2047s", magic, job, &size, hex) != 4 ||
        strcmp(magic, RENDEZVOUS_MAGIC) != 0 || strlen(hex) != 2 * bytes) {
        snprintf(seen, seen_size, "it is not a rendezvous file of this program");
        return 0;
    }
    if (strcmp(job, ranks->job[0] ? ranks->job : "-") != 0 || size != ranks->size) {
        snprintf(seen, seen_size, "it holds another launch's id (job %s, %d ranks)", job, size);
        return 0;
    }
    for (size_t i = 0; i < bytes; ++i) {
        const int high = hex_digit(hex[2 * i]), low = hex_digit(hex[2 * i + 1]);
        if (high < 0 || low < 0) {
            snprintf(seen, seen_size, "it is not a rendezvous file of this program");
            return 0;
        }
        id[i] = (unsigned char)(high * 16 + low);
    }
    return 1;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int ranks_await(const struct ranks *ranks, unsigned char *id, size_t bytes, char *error,
                size_t error_size)
{
    const double deadline = now_seconds() + ranks->timeout_seconds;
    char seen[256] = "it is not there";
    for (;;) {
        if (read_rendezvous(ranks, id, bytes, seen, sizeof seen))
            return 0;
        if (now_seconds() >= deadline)
            break;
        const struct timespec pause = {0, POLL_NANOSECONDS};
        nanosleep(&pause, NULL);
    }
    snprintf(error, error_size,
             "rank %d of %d waited %d s for rank 0's rendezvous file %.200s, and %s: is rank 0 "
             "running, and does every rank see that file (--rendezvous FILE on a file system "
             "they share)?",
             ranks->rank, ranks->size, ranks->timeout_seconds, ranks->rendezvous, seen);
    return -1;
}
