/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A streaming JSON writer: values are written as they come, commas and
 * nesting are tracked here, nothing is buffered beyond stdio. */
#ifndef SBT_JSON_H
#define SBT_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	int count[JSON_MAX_DEPTH]; /* values written at each level */
	int after_key;
	int pretty;
};

void json_init(struct json *j, FILE *f, int pretty);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
void json_double(struct json *j, double v);
void json_null(struct json *j);
void json_bool(struct json *j, int v);

/* key + value in one call */
void json_kstr(struct json *j, const char *key, const char *s);
void json_ku64(struct json *j, const char *key, uint64_t v);
void json_kdouble(struct json *j, const char *key, double v);
void json_kbool(struct json *j, const char *key, int v);
void json_ki64(struct json *j, const char *key, int64_t v);
/* key + an exact decimal with three digits after the point, from an
 * integer count of thousandths (ns written as us without rounding) */
void json_kfixed3(struct json *j, const char *key, int64_t thousandths);

#endif
