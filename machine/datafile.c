/* datafile — finding shipped machines, cost profiles and scenarios; see
 * datafile.h. */
#include "machine/datafile.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "numasim_config.h"

static const char *const kind_names[] = {
	[DATAFILE_MACHINE] = "machine file",
	[DATAFILE_COSTS] = "cost profile",
	[DATAFILE_SCENARIO] = "scenario",
};

/* Where files of a kind sit below a data root. */
static const char *const kind_subdirs[] = {
	[DATAFILE_MACHINE] = "configs",
	[DATAFILE_COSTS] = "configs/costs",
	[DATAFILE_SCENARIO] = "scenarios",
};

const char *datafile_kind_name(enum datafile_kind k)
{
	return (unsigned)k <= DATAFILE_SCENARIO ? kind_names[k] : "file";
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A file a loader can open: anything that exists and is not a directory
 * (a directory falls through to the lookup, "scenarios" is not a file). */
static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* Append dir (canonicalised when it exists) unless absent or seen. */
static void add_dir(struct datafile_dirs *o, const char *dir)
{
	char canon[PATH_MAX];
	if (!dir || !*dir || o->nr == DATAFILE_MAX_DIRS || !is_dir(dir))
		return;
	if (realpath(dir, canon))
		dir = canon;
	size_t n = strlen(dir);
	if (n >= DATAFILE_PATH_MAX)
		return;         /* cannot be named in full: not searched */
	for (int i = 0; i < o->nr; i++)
		if (!strcmp(o->dir[i], dir))
			return;
	memcpy(o->dir[o->nr++], dir, n + 1);
}

/* The installed data directory relative to the running executable:
 * dirname(/proc/self/exe)/NUMASIM_BINDIR_TO_DATADIR; "" if unknown. */
static void exe_datadir(char *buf, size_t len, int *in_build)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	size_t bl = strlen(NUMASIM_BUILD_ROOT);
	buf[0] = '\0';
	*in_build = 0;
	if (n <= 0)
		return;
	exe[n] = '\0';
	*in_build = !strncmp(exe, NUMASIM_BUILD_ROOT, bl) && exe[bl] == '/';
	char *slash = strrchr(exe, '/');
	if (!slash || !*NUMASIM_BINDIR_TO_DATADIR)
		return;
	*slash = '\0';
	snprintf(buf, len, "%s/%s", exe, NUMASIM_BINDIR_TO_DATADIR);
}

void datafile_roots(struct datafile_dirs *out)
{
	char installed[PATH_MAX + 64];
	int in_build;
	out->nr = 0;
	exe_datadir(installed, sizeof installed, &in_build);
	if (in_build)
		add_dir(out, NUMASIM_SOURCE_ROOT);
	add_dir(out, installed);
	add_dir(out, NUMASIM_DATADIR);
	add_dir(out, NUMASIM_SOURCE_ROOT);
}

void datafile_kind_dirs(enum datafile_kind k, struct datafile_dirs *out)
{
	struct datafile_dirs roots;
	char p[DATAFILE_PATH_MAX + 32];
	const char *env = getenv("NUMASIM_CONFIGS");
	out->nr = 0;
	if (env && *env && k != DATAFILE_SCENARIO) {
		snprintf(p, sizeof p, "%s%s", env, k == DATAFILE_COSTS ? "/costs" : "");
		add_dir(out, p);
	}
	datafile_roots(&roots);
	for (int i = 0; i < roots.nr; i++) {
		snprintf(p, sizeof p, "%s/%s", roots.dir[i], kind_subdirs[k]);
		add_dir(out, p);
	}
}

static int has_yaml_suffix(const char *s)
{
	size_t n = strlen(s);
	return (n > 5 && !strcmp(s + n - 5, ".yaml")) ||
	       (n > 4 && !strcmp(s + n - 4, ".yml"));
}

/* dir/rest[suffix] into *out (malloc'ed) if that file exists. */
static int try_path(const char *dir, const char *rest, const char *suffix,
		    char **out)
{
	size_t n = strlen(dir) + strlen(rest) + strlen(suffix) + 2;
	char *p = malloc(n);
	if (!p)
		return NS_ENOMEM;
	snprintf(p, n, "%s/%s%s", dir, rest, suffix);
	if (is_file(p)) {
		*out = p;
		return NS_OK;
	}
	free(p);
	return NS_ENOENT;
}

/* "a, b and c" of the directories searched, for the message. */
static void list_dirs(const struct datafile_dirs *dd, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < dd->nr && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i == 0 ? "" : i + 1 == dd->nr ? " and " : ", ",
					dd->dir[i]);
	if (!dd->nr)
		snprintf(buf, len, "(no data directory found)");
}

int datafile_resolve(enum datafile_kind k, const char *ref, char **out,
		     struct diag *d)
{
	struct datafile_dirs dd;
	char where[1024];
	int rc = NS_ENOENT;
	*out = NULL;
	if (!strcmp(ref, "-") || is_file(ref) || ref[0] == '/') {
		*out = strdup(ref);
		return *out ? NS_OK : NS_ENOMEM;
	}
	if (!strchr(ref, '/')) {
		datafile_kind_dirs(k, &dd);
		for (int i = 0; i < dd.nr && rc == NS_ENOENT; i++)
			rc = try_path(dd.dir[i], ref, has_yaml_suffix(ref) ? "" : ".yaml",
				      out);
		if (rc != NS_ENOENT)
			return rc;
		list_dirs(&dd, where, sizeof where);
		return diag_set(d, NS_ENOENT, ref, 0, 0, "cannot open: no such file, "
				"and no shipped %s of that name in %s",
				datafile_kind_name(k), where);
	}
	const char *rest = ref;
	for (;;) {
		if (!strncmp(rest, "./", 2))
			rest += 2;
		else if (!strncmp(rest, "../", 3))
			rest += 3;
		else
			break;
	}
	datafile_roots(&dd);
	for (int i = 0; i < dd.nr && rc == NS_ENOENT; i++)
		rc = try_path(dd.dir[i], rest, "", out);
	if (rc != NS_ENOENT)
		return rc;
	list_dirs(&dd, where, sizeof where);
	return diag_set(d, NS_ENOENT, ref, 0, 0, "cannot open: no such file here "
			"or below %s", where);
}

const char *datafile_shown(const char *path)
{
	struct datafile_dirs dd;
	datafile_roots(&dd);
	for (int i = 0; i < dd.nr; i++) {
		size_t n = strlen(dd.dir[i]);
		if (!strncmp(path, dd.dir[i], n) && path[n] == '/')
			return path + n + 1;
	}
	/* the configured source root, also when realpath() changed it */
	size_t n = strlen(NUMASIM_SOURCE_ROOT);
	if (!strncmp(path, NUMASIM_SOURCE_ROOT, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

/* The file name of a path (after its last '/'). */
static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

static int path_name_cmp(const void *a, const void *b)
{
	return strcmp(base_name(*(char *const *)a), base_name(*(char *const *)b));
}

void datafile_list_free(char **paths, int n)
{
	for (int i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

int datafile_list(enum datafile_kind k, char ***paths, int *n)
{
	struct datafile_dirs dd;
	char **v = NULL;
	int nr = 0, cap = 0;
	datafile_kind_dirs(k, &dd);
	for (int i = 0; i < dd.nr; i++) {
		DIR *dir = opendir(dd.dir[i]);
		struct dirent *de;
		int first = nr;
		while (dir && (de = readdir(dir))) {
			size_t len = strlen(de->d_name);
			if (len < 6 || strcmp(de->d_name + len - 5, ".yaml") || de->d_name[0] == '.')
				continue;
			int dup = 0;
			for (int j = 0; j < first && !dup; j++)
				dup = !strcmp(base_name(v[j]), de->d_name);
			if (dup)
				continue;
			size_t plen = strlen(dd.dir[i]) + len + 2;
			char *p = malloc(plen);
			if (p)
				snprintf(p, plen, "%s/%s", dd.dir[i], de->d_name);
			if (p && !is_file(p)) {
				free(p);
				continue;
			}
			if (p && nr == cap) {
				char **nv = realloc(v, (size_t)(cap ? 2 * cap : 16) * sizeof *v);
				if (nv) {
					v = nv;
					cap = cap ? 2 * cap : 16;
				} else {
					free(p);
					p = NULL;
				}
			}
			if (!p) {
				closedir(dir);
				datafile_list_free(v, nr);
				return NS_ENOMEM;
			}
			v[nr++] = p;
		}
		if (dir)
			closedir(dir);
	}
	if (nr)
		qsort(v, (size_t)nr, sizeof *v, path_name_cmp);
	*paths = v;
	*n = nr;
	return NS_OK;
}
