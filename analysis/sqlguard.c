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
static int deny(struct sqlguard *g, const char *what, const char *name, const char *arg)
{
	if (!g->denied[0])
		snprintf(g->denied, sizeof g->denied, "%s%s%s%s%s", what, name ? name : "",
			 arg ? " = " : "", arg ? arg : "", name && !arg && !strcmp(what, "function ")
			 ? "() is not allowed" : " is not allowed");
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
		return deny(g, action_name(action), NULL, NULL);
	case SQLITE_FUNCTION:
		/* a1 is unused, a2 the function's name */
		return sqlguard_function_allowed(a2) ? SQLITE_OK : deny(g, "function ", a2, NULL);
	case SQLITE_PRAGMA:
		if (!a2 && listed(a1, pragmas_bare, sizeof pragmas_bare / sizeof *pragmas_bare))
			return SQLITE_OK;
		if (a2 && listed(a1, pragmas_arg, sizeof pragmas_arg / sizeof *pragmas_arg))
			return SQLITE_OK;
		return deny(g, "PRAGMA ", a1, a2);
	default:
		return deny(g, action_name(action), NULL, NULL);
	}
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
