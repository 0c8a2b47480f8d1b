/*
 * run_mpi — MPI transport of distributed sweeps; see run_mpi.h.  Compiled
 * only when meson finds MPI (option `mpi`); run_nompi.c otherwise.
 *
 * Design notes.  A message is one MPI_BYTE buffer: a fixed header (kind,
 * status, position, length) and the payload, so a receiver learns the
 * size with MPI_Iprobe + MPI_Get_count and never needs a second round
 * trip.  Workers send with MPI_Isend and keep at most RUN_MPI_WINDOW sends
 * in flight (their buffers are owned here until completion), so a worker
 * can run ahead of rank 0 by a few runs without unbounded memory.  Every
 * wait polls (MPI_Test/MPI_Iprobe) with a sleep growing from 50 us to
 * 2 ms: Open MPI's blocking calls spin a core, which on an oversubscribed
 * node would steal it from the simulating ranks.
 */
#include "scenarios/run_mpi.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "scenarios/run.h"

#define RUN_MPI_WINDOW 4
#define TAG_MSG 1
#define TAG_CTRL 2
#define NAP_MIN_NS 50000L
#define NAP_MAX_NS 2000000L

struct wire_header {
	int32_t kind, status;
	int64_t pos, len;
};

struct pending {
	MPI_Request req;
	unsigned char *buf;
};

struct run_mpi {
	int rank, size;
	struct diag *d;
	/* worker: the control message from rank 0 */
	MPI_Request ctrl_req;
	int ctrl_buf, ctrl_done;
	struct pending pend[RUN_MPI_WINDOW];
	int nr_pend;
};

static int mpi_fail(struct run_mpi *m, int err, const char *what)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	if (MPI_Error_string(err, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof msg, "MPI error %d", err);
	return diag_set(m ? m->d : NULL, NS_EIO, "numasim run", 0, 0,
			"MPI rank %d: %s: %s", m ? m->rank : -1, what, msg);
}

/* Sleep a little longer each time a poll finds nothing. */
static void nap(long *ns)
{
	struct timespec ts = {0, *ns};
	nanosleep(&ts, NULL);
	*ns = *ns * 2 > NAP_MAX_NS ? NAP_MAX_NS : *ns * 2;
}

int run_mpi_available(void)
{
	return 1;
}

int run_mpi_init(int *argc, char ***argv, struct run_mpi **out, struct diag *d)
{
	int provided = 0, err;
	struct run_mpi *m = calloc(1, sizeof *m);
	*out = NULL;
	if (!m)
		return diag_set(d, NS_ENOMEM, "numasim run", 0, 0, "out of memory");
	m->d = d;
	if ((err = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided))) {
		free(m);
		return mpi_fail(NULL, err, "MPI_Init_thread");
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &m->size);
	if (provided < MPI_THREAD_FUNNELED) {
		MPI_Finalize();
		free(m);
		return diag_set(d, NS_EIO, "numasim run", 0, 0, "the MPI library "
				"does not support MPI_THREAD_FUNNELED");
	}
	if (m->rank != 0 &&
	    (err = MPI_Irecv(&m->ctrl_buf, 1, MPI_INT, 0, TAG_CTRL, MPI_COMM_WORLD,
			     &m->ctrl_req))) {
		run_mpi_finalize(m);
		return mpi_fail(NULL, err, "MPI_Irecv");
	}
	*out = m;
	return NS_OK;
}

void run_mpi_finalize(struct run_mpi *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nr_pend; i++) {
		MPI_Cancel(&m->pend[i].req);
		MPI_Request_free(&m->pend[i].req);
		free(m->pend[i].buf);
	}
	if (m->rank != 0 && !m->ctrl_done) {
		MPI_Cancel(&m->ctrl_req);
		MPI_Request_free(&m->ctrl_req);
	}
	MPI_Finalize();
	free(m);
}

int run_mpi_rank(const struct run_mpi *m)
{
	return m->rank;
}

int run_mpi_size(const struct run_mpi *m)
{
	return m->size;
}

int run_mpi_max(struct run_mpi *m, int v, int *out)
{
	int err = MPI_Allreduce(&v, out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return err ? mpi_fail(m, err, "MPI_Allreduce") : NS_OK;
}

int run_mpi_bcast(struct run_mpi *m, void *buf, size_t len)
{
	unsigned char *p = buf;
	while (len > 0) {
		int n = len > INT_MAX ? INT_MAX : (int)len;
		int err = MPI_Bcast(p, n, MPI_BYTE, 0, MPI_COMM_WORLD);
		if (err)
			return mpi_fail(m, err, "MPI_Bcast");
		p += n;
		len -= (size_t)n;
	}
	return NS_OK;
}

/* Wait (polling) until request *req completes. */
static int wait_req(struct run_mpi *m, MPI_Request *req, const char *what)
{
	long ns = NAP_MIN_NS;
	for (;;) {
		int done = 0, err = MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (err)
			return mpi_fail(m, err, what);
		if (done)
			return NS_OK;
		nap(&ns);
	}
}

/* Drop completed sends from the window (keeping their order). */
static int reap(struct run_mpi *m)
{
	int k = 0;
	for (int i = 0; i < m->nr_pend; i++) {
		int done = 0, err = MPI_Test(&m->pend[i].req, &done, MPI_STATUS_IGNORE);
		if (err)
			return mpi_fail(m, err, "MPI_Test");
		if (done)
			free(m->pend[i].buf);
		else
			m->pend[k++] = m->pend[i];
	}
	m->nr_pend = k;
	return NS_OK;
}

int run_mpi_send(struct run_mpi *m, const struct run_mpi_msg *msg)
{
	struct wire_header h = {msg->kind, msg->status, msg->pos, (int64_t)msg->len};
	size_t n = sizeof h + msg->len;
	int rc, err;

	if (n > INT_MAX)
		return diag_set(m->d, NS_ERANGE, "numasim run", 0, 0, "MPI rank %d: "
				"a message of %zu bytes is too large", m->rank, n);
	if ((rc = reap(m)))
		return rc;
	if (m->nr_pend == RUN_MPI_WINDOW) {
		if ((rc = wait_req(m, &m->pend[0].req, "MPI_Isend")))
			return rc;
		if ((rc = reap(m)))
			return rc;
	}
	unsigned char *buf = malloc(n);
	if (!buf)
		return diag_set(m->d, NS_ENOMEM, "numasim run", 0, 0, "out of memory");
	memcpy(buf, &h, sizeof h);
	if (msg->len)
		memcpy(buf + sizeof h, msg->data, msg->len);
	struct pending *p = &m->pend[m->nr_pend];
	if ((err = MPI_Isend(buf, (int)n, MPI_BYTE, 0, TAG_MSG, MPI_COMM_WORLD, &p->req))) {
		free(buf);
		return mpi_fail(m, err, "MPI_Isend");
	}
	p->buf = buf;
	m->nr_pend++;
	return NS_OK;
}

int run_mpi_recv(struct run_mpi *m, int from, const volatile sig_atomic_t *stop,
		 struct run_mpi_msg *msg)
{
	long ns = NAP_MIN_NS;
	MPI_Status status;
	int flag = 0, count = 0, err;
	struct wire_header h;

	memset(msg, 0, sizeof *msg);
	for (;;) {
		if ((err = MPI_Iprobe(from, TAG_MSG, MPI_COMM_WORLD, &flag, &status)))
			return mpi_fail(m, err, "MPI_Iprobe");
		if (flag)
			break;
		if (stop && *stop)
			return RUN_STOPPED;
		nap(&ns);
	}
	MPI_Get_count(&status, MPI_BYTE, &count);
	unsigned char *buf = malloc(count > 0 ? (size_t)count : 1);
	if (!buf)
		return diag_set(m->d, NS_ENOMEM, "numasim run", 0, 0, "out of memory");
	if ((err = MPI_Recv(buf, count, MPI_BYTE, from, TAG_MSG, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE))) {
		free(buf);
		return mpi_fail(m, err, "MPI_Recv");
	}
	if ((size_t)count < sizeof h) {
		free(buf);
		return diag_set(m->d, NS_EINTERNAL, "numasim run", 0, 0, "MPI rank "
				"%d sent a message of %d bytes", from, count);
	}
	memcpy(&h, buf, sizeof h);
	if (h.len != (int64_t)((size_t)count - sizeof h)) {
		free(buf);
		return diag_set(m->d, NS_EINTERNAL, "numasim run", 0, 0, "MPI rank "
				"%d sent a malformed message", from);
	}
	msg->kind = h.kind;
	msg->status = h.status;
	msg->pos = h.pos;
	msg->len = (size_t)h.len;
	/* the payload, NUL-terminated for END's text */
	msg->data = malloc(msg->len + 1);
	if (!msg->data) {
		free(buf);
		return diag_set(m->d, NS_ENOMEM, "numasim run", 0, 0, "out of memory");
	}
	memcpy(msg->data, buf + sizeof h, msg->len);
	msg->data[msg->len] = '\0';
	free(buf);
	return NS_OK;
}

void run_mpi_msg_free(struct run_mpi_msg *msg)
{
	free(msg->data);
	memset(msg, 0, sizeof *msg);
}

int run_mpi_control(struct run_mpi *m, int to, int stop)
{
	int v = stop != 0;
	int err = MPI_Send(&v, 1, MPI_INT, to, TAG_CTRL, MPI_COMM_WORLD);
	return err ? mpi_fail(m, err, "MPI_Send") : NS_OK;
}

int run_mpi_poll_stop(struct run_mpi *m, int *stop)
{
	*stop = 0;
	if (!m->ctrl_done) {
		int err = MPI_Test(&m->ctrl_req, &m->ctrl_done, MPI_STATUS_IGNORE);
		if (err)
			return mpi_fail(m, err, "MPI_Test");
	}
	*stop = m->ctrl_done && m->ctrl_buf;
	return NS_OK;
}

int run_mpi_wait(struct run_mpi *m)
{
	int rc = NS_OK;
	if (!m->ctrl_done && (rc = wait_req(m, &m->ctrl_req, "waiting for rank 0")) == NS_OK)
		m->ctrl_done = 1;
	while (rc == NS_OK && m->nr_pend > 0) {
		if ((rc = wait_req(m, &m->pend[0].req, "MPI_Isend")) == NS_OK)
			rc = reap(m);
	}
	return rc;
}
