/* options — the option tables of the commands; see options.h. */
#include "cli/options.h"

#include <string.h>

#include "base/diag.h"
#include "base/records.h"
#include "cli/cli.h"

/* A usage error of the command spec describes (cli_usage_error). */
#define usage_error(spec, ...) cli_usage_error((spec)->cmd, (spec)->usage, __VA_ARGS__)

/* The most names a command has, for "did you mean" (options.h). */
#define CLI_MAX_NAMES 64

static int is_help(const char *a)
{
	return !strcmp(a, "-h") || !strcmp(a, "--help");
}

size_t cli_option_names(const struct cli_spec *spec, const char **names, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < spec->nr_opts; i++) {
		const struct cli_option *o = &spec->opts[i];
		if (o->kind == CLI_OPT_DOC)
			continue;
		if (n < max)
			names[n] = o->name;
		n++;
		if (o->alias) {
			if (n < max)
				names[n] = o->alias;
			n++;
		}
	}
	if (n < max)
		names[n] = "--help";
	n++;
	if (n < max)
		names[n] = "-h";
	return n + 1;
}

/* The option argv[i] names (*eq: its value after '=', else NULL). */
static const struct cli_option *find(const struct cli_spec *spec, const char *a,
				     const char **eq)
{
	for (size_t i = 0; i < spec->nr_opts; i++) {
		const struct cli_option *o = &spec->opts[i];
		if (o->kind == CLI_OPT_DOC)
			continue;
		if (!strcmp(a, o->name) || (o->alias && !strcmp(a, o->alias)))
			return o;
		size_t len = strlen(o->name);
		int eq_ok = (o->flags & CLI_OPT_EQ) || (spec->flags & CLI_ALL_EQ);
		if (eq_ok && !strncmp(a, o->name, len) && a[len] == '=') {
			*eq = a + len + 1;
			return o;
		}
	}
	return NULL;
}

static int looks_like_option(const struct cli_spec *spec, const char *a)
{
	if (spec->flags & CLI_ALL_OPTIONS)
		return 1;
	if (spec->flags & CLI_DASHDASH)
		return !strncmp(a, "--", 2);
	return a[0] == '-' && a[1] != '\0';
}

/* Store val into args by o's kind: 0, or 2 after printing the error. */
static int store(const struct cli_spec *spec, void *args, const struct cli_option *o,
		 const char *typed, const char *val)
{
	char *dst = (char *)args + o->off;
	long long v;
	switch (o->kind) {
	case CLI_OPT_FLAG:
		*(int *)(void *)dst = 1;
		return 0;
	case CLI_OPT_NUM:
		if (cli_parse_long(spec->cmd, o->name, val, o->min, o->max, &v))
			return 2;
		*(long long *)(void *)dst = v;
		return 0;
	case CLI_OPT_FILE:
		if (!*val)
			return usage_error(spec, "%s needs a file name", o->name);
		*(const char **)(void *)dst = val;
		return 0;
	case CLI_OPT_TEXT:
		*(const char **)(void *)dst = val;
		return 0;
	case CLI_OPT_CHOICE:
		if (o->choice(dst, val) != NS_OK)
			return usage_error(spec, "%s '%s': expected %s", o->name, val,
					      o->expected);
		return 0;
	case CLI_OPT_FORMAT:
		if (rec_parse_format(val, (enum rec_format *)(void *)dst))
			return usage_error(spec, "unknown format '%s' (text, json or csv)",
					      val);
		return 0;
	case CLI_OPT_CALL:
		return o->call(dst, o, typed, val);
	case CLI_OPT_NUM_PAIR:         /* taken by cli_parse itself */
	case CLI_OPT_DOC:
		break;
	}
	return 0;
}

static int unknown(const struct cli_spec *spec, const char *a)
{
	const char *names[CLI_MAX_NAMES];
	size_t n = cli_option_names(spec, names, CLI_MAX_NAMES);
	return cli_unknown_option(spec->cmd, a, names, n < CLI_MAX_NAMES ? n : CLI_MAX_NAMES);
}

int cli_parse(const struct cli_spec *spec, void *args, int argc, char **argv)
{
	if (spec->flags & CLI_HELP_FIRST)
		for (int i = 1; i < argc; i++)
			if (is_help(argv[i])) {
				spec->help(spec);
				return CLI_HELP_SHOWN;
			}
	int operands_only = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		int rc;
		if (operands_only) {
			if ((rc = spec->operand(args, a)))
				return rc;
			continue;
		}
		if ((spec->flags & CLI_END_DASHDASH) && !strcmp(a, "--")) {
			operands_only = 1;
			continue;
		}
		if (is_help(a)) {
			spec->help(spec);
			return CLI_HELP_SHOWN;
		}
		const struct cli_option *o = find(spec, a, &val);
		if (!o && looks_like_option(spec, a) &&
		    !(spec->takes_dash && spec->takes_dash(args, a)))
			return unknown(spec, a);
		if (!o) {
			rc = spec->operand ? spec->operand(args, a)
					   : usage_error(spec, "unexpected argument '%s'", a);
			if (rc)
				return rc;
			continue;
		}
		if (o->kind == CLI_OPT_NUM_PAIR) {
			long long *dst = (long long *)(void *)((char *)args + o->off);
			if (i + 2 >= argc)
				return usage_error(spec, "option '%s' needs %s", o->name,
						      o->expected);
			if (cli_parse_long(spec->cmd, o->name, argv[i + 1], o->min, o->max,
					   &dst[0]) ||
			    cli_parse_long(spec->cmd, o->name, argv[i + 2], o->min, o->max,
					   &dst[1]))
				return 2;
			i += 2;
			continue;
		}
		if (!val && o->arg) {
			if (i + 1 < argc)
				val = argv[++i];
			else if (o->flags & CLI_OPT_OWN_MISSING)
				return o->call((char *)args + o->off, o, a, NULL);
			else
				return usage_error(spec, spec->needs_value ? spec->needs_value
						      : "option '%s' needs a value", a);
		}
		if ((rc = store(spec, args, o, a, val)))
			return rc;
	}
	return 0;
}

/* Print text indented by col after its first line, expanding "%D". */
static void print_text(FILE *f, const char *text, int col, const struct cli_option *o,
		       const void *defaults)
{
	for (const char *p = text; *p; p++) {
		if (p[0] == '%' && p[1] == 'D' && defaults) {
			const char *dflt = (const char *)defaults + o->off;
			if (o->kind == CLI_OPT_NUM)
				fprintf(f, "%lld", *(const long long *)(const void *)dflt);
			else
				fputs(*(const char *const *)(const void *)dflt, f);
			p++;
		} else if (*p == '\n') {
			fprintf(f, "\n%*s", col, "");
		} else {
			fputc(*p, f);
		}
	}
}

static void print_entry(FILE *f, int col, const char *syn, const char *help,
			const struct cli_option *o, const void *defaults)
{
	int len = fprintf(f, "  %s", syn);
	if (len + 1 > col)
		fprintf(f, "\n%*s", col, "");
	else
		fprintf(f, "%*s", col - len, "");
	print_text(f, help, col, o, defaults);
	fputc('\n', f);
}

void cli_print_options(FILE *f, const struct cli_spec *spec, const void *defaults)
{
	for (size_t i = 0; i < spec->nr_opts; i++) {
		const struct cli_option *o = &spec->opts[i];
		char syn[96];
		snprintf(syn, sizeof syn, "%s%s%s%s%s", o->alias ? o->alias : "",
			 o->alias ? ", " : "", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		print_entry(f, spec->help_col, syn, o->help, o, defaults);
		const char *note = spec->note ? spec->note(o) : NULL;
		if (note)
			fprintf(f, "%*s%s\n", spec->help_col, "", note);
	}
	static const struct cli_option help = {.name = "--help"};
	print_entry(f, spec->help_col, "-h, --help", "show this help", &help, NULL);
}
