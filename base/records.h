/*
 * records — the machine-readable output of numasim's commands (`--format
 * json|csv` of compare, report, run, bench, validate and list): a document
 * of named tables of flat rows, collected in memory, then written whole as
 * one JSON document or one CSV file (docs/reference/output-formats.md is the
 * schema of every command's document).
 *
 * Document.  Top-level scalars (rec_meta_*: "command", the database, the
 * options that shaped the result) and tables in the order first named;
 * a table is a list of rows, a row a list of (key, value) cells in the
 * order set, values text, numbers, integers, booleans or null.
 *
 * JSON (RFC 8259): one object, {"command": ..., "format_version": 1,
 * META..., "TABLE": [ROW, ...], ...}, one row object per line; numbers
 * with the fewest of 15-17 significant digits that read back to the
 * same double (0.05, 757.30769230769226),
 * integers exactly, NaN and infinities (which JSON cannot hold) as null,
 * strings through base/json.h (always valid UTF-8).
 *
 * CSV (RFC 4180, CRLF line ends, fields quoted when they hold a comma,
 * quote, CR or LF): one header record, "table" then every key of every
 * table in the order first set; one record per row with its table's name
 * first and empty fields for keys the row lacks; the meta values are one
 * record of table "meta".  Null is an empty field, booleans are true and
 * false, numbers as in JSON.
 *
 * Keys are stable: they are part of the documented schema and tests/cli
 * check them with jq; a new key may be added, none renamed.
 *
 * Error policy: the setters keep the first allocation failure (sticky,
 * like ferror) and do nothing after it; rec_write returns NS_ENOMEM then,
 * else writes everything and returns NS_OK (or NS_EIO when the stream
 * reports an error).  No globals.
 */
#ifndef NUMASIM_RECORDS_H
#define NUMASIM_RECORDS_H

#include <stdio.h>

enum rec_format {
	REC_TEXT,       /* the command's own text layout (not written here) */
	REC_JSON,
	REC_CSV,
};

/* "text", "json", "csv" -> *out; NS_EUSAGE otherwise. */
int rec_parse_format(const char *name, enum rec_format *out);

struct rec_doc;

/* A document of command cmd ("compare"); NULL when out of memory. */
struct rec_doc *rec_doc_new(const char *cmd);
void rec_doc_free(struct rec_doc *d);

/* Top-level scalars (later values of a key replace earlier ones). */
void rec_meta_str(struct rec_doc *d, const char *key, const char *v);
void rec_meta_num(struct rec_doc *d, const char *key, double v);
void rec_meta_int(struct rec_doc *d, const char *key, long long v);

/* Make table name current (created empty, so it is written as [] when it
 * gets no rows), and start a row in it. */
void rec_table(struct rec_doc *d, const char *name);
void rec_row(struct rec_doc *d);

/* Cells of the current row; v NULL (rec_str) is null. */
void rec_str(struct rec_doc *d, const char *key, const char *v);
void rec_num(struct rec_doc *d, const char *key, double v);
void rec_int(struct rec_doc *d, const char *key, long long v);
void rec_bool(struct rec_doc *d, const char *key, int v);
void rec_null(struct rec_doc *d, const char *key);

/* Rows of table name so far (0 when it does not exist). */
int rec_nr_rows(const struct rec_doc *d, const char *name);

/* Write d as fmt (REC_JSON or REC_CSV) to f. */
int rec_write(const struct rec_doc *d, enum rec_format fmt, FILE *f);

/*
 * d as CSV, one table per table of the document (numasim report --format
 * csv): with only NULL, every table (the meta values first, as table
 * "meta") as a line "# NAME", its header (the keys of its rows in the
 * order first set) and its rows, a blank line between tables; with only,
 * that table's header and rows alone (one plain CSV file).  NS_ENOENT
 * when the document has no table only (nothing written), NS_ENOMEM,
 * NS_EIO as rec_write.
 */
int rec_write_csv_tables(const struct rec_doc *d, const char *only, FILE *f);
/* The name of table i (0 .. rec_nr_tables - 1), in the order first named. */
int rec_nr_tables(const struct rec_doc *d);
const char *rec_table_name(const struct rec_doc *d, int i);

/* Invariant walker: every row belongs to a table, cells have keys. */
int rec_check(const struct rec_doc *d);

#endif
