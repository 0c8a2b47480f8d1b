/*
 * run_mpi for builds without MPI (meson -Dmpi=disabled or no MPI found):
 * the same API as run_mpi.c; `numasim run --mpi` reports that the binary
 * was built without MPI (NS_EUSAGE, exit 2).  The other functions are
 * unreachable without a successful run_mpi_init and say so.
 */
#include "scenarios/run_mpi.h"

int run_mpi_available(void)
{
	return 0;
}

int run_mpi_init(int *argc, char ***argv, struct run_mpi **out, struct diag *d)
{
	(void)argc;
	(void)argv;
	*out = NULL;
	return diag_set(d, NS_EUSAGE, "numasim run", 0, 0,
			"numasim was built without MPI (install an MPI library, "
			"e.g. libopenmpi-dev, and rebuild with -Dmpi=enabled)");
}

void run_mpi_finalize(struct run_mpi *m)
{
	(void)m;
}

int run_mpi_rank(const struct run_mpi *m)
{
	(void)m;
	return 0;
}

int run_mpi_size(const struct run_mpi *m)
{
	(void)m;
	return 1;
}

static int no_mpi(void)
{
	return NS_EINTERNAL;
}

int run_mpi_max(struct run_mpi *m, int v, int *out)
{
	(void)m;
	*out = v;
	return no_mpi();
}

int run_mpi_bcast(struct run_mpi *m, void *buf, size_t len)
{
	(void)m;
	(void)buf;
	(void)len;
	return no_mpi();
}

int run_mpi_send(struct run_mpi *m, const struct run_mpi_msg *msg)
{
	(void)m;
	(void)msg;
	return no_mpi();
}

int run_mpi_recv(struct run_mpi *m, int from, const volatile sig_atomic_t *stop,
		 struct run_mpi_msg *msg)
{
	(void)m;
	(void)from;
	(void)stop;
	(void)msg;
	return no_mpi();
}

void run_mpi_msg_free(struct run_mpi_msg *msg)
{
	(void)msg;
}

int run_mpi_control(struct run_mpi *m, int to, int stop)
{
	(void)m;
	(void)to;
	(void)stop;
	return no_mpi();
}

int run_mpi_poll_stop(struct run_mpi *m, int *stop)
{
	(void)m;
	*stop = 1;
	return no_mpi();
}

int run_mpi_wait(struct run_mpi *m)
{
	(void)m;
	return no_mpi();
}
