// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include "lib/log.h" /* EXIT_USAGE */
#include "lib/words.h"
#include "user/cmd/argp_check.h"

#define MAX_LONG 128

/* The options of an argp tree: long names, and the short keys that take a
 * value (the next word when not attached). */
struct long_opts {
	const char *name[MAX_LONG];
	int takes_arg[MAX_LONG]; /* a required value: the next word when not "=" */
	size_t n;
	char short_arg[256];
};

static void add(struct long_opts *l, const char *name, int takes_arg)
{
	if (l->n < MAX_LONG) {
		l->name[l->n] = name;
		l->takes_arg[l->n++] = takes_arg;
	}
}

static void collect(struct long_opts *l, const struct argp *argp)
{
	const struct argp_option *o;
	const struct argp_child *c;
	int takes_arg = 0;

	for (o = argp->options; o && (o->name || o->key || o->doc); o++) {
		/* an alias (OPTION_ALIAS) shares its predecessor's argument */
		if (!(o->flags & OPTION_ALIAS))
			takes_arg = o->arg && !(o->flags & OPTION_ARG_OPTIONAL);
		if (o->name)
			add(l, o->name, takes_arg);
		if (o->key > 0 && o->key < 256)
			l->short_arg[o->key] = takes_arg;
	}
	for (c = argp->children; c && c->argp; c++)
		collect(l, c->argp);
}

/* The option a long word names: exactly, or as the one option it begins
 * (getopt's abbreviations). -1: none; -2: several (argp says which). */
static int lookup(const struct long_opts *l, const char *word, size_t len)
{
	int found = -1;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (strncmp(l->name[i], word, len))
			continue;
		if (strlen(l->name[i]) == len)
			return (int)i;
		found = found == -1 ? (int)i : -2;
	}
	return found;
}

/* In argp's words, as argp would have said it, with the nearest option. */
static int misspelled(const struct long_opts *l, const char *prog, const char *word)
{
	const char *near = words__closest(word, l->name, l->n, 2);

	fprintf(stderr, "%s: unrecognized option '--%s'", prog, word);
	if (near)
		fprintf(stderr, "; did you mean '--%s'?", near);
	fprintf(stderr, "\nTry `%s --help' or `%s --usage' for more information.\n", prog, prog);
	return EXIT_USAGE;
}

/* Skips the short options of a word ("-qo FILE"): 1 if the next word is
 * the value of its last one. */
static int short_takes_next(const struct long_opts *l, const char *word)
{
	for (; *word; word++)
		if (l->short_arg[(unsigned char)*word])
			return !word[1];
	return 0;
}

int argp_check_options(const struct argp *argp, int argc, char **argv)
{
	struct long_opts l = {.n = 0};
	const char *eq;
	size_t len;
	int i, k;

	collect(&l, argp);
	add(&l, "help", 0);
	add(&l, "usage", 0);
	add(&l, "version", 0);
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (argv[i][0] != '-' || !argv[i][1])
			continue;
		if (argv[i][1] != '-') {
			i += short_takes_next(&l, argv[i] + 1);
			continue;
		}
		eq = strchr(argv[i] + 2, '=');
		len = eq ? (size_t)(eq - argv[i] - 2) : strlen(argv[i] + 2);
		k = lookup(&l, argv[i] + 2, len);
		if (k == -2)
			continue;
		if (k < 0) {
			char word[64];

			snprintf(word, sizeof(word), "%.*s", (int)len, argv[i] + 2);
			return misspelled(&l, argv[0], word);
		}
		i += l.takes_arg[k] && !eq;
	}
	return 0;
}
