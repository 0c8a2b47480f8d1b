/*
 * resultset — result sets of SQL statements on a results database printed as
 * text tables, CSV or JSON, for `numasim query` and `numasim export`.
 *
 * Formats:
 *   table  a header line, a rule of dashes and one line per row, columns
 *          as wide as their widest value (capped at RESULTSET_TABLE_MAXW,
 *          longer text is cut with "..."), numbers (and text that is a
 *          plain decimal number, "12.10") right-aligned, other text
 *          left-aligned, NULL printed as an empty field; then "(N rows)";
 *   csv    RFC 4180: a header record, CRLF line ends, fields quoted when
 *          they contain a comma, a double quote, CR or LF (quotes doubled);
 *          NULL is an empty field, REAL values with 17 significant digits
 *          (they read back to the same double), BLOBs as hex; a TEXT
 *          cell that starts with =, +, -, @, tab or CR (a spreadsheet
 *          would run it as a formula: OWASP "CSV Injection") gets a
 *          leading single quote and is quoted ("'=1+1"); INTEGER and
 *          REAL cells are numbers and stay as they are, negative ones
 *          too; RESULTSET_CSV_RAW (--csv-raw) writes text as it is;
 *   json   one array of objects, one object per row with the column names
 *          as keys; INTEGER and REAL as JSON numbers (REAL with 17
 *          significant digits; infinities, which JSON cannot hold, as
 *          null), TEXT as strings with JSON escapes (a byte that is
 *          not well-formed UTF-8 as \ufffd), NULL as null, BLOBs
 *          as hex strings.  Duplicate column names keep their order.
 *
 * resultset_statement() runs one prepared statement to its end and writes its
 * rows to f; resultset_sql() prepares exactly one statement from text and
 * refuses statements that would write (sqlite3_stmt_readonly), more than
 * one statement, or empty text.
 *
 * Error policy: NS_EUSAGE for a bad format name; NS_EINPUT for SQL that
 * does not compile, writes, or is not exactly one statement (the user's
 * input); NS_EDB when stepping fails; NS_ENOMEM.  Messages go to d with
 * the given origin (a database path or "numasim query").  Output goes to
 * f as the rows come: callers that must print nothing on failure pass a
 * memory stream.  No state.
 */
#ifndef NUMASIM_SQLOUT_H
#define NUMASIM_SQLOUT_H

#include <stdio.h>

#include <sqlite3.h>

#include "base/diag.h"

enum resultset_format {
	RESULTSET_TABLE,
	RESULTSET_CSV,
	RESULTSET_JSON,
	RESULTSET_CSV_RAW,      /* csv without the formula guard (--csv-raw) */
};

/* Widest column in table format (characters). */
#define RESULTSET_TABLE_MAXW 60

/* "table", "csv", "json" -> *out; NS_EUSAGE otherwise. */
int resultset_parse_format(const char *name, enum resultset_format *out);

/* Run st to completion; rows to f.  *nrows (may be NULL) counts them. */
int resultset_statement(sqlite3_stmt *st, enum resultset_format fmt, FILE *f,
		     long long *nrows, const char *origin, struct diag *d);

/* Prepare one read-only statement from sql, run it, finalize it. */
int resultset_sql(sqlite3 *db, const char *sql, enum resultset_format fmt, FILE *f,
	       long long *nrows, const char *origin, struct diag *d);

/*
 * Run st to completion and add each row to table of doc (base/records.h):
 * the column names as keys, INTEGER as integers, REAL as numbers, TEXT as
 * strings, NULL as null, BLOBs as hex strings.  The --format json|csv of
 * numasim report.  *nrows (may be NULL) counts the rows.
 */
struct rec_doc;
int resultset_records(sqlite3_stmt *st, struct rec_doc *doc, const char *table,
		      long long *nrows, const char *origin, struct diag *d);
/* Write s as a CSV field (formula-guarded; raw: as it is) / a JSON string
 * (with quotes, always UTF-8) to f. */
void resultset_csv_field(FILE *f, const char *s, size_t len);
void resultset_csv_cell(FILE *f, const char *s, size_t len, int raw);
/* 1 when a spreadsheet would read the text cell s as a formula. */
int resultset_csv_formula(const char *s, size_t len);
void resultset_json_string(FILE *f, const char *s, size_t len);

#endif
