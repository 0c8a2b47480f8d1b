/*
 * run_mpi — the message transport of distributed sweeps: `mpirun -n K
 * numasim run SCENARIO --db FILE --mpi` (or `srun numasim run ... --mpi`
 * under Slurm).  The plan itself (which rank simulates which run, the
 * order of the writes, --resume) lives in run.c; this module only moves
 * bytes between the ranks of MPI_COMM_WORLD.
 *
 * Protocol.  Rank 0 owns the database; the other ranks (workers) simulate
 * their share of the plan and send, in their own plan order, one RESULT
 * message per run (a serialized single-run database, analysis/
 * store_image.h) and finally one END message with their status (NS_OK,
 * RUN_STOPPED or an error and its text).  Rank 0 sends each worker
 * exactly one control message: "stop" when it ends the plan early (an
 * error, an interrupt), or "done" after the worker's END; so no message
 * is ever left unmatched at MPI_Finalize.  Waiting is done by polling
 * with short sleeps (never a busy MPI_Recv), so a rank that waits leaves
 * the core to the ranks that simulate, and rank 0 notices Ctrl-C while
 * it waits.  Only the main thread calls MPI (MPI_THREAD_FUNNELED): the
 * simulation threads of --jobs never do.
 *
 * Builds without MPI (meson -Dmpi=disabled, or no MPI found) compile
 * run_nompi.c instead: run_mpi_available() is 0 and run_mpi_init() fails
 * with NS_EUSAGE "numasim was built without MPI"; the other functions are
 * never reached and return NS_EINTERNAL.
 *
 * Error policy: NS_* status codes; MPI errors are NS_EIO with the MPI
 * error string in the diag given to run_mpi_init.
 */
#ifndef NUMASIM_RUN_MPI_H
#define NUMASIM_RUN_MPI_H

#include <signal.h>
#include <stddef.h>

#include "base/diag.h"

enum run_mpi_kind { RUN_MPI_RESULT, RUN_MPI_END };

struct run_mpi_msg {
	int kind;                 /* enum run_mpi_kind */
	long long pos;            /* RESULT: position in the plan's list of pending runs */
	int status;               /* END: NS_OK, RUN_STOPPED or the error */
	unsigned char *data;      /* RESULT: the run's image; END: the error
				     message (NUL-terminated, may be "") */
	size_t len;               /* bytes of data */
};

struct run_mpi;

int run_mpi_available(void);
/* MPI_Init_thread (FUNNELED); the diag receives later errors too. */
int run_mpi_init(int *argc, char ***argv, struct run_mpi **out, struct diag *d);
/* MPI_Finalize; NULL is a no-op. */
void run_mpi_finalize(struct run_mpi *m);
int run_mpi_rank(const struct run_mpi *m);
int run_mpi_size(const struct run_mpi *m);
/* Collective: *out = the largest v of all ranks. */
int run_mpi_max(struct run_mpi *m, int v, int *out);
/* Collective: rank 0's len bytes at buf to every rank (same len everywhere). */
int run_mpi_bcast(struct run_mpi *m, void *buf, size_t len);
/* Worker: queue a message to rank 0 (the data is copied). */
int run_mpi_send(struct run_mpi *m, const struct run_mpi_msg *msg);
/*
 * Rank 0: receive the next message of worker `from` (messages of one
 * worker arrive in the order sent).  Returns RUN_STOPPED when *stop
 * becomes non-zero while waiting (stop may be NULL).
 */
int run_mpi_recv(struct run_mpi *m, int from, const volatile sig_atomic_t *stop,
		 struct run_mpi_msg *msg);
void run_mpi_msg_free(struct run_mpi_msg *msg);
/* Rank 0: the worker's one control message: stop != 0 ends it early. */
int run_mpi_control(struct run_mpi *m, int to, int stop);
/* Worker: *stop = 1 once rank 0 said stop (non-blocking). */
int run_mpi_poll_stop(struct run_mpi *m, int *stop);
/* Worker, at the end: wait for the control message and pending sends. */
int run_mpi_wait(struct run_mpi *m);

#endif
