/* One process a GPU (a stage whose manifest has `launcher: ranks`, chapter 6): which process of
 * how many this one is, as the launcher that started it says in the environment; the GPU it takes
 * on its node; and the file through which rank 0 hands the other ranks what they need to join it
 * (the communicator's id, opaque bytes here). Pure C: nothing here touches a GPU or a network. */
#ifndef RANKS_H
#define RANKS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RANKS_MAX (1 << 20) /* the largest world this reads: far more GPUs than any job has */
#define RANKS_JOB_BYTES 128
#define RANKS_PATH_BYTES 4096
#define RANKS_DEFAULT_TIMEOUT 60 /* seconds a rank waits for the others (--rendezvous-timeout) */

struct ranks {
    int rank, size;     /* this process is rank `rank` of `size`; 0 of 1 without a launcher */
    int local_rank;     /* its place among its node's ranks; -1 where the launcher does not say */
    const char *launcher; /* whose variables said so: "srun", "mpirun", "PMI", "RANK" or "none" */
    char job[RANKS_JOB_BYTES]; /* the launch's id, e.g. "slurm-1234.0"; "" where it has none */
    char rendezvous[RANKS_PATH_BYTES]; /* the file rank 0 writes and the others read ("" in a
                                          world of one, which needs none) */
    int timeout_seconds; /* how long a rank waits for the others before it gives up */
};

/* getenv, or a test's stand-in; ranks_getenv is getenv. */
typedef const char *(*ranks_getenv_fn)(const char *name);
const char *ranks_getenv(const char *name);

/* Reads the launch from the environment, the innermost launcher first (each one's variables; one
 * set to the empty string counts as unset):
 *   RANK, WORLD_SIZE, LOCAL_RANK, RANKS_JOB_ID   tools/launch-ranks.sh (torchrun's names)
 *   OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK     Open MPI's mpirun (job: PMIX_NAMESPACE or
 *                                                OMPI_MCA_ess_base_jobid)
 *   PMI_RANK, PMI_SIZE, MPI_LOCALRANKID           MPICH's mpiexec (Hydra; job: PMI_JOBID)
 *   SLURM_PROCID, SLURM_STEP_NUM_TASKS, SLURM_LOCALID   srun (job: SLURM_JOB_ID.SLURM_STEP_ID)
 * A launcher started inside another (mpirun or tools/launch-ranks.sh in a Slurm job) leaves the
 * outer one's variables in place: the inner one's win. Slurm's count is the step's
 * (SLURM_STEP_NUM_TASKS, which only srun sets), not the job's SLURM_NTASKS, so that the one
 * process of a batch script is a world of one. None of them: rank 0 of 1.
 * The rendezvous file: `given` (--rendezvous), else /tmp/raytracer-rendezvous-JOB.id, which only
 * the ranks of one node see; a world of more than one without either is refused (no job id to name
 * the file by). timeout_seconds: --rendezvous-timeout, 0 for the default.
 * 0, or -1 with one line in error (a value that is no number, a rank outside the world, ...). */
int ranks_from_environment(ranks_getenv_fn get, const char *given, int timeout_seconds,
                           struct ranks *ranks, char *error, size_t error_size);

/* The GPU of this rank on its node, among the device_count GPUs this process sees
 * (CUDA_VISIBLE_DEVICES applied): first_device (--device) plus its local rank, or, where the
 * launcher gives no local rank, plus its rank modulo the GPUs from first_device on. A process
 * that srun or mpirun started and that sees one GPU alone takes it (the launcher gave each rank
 * its own, as srun --gpus-per-task=1 does; tools/launch-ranks.sh never does). More ranks on a node
 * than GPUs from first_device on: -1 with one line. device_count 0 (no GPU, or none found):
 * first_device, and the GPU's opening says what is wrong. */
int ranks_device(const struct ranks *ranks, int first_device, int device_count, int *device,
                 char *error, size_t error_size);

/* The rows of rank `rank` of `size` in an image of `height` rows: from height * rank / size up to
 * height * (rank + 1) / size (stage 40's split of the rows over GPUs). */
int ranks_first_row(int rank, int size, int height);

/* Rank 0: writes the id (bytes bytes) with the launch's job and size into ranks->rendezvous,
 * whole or not at all (a file beside it, then renamed). 0, or -1 with one line. */
int ranks_publish(const struct ranks *ranks, const unsigned char *id, size_t bytes, char *error,
                  size_t error_size);

/* The other ranks: waits until ranks->rendezvous holds an id of this launch (its job and size: a
 * file an earlier launch left is not taken) and reads it, for at most ranks->timeout_seconds.
 * 0, or -1 with one line (the file never came, or holds another launch's id). */
int ranks_await(const struct ranks *ranks, unsigned char *id, size_t bytes, char *error,
                size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
