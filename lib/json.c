// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <math.h>
#include "lib/json.h"
#include "lib/utf8.h"

void json_init(struct json *j, FILE *f, int pretty)
{
	j->f = f;
	j->depth = 0;
	j->count[0] = 0;
	j->after_key = 0;
	j->pretty = pretty;
}

static void indent(struct json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator before a value (or key) at the current level. */
static void value_prefix(struct json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->count[j->depth]++)
		fputc(',', j->f);
	if (j->depth)
		indent(j);
}

static void open(struct json *j, char c)
{
	value_prefix(j);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->count[j->depth] = 0;
}

static void close(struct json *j, char c)
{
	int had = j->count[j->depth];

	if (j->depth)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->f);
	if (!j->depth)
		fputc('\n', j->f);
}

void json_obj_begin(struct json *j)
{
	open(j, '{');
}

void json_obj_end(struct json *j)
{
	close(j, '}');
}

void json_arr_begin(struct json *j)
{
	open(j, '[');
}

void json_arr_end(struct json *j)
{
	close(j, ']');
}

/* Strings come from the target (thread names, paths): bytes that are not
 * UTF-8 become U+FFFD, so the document always parses. */
static void write_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	int n;

	fputc('"', f);
	while (*p) {
		n = utf8_char_len(p);
		if (!n) {
			fputs("\\ufffd", f);
			p++;
		} else if (n > 1) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			if (*p == '"' || *p == '\\')
				fprintf(f, "\\%c", *p);
			else if (*p == '\n')
				fputs("\\n", f);
			else if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
			p++;
		}
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	value_prefix(j);
	write_string(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = 1;
}

void json_str(struct json *j, const char *s)
{
	value_prefix(j);
	write_string(j->f, s);
}

void json_u64(struct json *j, uint64_t v)
{
	value_prefix(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v)
{
	value_prefix(j);
	fprintf(j->f, "%" PRId64, v);
}

void json_double(struct json *j, double v)
{
	value_prefix(j);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void json_null(struct json *j)
{
	value_prefix(j);
	fputs("null", j->f);
}

void json_bool(struct json *j, int v)
{
	value_prefix(j);
	fputs(v ? "true" : "false", j->f);
}

void json_kstr(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_str(j, s);
}

void json_ku64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kdouble(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_double(j, v);
}

void json_kbool(struct json *j, const char *key, int v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_ki64(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_i64(j, v);
}

void json_kfixed3(struct json *j, const char *key, int64_t v)
{
	uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;

	json_key(j, key);
	value_prefix(j);
	fprintf(j->f, "%s%" PRIu64 ".%03" PRIu64, v < 0 ? "-" : "", a / 1000, a % 1000);
}
