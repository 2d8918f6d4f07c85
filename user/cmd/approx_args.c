// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include "user/cmd/approx_args.h"

enum { OPT_MODEL = 2000, OPT_EXIT_ORDER, OPT_APPROXIMATED, OPT_MEASURED, OPT_NO_BAND };

static const struct argp_option options[] = {
	{"model", OPT_MODEL, "MODEL", 0,
	 "Perturbation model: mr (Malony-Reed, default), sm (Sarukkai-Malony barrier exits), "
	 "time (time-based only, no synchronization model)",
	 0},
	{"exit-order", OPT_EXIT_ORDER, "ORDER", 0,
	 "Barrier exit order of the sm model: rank (measured, default) or reverse (reverse "
	 "arrival)",
	 0},
	{"approximated", OPT_APPROXIMATED, NULL, 0,
	 "Show approximated times only (probe cost removed); default: measured and approximated "
	 "side by side",
	 0},
	{"measured", OPT_MEASURED, NULL, 0, "Show measured times only", 0},
	{"no-band", OPT_NO_BAND, NULL, 0,
	 "No error band on approximated times (it analyses the trace twice more, at the least "
	 "and the greatest probe costs measured)",
	 0},
	{},
};

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct approx_opts *o = st->input;

	switch (key) {
	case OPT_MODEL:
		if (!strcmp(arg, "mr"))
			o->model = PH_MODEL_MR;
		else if (!strcmp(arg, "sm"))
			o->model = PH_MODEL_SM;
		else if (!strcmp(arg, "time"))
			o->model = PH_MODEL_TIME;
		else
			argp_error(st, "unknown --model '%s' (mr, sm or time)", arg);
		return 0;
	case OPT_EXIT_ORDER:
		if (!strcmp(arg, "rank"))
			o->exit_order = PH_EXIT_RANK;
		else if (!strcmp(arg, "reverse"))
			o->exit_order = PH_EXIT_REVERSE;
		else
			argp_error(st, "unknown --exit-order '%s' (rank or reverse)", arg);
		return 0;
	case OPT_APPROXIMATED:
	case OPT_MEASURED:
		if (o->view != REPORT_BOTH)
			argp_error(st, "--approximated and --measured exclude each other");
		o->view = key == OPT_MEASURED ? REPORT_MEASURED_ONLY : REPORT_APPROXIMATED_ONLY;
		return 0;
	case OPT_NO_BAND:
		o->band = 0;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

const struct argp approx_argp = {.options = options, .parser = parse_opt};
