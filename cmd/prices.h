/*
 * cmd/prices.h: --prices and --spot-prices of plan and diff: the on-demand
 * prices of an AWS Price List offer file (generator/pricelist.h) or the
 * catalog's, and the spot prices of a describe-spot-price-history file
 * (generator/spotprices.h). A bad file is an error and nothing is printed.
 */
#ifndef CMD_PRICES_H
#define CMD_PRICES_H

#include "generator/capacity.h"
#include "generator/pricelist.h"
#include "util/err.h"

struct cmd_prices {
	struct capacity_prices pr;
	struct pricelist *pl;
	double *usd, *spot;
	char *spot_src;
	int set;
};
#define CMD_PRICES_INIT { { NULL, 0, NULL, NULL, NULL, NULL, NULL }, NULL, \
			  NULL, NULL, NULL, 0 }

/* cmd_prices_load: read the files given (either may be NULL; both NULL:
 * nothing, the catalog's prices); warnings on stderr name `cmd` */
int cmd_prices_load(struct cmd_prices *p, const char *cmd,
		    const char *prices, const char *spot, struct err *err);
/* the prices to model with; NULL: the catalog's */
const struct capacity_prices *cmd_prices_of(const struct cmd_prices *p);
void cmd_prices_release(struct cmd_prices *p);

#endif
