/*
 * cmd/plan.c: `gpuform plan` — what the intents buy: instance types,
 * GPUs, nodes, gangs and the on-demand dollars per hour at full quota
 * (cmd/capplan.c over generator/capacity.c), with the capacity findings.
 */
#include "cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>

#include "generator/capplan.h"
#include "generator/inputs.h"
#include "cmd/prices.h"
#include "util/xalloc.h"

enum { OPT_FORMAT = 256, OPT_PRICES, OPT_ZONE, OPT_SPOT };

const struct cmd_opt plan_opts[] = {
	{ "output", 'o', 'o', CMD_ARG_REQUIRED, "FORMAT",
	  "text (default), markdown (a pull-request comment) or json",
	  "text markdown json", 0 },
	{ "format", 0, OPT_FORMAT, CMD_ARG_REQUIRED, "FORMAT", "same as -o",
	  "text markdown json", CMD_OPT_HIDDEN },
	{ "prices", 0, OPT_PRICES, CMD_ARG_REQUIRED, "FILE",
	  "on-demand prices from an AWS Price List offer file for AmazonEC2 in "
	  "one region (index.json or index.csv as AWS publishes it, read as a "
	  "stream) instead of the built-in approximate us-east-1 prices",
	  "@file", 0 },
	{ "spot-prices", 0, OPT_SPOT, CMD_ARG_REQUIRED, "FILE",
	  "spot estimates for spot pools from the JSON of `aws ec2 "
	  "describe-spot-price-history` (per type, the median over zones of "
	  "each zone's newest price): a SPOT $/H column, floor .. max",
	  "@file", 0 },
	{ "zone-max-nodes", 0, OPT_ZONE, CMD_ARG_REQUIRED, "N",
	  "nodes of one instance type one Availability Zone can give (e.g. "
	  "the size of your capacity reservation there): an EFA gang that "
	  "needs more is an error; without it, one-zone fit is not checked",
	  NULL, 0 },
	CMD_OPT_STRICT,
	CMD_OPT_HELP,
	CMD_OPT_END,
};

int cmd_plan(int argc, char **argv)
{
	enum { F_TEXT, F_MARKDOWN, F_JSON } fmt = F_TEXT;
	const char *prices = NULL, *spot_file = NULL;
	struct cmd_prices cpr = CMD_PRICES_INIT;
	struct capplan cp = CAPPLAN_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT;
	int c, code = EXIT_OK, strict = 0;

	while ((c = cmd_getopt("plan", argc, argv)) != -1) {
		switch (c) {
		case OPT_STRICT:
			strict = 1;
			break;
		case 'o':
		case OPT_FORMAT:
			{
				static const char *const names[] = {
					"text", "markdown", "json", NULL
				};
				int i = cmd_format("plan", optarg, names, 0,
						   NULL);
				if (i < 0)
					return EXIT_USAGE;
				fmt = i == 0 ? F_TEXT : i == 1 ? F_MARKDOWN
							       : F_JSON;
			}
			break;
		case OPT_PRICES:
			prices = optarg;
			break;
		case OPT_SPOT:
			spot_file = optarg;
			break;
		case OPT_ZONE: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 100000)
				return cmd_usage_error("plan",
						       "--zone-max-nodes takes "
						       "a node count 1..100000, "
						       "not '%s'",
						       optarg);
			cp.opts.zone_max_nodes = v;
			break;
		}
		case 'h':
			return cmd_print_help("plan");
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return cmd_usage_error("plan", "no intent file given");

	/* the prices first: a bad price file prints no plan at all */
	if (cmd_prices_load(&cpr, "plan", prices, spot_file, &err) < 0) {
		code = report_err(&err);
		goto out;
	}
	cp.prices = cmd_prices_of(&cpr);
	if (inputs_plan(&cp, argv + optind, (size_t)(argc - optind), &d,
			&err) < 0) {
		/* an intent that is not valid has no plan: say why, print none */
		diags_sort(&d);
		report_diags(&d);
		code = report_err(&err);
		goto out;
	}
	diags_sort(&d);
	if (fmt == F_JSON) {
		cJSON *j = capplan_json(&cp, &d);
		char *s = cJSON_Print(j);
		if (!s)
			BUG("cJSON_Print failed");
		buf_adds(&out, s);
		buf_addc(&out, '\n');
		cJSON_free(s);
		cJSON_Delete(j);
	} else if (fmt == F_MARKDOWN) {
		capplan_markdown(&out, &cp, &d);
	} else {
		capplan_text(&out, &cp);
	}
	/* findings on stderr too (file:line:col), as validate prints them */
	report_diags(&d);
	fwrite(buf_cstr(&out), 1, out.len, stdout);
	if (cp.cap_errors) {
		fprintf(stderr, "gpuform plan: %zu capacity finding%s %s an "
				"error\n",
			cp.cap_errors, cp.cap_errors == 1 ? "" : "s",
			cp.cap_errors == 1 ? "is" : "are");
		code = EXIT_DIFF; /* 1: an error finding */
	}
	/* --strict: the plan is printed (a review comment), and fails */
	if (!code)
		code = cmd_strict("plan", strict, &d, 0);
out:
	cmd_prices_release(&cpr);
	capplan_release(&cp);
	diags_release(&d);
	err_release(&err);
	buf_release(&out);
	return code;
}
