/* diag — status table and first-error diagnostics; see diag.h. */
#include "base/diag.h"

#include <errno.h>
#include <string.h>

struct status_row {
	int status;
	int exitc;
	const char *name;
	const char *msg;
};

static const struct status_row status_rows[] = {
#define NS_STATUS_ROW(name, val, exitc, msg) {(val), (exitc), #name, (msg)},
	NS_STATUS_MAP(NS_STATUS_ROW)
#undef NS_STATUS_ROW
};

static const struct status_row *status_find(int status)
{
	for (size_t i = 0; i < sizeof status_rows / sizeof status_rows[0]; i++)
		if (status_rows[i].status == status)
			return &status_rows[i];
	return NULL;
}

const char *ns_status_name(int status)
{
	const struct status_row *r = status_find(status);
	return r ? r->name : "unknown";
}

const char *ns_status_msg(int status)
{
	const struct status_row *r = status_find(status);
	return r ? r->msg : "unknown status";
}

int ns_status_exit(int status)
{
	const struct status_row *r = status_find(status);
	return r ? r->exitc : 1;
}

void diag_init(struct diag *d)
{
	memset(d, 0, sizeof *d);
}

int diag_vset(struct diag *d, int status, const char *file, int line, int col,
	      const char *fmt, va_list ap)
{
	if (!d)
		return status;
	if (d->status != NS_OK)
		return d->status;
	d->status = status;
	d->line = line > 0 ? line : 0;
	d->col = col > 0 ? col : 0;
	snprintf(d->file, sizeof d->file, "%s", file ? file : "");
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	return status;
}

int diag_set(struct diag *d, int status, const char *file, int line, int col,
	     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = diag_vset(d, status, file, line, col, fmt, ap);
	va_end(ap);
	return r;
}

void diag_print(const struct diag *d, FILE *f)
{
	const char *msg = d->msg[0] ? d->msg : ns_status_msg(d->status);
	if (d->file[0] && d->line > 0)
		fprintf(f, "%s:%d:%d: error: %s\n", d->file, d->line,
			d->col > 0 ? d->col : 1, msg);
	else if (d->file[0])
		fprintf(f, "%s: error: %s\n", d->file, msg);
	else
		fprintf(f, "numasim: error: %s\n", msg);
}

int ns_status_from_errno(int err)
{
	switch (err) {
	case ENOENT:
		return NS_ENOENT;
	case EACCES:
	case EPERM:
	case EROFS:
	case ENOTDIR:
	case EISDIR:
	case ELOOP:
	case ENAMETOOLONG:
		return NS_EINPUT;
	case ENOMEM:
		return NS_ENOMEM;
	default:
		return NS_EIO;
	}
}
