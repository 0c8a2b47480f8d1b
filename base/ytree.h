/*
 * ytree — strict YAML input for numasim's files (machines, cost profiles,
 * scenarios): a read-only node tree built from libyaml's event stream in
 * which every node keeps the 1-based line:col where it starts, plus typed
 * accessors that turn every violation into `file:line:col: error: ...`.
 *
 * What is accepted is deliberately narrower than YAML 1.1, so that a file
 * means one thing and cannot be used to exhaust the simulator:
 *   - one document per file, UTF-8 only;
 *   - no anchors (&a), no aliases (*a) and no explicit tags (!!str), so
 *     alias expansion ("billion laughs") cannot happen and scalars are typed
 *     only by the schema of the consumer;
 *   - at most YTREE_MAX_BYTES of input, YTREE_MAX_DEPTH nested collections
 *     and YTREE_MAX_NODES nodes; scalars must not contain NUL characters.
 * Only plain (unquoted) scalars can be numbers or null; a quoted "5" is a
 * string.  Integers are plain decimal without leading zeros (YAML 1.1 reads
 * 010 as octal) and without '_' separators; floats are decimal with an
 * optional exponent (no inf, nan or hex).
 *
 * Invariants of a tree: every node is in the tree's arena and lives as long
 * as the tree; a mapping holds 2 * nr items (key, value, key, value, ...);
 * a scalar's str is NUL-terminated and len excludes the NUL.
 *
 * Error policy: every function that can fail returns an NS_ status and
 * records the first error in a struct diag (NS_EINPUT for bad input with the
 * offending node's position, NS_ENOMEM, NS_EIO/NS_ENOENT for files).  On
 * failure nothing is returned and nothing stays allocated.
 */
#ifndef NUMASIM_YTREE_H
#define NUMASIM_YTREE_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

#define YTREE_MAX_BYTES ((size_t)16 << 20) /* 16 MiB */
#define YTREE_MAX_DEPTH 64
/* A 1024-node machine has ~1.07M nodes (its distance matrix is 1M). */
#define YTREE_MAX_NODES ((size_t)1 << 21)

enum ynode_kind { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP };
enum ynode_style { YSTYLE_PLAIN, YSTYLE_QUOTED, YSTYLE_BLOCK };

struct ynode {
	enum ynode_kind kind;
	enum ynode_style style;   /* scalars: how the value was written */
	int line, col;            /* 1-based start of the node */
	int end_line, end_col;    /* 1-based position just past the node */
	const char *str;          /* scalars: value, NUL-terminated */
	size_t len;               /* scalars: strlen(str) */
	size_t nr;                /* sequences: items; mappings: pairs */
	struct ynode **items;     /* sequence items, or key, value, ... */
};

struct ytree {
	char *name;               /* file name used in diagnostics */
	struct ynode *root;       /* the document's top-level node */
	struct ytree_arena *arena;
};

/* Name used in diagnostics for a path: "<stdin>" for "-". */
const char *ytree_display_name(const char *path);

/*
 * Read a whole file ("-" = standard input) into a NUL-terminated buffer
 * (*buf, malloc'ed, len bytes without the NUL).  Files larger than
 * YTREE_MAX_BYTES are refused with the position of the first byte past the
 * limit.
 */
int ytree_read_file(const char *path, char **buf, size_t *len, struct diag *d);

/* 1-based line and column of byte offset off in buf (columns count UTF-8
 * characters, as libyaml's marks do). */
void ytree_offset_pos(const char *buf, size_t len, size_t off, int *line,
		      int *col);

/* Parse buf (len bytes) into a tree; name is used in diagnostics. */
int ytree_parse(const char *name, const char *buf, size_t len,
		struct ytree **out, struct diag *d);

/* Tighter limits than the defaults, for callers that want them (and for
 * tests of the limit paths); max_depth is capped at YTREE_MAX_DEPTH. */
struct ytree_limits {
	size_t max_bytes;
	int max_depth;
	size_t max_nodes;
};
int ytree_parse_limited(const char *name, const char *buf, size_t len,
			const struct ytree_limits *lim, struct ytree **out,
			struct diag *d);
void ytree_free(struct ytree *t);

/* Record NS_EINPUT at node n (file t->name); returns NS_EINPUT. */
int ytree_error(const struct ytree *t, const struct ynode *n, struct diag *d,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Write s (len bytes) into buf as printable text for a message: control and
 * non-ASCII bytes escaped as \xNN, cut to about 40 characters with "...".
 * Returns buf.
 */
char *ytree_quote(const char *s, size_t len, char *buf, size_t bufsz);

/* "a mapping", "a sequence", "null", "an integer 5", "a string \"x\"", ... */
void ynode_describe(const struct ynode *n, char *buf, size_t bufsz);

int ynode_is_null(const struct ynode *n);
/* Value of key in mapping map (first occurrence), NULL if absent. */
const struct ynode *ynode_map_get(const struct ynode *map, const char *key);

struct ytree_field {
	const char *key;
	int required;
};

/* The choice closest to s[0..len) (edit distance under 3), or NULL: the
 * "did you mean" of a value out of a fixed list. */
const char *ytree_suggest(const char *s, size_t len, const char *const *choices, size_t nr);

/*
 * Check that n is a mapping whose keys are all among fields[0..nr), none
 * repeated and all required ones present; vals[i] receives the value of
 * fields[i].key or NULL.  what names the mapping in messages ("node").
 * Unknown keys get a "did you mean" hint when one is close.
 */
int ytree_fields(const struct ytree *t, const struct ynode *n, const char *what,
		 const struct ytree_field *fields, size_t nr,
		 const struct ynode **vals, struct diag *d);

/* Type checks: "'what' must be a mapping, got ..." at n. */
int ytree_expect_map(const struct ytree *t, const struct ynode *n,
		     const char *what, struct diag *d);
int ytree_expect_seq(const struct ytree *t, const struct ynode *n,
		     const char *what, struct diag *d);

/* A non-null scalar as a string (quoted or plain).  *out points into the
 * tree.  If nonempty, an empty or blank string is an error. */
int ytree_string(const struct ytree *t, const struct ynode *n,
		 const char *what, int nonempty, const char **out,
		 struct diag *d);
/* One line of printable text (no control characters), copied with
 * malloc into *out; NS_ENOMEM (reported in d) if the copy fails. */
int ytree_text(const struct ytree *t, const struct ynode *n, const char *what,
	       int nonempty, char **out, struct diag *d);
/* A plain decimal integer in [min, max]. */
int ytree_int(const struct ytree *t, const struct ynode *n, const char *what,
	      long long min, long long max, long long *out, struct diag *d);
/* A plain decimal number (integer or float), finite. */
int ytree_number(const struct ytree *t, const struct ynode *n,
		 const char *what, double *out, struct diag *d);

/* A plain decimal integer in [min, max] (within 0..UINT32_MAX) as a
 * uint32_t: the loaders' counts and cycles. */
int ytree_u32(const struct ytree *t, const struct ynode *n, const char *what,
	      long long min, long long max, uint32_t *out, struct diag *d);
/* A number in [min, max]: "WHAT must be between MIN and MAX, got V". */
int ytree_number_in(const struct ytree *t, const struct ynode *n, const char *what,
		    double min, double max, double *out, struct diag *d);
/* NS_ENOMEM, "out of memory" in file t->name (no position). */
int ytree_nomem(const struct ytree *t, struct diag *d);

/* Syntax checks on a scalar's text, without range checks. */
int ytree_is_int_text(const char *s, size_t len);
int ytree_is_float_text(const char *s, size_t len);

#endif
