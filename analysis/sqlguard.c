/*
 * sqlguard — connection lockdown and the authorizer of user SQL; see
 * sqlguard.h.
 *
 * Design notes
 *
 * Allow lists, not deny lists: SQLite grows functions and pragmas with
 * every release and Debian's build enables optional ones (FTS3 with
 * ENABLE_FTS3_TOKENIZER, whose one-argument fts3_tokenizer('simple')
 * returns a process address, and which the DBCONFIG switch does not
 * cover); a name unknown here is denied.  The lists are sorted, so a
 * lookup is a bsearch (the authorizer runs once per function and column
 * reference at prepare time, not per row).
 *
 * Pragmas: the authorizer sees the pragma's name and its argument (NULL
 * without one; "wal" for `PRAGMA journal_mode = wal` and for
 * `journal_mode(wal)`), so "reads" is decided without parsing the SQL.
 * The pragma_xxx() table-valued functions reach the authorizer as the
 * same SQLITE_PRAGMA action.
 */
#include "analysis/sqlguard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/diag.h"

/* Functions that only compute a value from their arguments (or the time,
 * or a random number): SQLite's core, date/time, math, JSON, aggregate
 * and window functions.  Sorted (strcmp). */
static const char *const functions[] = {
	"abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh",
	"avg", "ceil", "ceiling", "char", "coalesce", "cos", "cosh", "count",
	"cume_dist", "date", "datetime", "degrees", "dense_rank", "exp",
	"first_value", "floor", "format", "glob", "group_concat", "hex",
	"ifnull", "iif", "instr", "json", "json_array", "json_array_length",
	"json_extract", "json_group_array", "json_group_object", "json_insert",
	"json_object", "json_patch", "json_quote", "json_remove", "json_replace",
	"json_set", "json_type", "json_valid", "julianday", "lag", "last_value",
	"lead", "length", "like", "likelihood", "likely", "ln", "log", "log10",
	"log2", "lower", "ltrim", "max", "min", "mod", "nth_value", "ntile",
	"nullif", "percent_rank", "pi", "pow", "power", "printf", "quote",
	"radians", "random", "rank", "replace", "round", "row_number", "rtrim",
	"sign", "sin", "sinh", "soundex", "sqlite_version", "sqrt", "strftime",
	"string_agg", "substr", "substring", "sum", "tan", "tanh", "time",
	"total", "trim", "trunc", "typeof", "unicode", "unixepoch", "unlikely",
	"upper",
};

/* Pragmas that read without an argument.  Sorted. */
static const char *const pragmas_bare[] = {
	"application_id", "auto_vacuum", "collation_list", "compile_options",
	"data_version", "database_list", "encoding", "foreign_key_check",
	"foreign_keys", "freelist_count", "function_list", "integrity_check",
	"journal_mode", "module_list", "page_count", "page_size", "pragma_list",
	"query_only", "quick_check", "schema_version", "synchronous",
	"table_list", "user_version",
};

/* Pragmas whose argument names what they describe (or, for the checks,
 * limits the output): they read whatever it is.  Sorted. */
static const char *const pragmas_arg[] = {
	"foreign_key_check", "foreign_key_list", "index_info", "index_list",
	"index_xinfo", "integrity_check", "quick_check", "table_info",
	"table_list", "table_xinfo",
};

static int cmp(const void *key, const void *elt)
{
	return strcasecmp(key, *(const char *const *)elt);
}

static int listed(const char *name, const char *const *list, size_t n)
{
	return name && bsearch(name, list, n, sizeof *list, cmp) != NULL;
}

int sqlguard_function_allowed(const char *name)
{
	return listed(name, functions, sizeof functions / sizeof *functions);
}

/* Keep the first denial's sentence. */
static int deny(struct sqlguard *g, const char *fmt, const char *a, const char *b)
	__attribute__((format(printf, 2, 0)));
static int deny(struct sqlguard *g, const char *fmt, const char *a, const char *b)
{
	if (!g->denied[0])
		snprintf(g->denied, sizeof g->denied, fmt, a ? a : "?", b ? b : "?");
	return SQLITE_DENY;
}

/* The action codes that are writes or side effects, by name, so the
 * message says what was refused. */
static const char *action_name(int action)
{
	switch (action) {
	case SQLITE_INSERT: return "INSERT";
	case SQLITE_UPDATE: return "UPDATE";
	case SQLITE_DELETE: return "DELETE";
	case SQLITE_ATTACH: return "ATTACH";
	case SQLITE_DETACH: return "DETACH";
	case SQLITE_TRANSACTION: return "a transaction";
	case SQLITE_SAVEPOINT: return "a savepoint";
	case SQLITE_CREATE_TABLE: case SQLITE_CREATE_TEMP_TABLE: return "CREATE TABLE";
	case SQLITE_CREATE_VIEW: case SQLITE_CREATE_TEMP_VIEW: return "CREATE VIEW";
	case SQLITE_CREATE_INDEX: case SQLITE_CREATE_TEMP_INDEX: return "CREATE INDEX";
	case SQLITE_CREATE_TRIGGER: case SQLITE_CREATE_TEMP_TRIGGER: return "CREATE TRIGGER";
	case SQLITE_DROP_TABLE: case SQLITE_DROP_TEMP_TABLE: return "DROP TABLE";
	case SQLITE_DROP_VIEW: case SQLITE_DROP_TEMP_VIEW: return "DROP VIEW";
	case SQLITE_DROP_INDEX: case SQLITE_DROP_TEMP_INDEX: return "DROP INDEX";
	case SQLITE_DROP_TRIGGER: case SQLITE_DROP_TEMP_TRIGGER: return "DROP TRIGGER";
	case SQLITE_ALTER_TABLE: return "ALTER TABLE";
	case SQLITE_REINDEX: return "REINDEX";
	case SQLITE_ANALYZE: return "ANALYZE";
	case SQLITE_CREATE_VTABLE: case SQLITE_DROP_VTABLE: return "a virtual table";
	default: return "a statement that writes";
	}
}

static int authorize(void *arg, int action, const char *a1, const char *a2,
		     const char *db, const char *trigger)
{
	struct sqlguard *g = arg;
	(void)db, (void)trigger;
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	case SQLITE_UPDATE:
		/* The first use of an eponymous virtual table (json_each(),
		 * pragma_table_info()) asks for UPDATE of sqlite_schema's
		 * columns while SQLite declares the table; no statement a user
		 * writes gets past the read-only checks with it (DEFENSIVE
		 * forbids writing the schema table, sqlite3_stmt_readonly and
		 * PRAGMA query_only refuse any UPDATE). */
		if (a1 && (!strcmp(a1, "sqlite_master") || !strcmp(a1, "sqlite_schema")))
			return SQLITE_OK;
		return deny(g, "%s writes (databases are opened read-only)",
			    action_name(action), NULL);
	case SQLITE_FUNCTION:
		/* a1 is unused, a2 the function's name */
		return sqlguard_function_allowed(a2) ? SQLITE_OK
						     : deny(g, "function %s() is not allowed", a2, NULL);
	case SQLITE_PRAGMA:
		if (!a2 && listed(a1, pragmas_bare, sizeof pragmas_bare / sizeof *pragmas_bare))
			return SQLITE_OK;
		if (a2 && listed(a1, pragmas_arg, sizeof pragmas_arg / sizeof *pragmas_arg))
			return SQLITE_OK;
		if (a2)
			return deny(g, "PRAGMA %s = %s sets a value (only the pragmas that "
				    "report are allowed)", a1, a2);
		return deny(g, "PRAGMA %s is not allowed (only the pragmas that report "
			    "are)", a1, NULL);
	case SQLITE_ATTACH:
	case SQLITE_DETACH:
	case SQLITE_TRANSACTION:
	case SQLITE_SAVEPOINT:
		return deny(g, "%s is not allowed (a query is one reading statement)",
			    action_name(action), NULL);
	default:
		return deny(g, "%s writes (databases are opened read-only)",
			    action_name(action), NULL);
	}
}

/*
 * json_group_object(K, V) as SQLite 3.40's json.c computes it
 * (jsonObjectStep, jsonObjectFinal, jsonAppendValue, jsonAppendString),
 * registered SQLITE_INNOCUOUS.  With the schema untrusted, a view in the
 * file may only call innocuous functions, and SQLite 3.40 does not mark
 * its JSON functions so (pragma_function_list shows flags 0x100800); the
 * run_params view of numasim's own schema calls this one.  It only
 * computes a value, like the original: the key as a JSON string, the
 * value as null, its number text, a JSON string, or verbatim when it is
 * JSON (subtype 'J'); a blob is an error; no rows give "{}".
 */
#define JSON_SUBTYPE 74 /* 'J', json.c's */

struct jbuf {
	char *z;
	sqlite3_uint64 n, cap;
	int oom;
};

static void jb_add(struct jbuf *b, const char *z, sqlite3_uint64 n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		sqlite3_uint64 cap = (b->cap ? b->cap * 2 : 128) + n;
		char *nz = sqlite3_realloc64(b->z, cap);
		if (!nz) {
			b->oom = 1;
			return;
		}
		b->z = nz;
		b->cap = cap;
	}
	memcpy(b->z + b->n, z, n);
	b->n += n;
}

/* jsonAppendString: '"' and '\\' escaped, \b \t \n \f \r short, other
 * control characters \u00XX. */
static void jb_string(struct jbuf *b, const unsigned char *z, sqlite3_uint64 n)
{
	static const char special[32] = {0, 0, 0, 0, 0, 0, 0, 0, 'b', 't', 'n', 0, 'f', 'r'};
	jb_add(b, "\"", 1);
	for (sqlite3_uint64 i = 0; i < n; i++) {
		unsigned char c = z[i];
		char esc[8];
		if (c == '"' || c == '\\') {
			esc[0] = '\\', esc[1] = (char)c;
			jb_add(b, esc, 2);
		} else if (c <= 0x1f && special[c]) {
			esc[0] = '\\', esc[1] = special[c];
			jb_add(b, esc, 2);
		} else if (c <= 0x1f) {
			snprintf(esc, sizeof esc, "\\u%04x", c);
			jb_add(b, esc, 6);
		} else {
			jb_add(b, (const char *)&z[i], 1);
		}
	}
	jb_add(b, "\"", 1);
}

static void jgo_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct jbuf *b = sqlite3_aggregate_context(ctx, sizeof *b);
	(void)argc;
	if (!b)
		return;
	jb_add(b, b->n ? "," : "{", 1);
	jb_string(b, sqlite3_value_text(argv[0]), (sqlite3_uint64)sqlite3_value_bytes(argv[0]));
	jb_add(b, ":", 1);
	sqlite3_value *v = argv[1];
	const char *t = (const char *)sqlite3_value_text(v);
	sqlite3_uint64 n = (sqlite3_uint64)sqlite3_value_bytes(v);
	switch (sqlite3_value_type(v)) {
	case SQLITE_NULL:
		jb_add(b, "null", 4);
		break;
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		jb_add(b, t, n);
		break;
	case SQLITE_TEXT:
		if (sqlite3_value_subtype(v) == JSON_SUBTYPE)
			jb_add(b, t, n);
		else
			jb_string(b, (const unsigned char *)t, n);
		break;
	default:
		b->oom = -1; /* json.c: "JSON cannot hold BLOB values" */
		break;
	}
}

static void jgo_final(sqlite3_context *ctx)
{
	struct jbuf *b = sqlite3_aggregate_context(ctx, 0);
	if (!b || !b->n) {
		sqlite3_result_text(ctx, "{}", 2, SQLITE_STATIC);
	} else if (b->oom < 0) {
		sqlite3_result_error(ctx, "JSON cannot hold BLOB values", -1);
	} else if (b->oom) {
		sqlite3_result_error_nomem(ctx);
	} else {
		jb_add(b, "}", 1);
		if (b->oom) {
			sqlite3_result_error_nomem(ctx);
		} else {
			sqlite3_result_text64(ctx, b->z, b->n, sqlite3_free, SQLITE_UTF8);
			b->z = NULL;
			sqlite3_result_subtype(ctx, JSON_SUBTYPE);
		}
	}
	if (b)
		sqlite3_free(b->z);
}

int sqlguard_lockdown(sqlite3 *db)
{
	static const struct {
		int op, value;
	} cfg[] = {
		{SQLITE_DBCONFIG_DEFENSIVE, 1},
		{SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
		{SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0},
		{SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0},
	};
	for (size_t i = 0; i < sizeof cfg / sizeof *cfg; i++) {
		int now = -1;
		if (sqlite3_db_config(db, cfg[i].op, cfg[i].value, &now) != SQLITE_OK ||
		    now != cfg[i].value)
			return NS_EDB;
	}
	if (sqlite3_create_function(db, "json_group_object", 2,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
				    NULL, NULL, jgo_step, jgo_final) != SQLITE_OK)
		return NS_EDB;
	return NS_OK;
}

void sqlguard_user_sql(sqlite3 *db, struct sqlguard *g)
{
	g->denied[0] = '\0';
	sqlite3_set_authorizer(db, authorize, g);
}

const char *sqlguard_denied(const struct sqlguard *g)
{
	return g->denied;
}

static int sorted(const char *const *list, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcasecmp(list[i - 1], list[i]) >= 0)
			return 0;
	return 1;
}

int sqlguard_check(void)
{
	return sorted(functions, sizeof functions / sizeof *functions) &&
	       sorted(pragmas_bare, sizeof pragmas_bare / sizeof *pragmas_bare) &&
	       sorted(pragmas_arg, sizeof pragmas_arg / sizeof *pragmas_arg)
		       ? NS_OK : NS_EINTERNAL;
}
