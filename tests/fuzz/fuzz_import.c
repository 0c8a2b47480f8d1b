/*
 * fuzz_numactl / fuzz_sysfs — libFuzzer targets of the machine importers
 * (machine/import.h), built from this one file (-DFUZZ_SYSFS for sysfs).
 *
 * numactl: the input is `numactl --hardware` text for import_numactl.
 * sysfs: the input is a tree in the form `head` prints several files in,
 * "==> PATH <==" on a line of its own, then the file's content; it is
 * written under a scratch directory (paths of [A-Za-z0-9_.,-/] only, no
 * "..", at most 64 files) and read by import_sysfs as ROOT.
 *
 * An import that succeeds is rendered (import_render, which loads the
 * rendered file back with machine_load_buf) and that machine must pass
 * machine_check.  Seeds: tests/fixtures/numactl (also its bad/) and the
 * trees of tests/fixtures/sysfs, converted by tests/fuzz/run.sh.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <ftw.h>

#include "machine/emit.h"
#include "machine/import.h"
#include "machine/machine.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef FUZZ_SYSFS
#define FUZZ_MAX_FILES 64

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

/* A relative path the tree may hold: no "..", no empty or absolute name. */
static int path_ok(const char *p, size_t n)
{
	if (n == 0 || n > 200 || p[0] == '/')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("_.,-/", c)))
			return 0;
		if (c == '.' && i + 1 < n && p[i + 1] == '.')
			return 0;
	}
	return 1;
}

/* mkdir -p of the directories of root/rel. */
static void make_dirs(char *full, size_t root_len)
{
	for (char *s = full + root_len + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(full, 0755);
		*s = '/';
	}
}

/* Open root/NAME for writing (its directories made), or NULL. */
static FILE *open_file(const char *root, const char *name, size_t nlen)
{
	char full[512];
	if (!path_ok(name, nlen))
		return NULL;
	snprintf(full, sizeof full, "%s/%.*s", root, (int)nlen, name);
	make_dirs(full, strlen(root));
	return fopen(full, "wb");
}

/* Write the tree of the input under root (emptied first). */
static void write_tree(const char *root, const char *data, size_t size)
{
	const char *p = data, *end = data + size;
	FILE *f = NULL;
	int files = 0;
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)((nl ? nl : end) - p);
		if (l > 8 && !memcmp(p, "==> ", 4) && !memcmp(p + l - 4, " <==", 4)) {
			if (f)
				fclose(f);
			f = files < FUZZ_MAX_FILES ? open_file(root, p + 4, l - 8) : NULL;
			files += f != NULL;
		} else if (f) {
			fwrite(p, 1, l + (nl != NULL), f);
		}
		p += l + 1;
	}
	if (f)
		fclose(f);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct machine_desc m;
	struct import_opts o;
	struct diag d;
	char *text = NULL;
	size_t len = 0;
	int rc;

	import_opts_init(&o);
	o.name = "fuzz";
	machine_desc_init(&m);
	diag_init(&d);
#ifdef FUZZ_SYSFS
	const char *root = fuzz_scratch();
	write_tree(root, (const char *)data, size);
	rc = import_sysfs(root, &o, &m, NULL, &d);
#else
	rc = import_numactl("fuzz.txt", (const char *)data, size, &o, &m, NULL, &d);
#endif
	if (rc == NS_OK)
		rc = import_render(&m, "fuzz.yaml", &text, &len, &d);
	if (rc == NS_OK) {
		struct machine *mm = NULL;
		diag_init(&d);
		if (machine_load_buf("fuzz.yaml", text, len, &mm, &d) != NS_OK ||
		    machine_check(mm, &d) != NS_OK)
			fuzz_check_failed("the importer", &d);
		machine_free(mm);
	}
	free(text);
	machine_desc_free(&m);
	return 0;
}
