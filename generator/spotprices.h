/*
 * generator/spotprices.h: spot prices of the catalog's instance types from
 * the JSON `aws ec2 describe-spot-price-history --output json` prints
 * (docs.aws.amazon.com/AWSEC2/latest/APIReference/
 * API_DescribeSpotPriceHistory.html):
 *
 *   {"SpotPriceHistory": [{"AvailabilityZone": "us-east-1a",
 *     "InstanceType": "p5.48xlarge", "ProductDescription": "Linux/UNIX",
 *     "SpotPrice": "31.464000", "Timestamp": "2026-11-30T12:00:00+00:00"},
 *    ...], "NextToken": ""}
 *
 * Kept: Linux/UNIX rows (ProductDescription "Linux/UNIX" or "Linux/UNIX
 * (Amazon VPC)", or none) of catalog types. Per type and zone the newest
 * row (largest Timestamp, compared as text: AWS writes one ISO 8601 form);
 * per type the MEDIAN over its zones (the mean of the middle two for an
 * even count): a pool spreads over the zones of its subnets, so the
 * cheapest zone would flatter it and the dearest would be the on-demand
 * fallback's job (docs/plan.md). Pure: the caller does the reading.
 */
#ifndef GENERATOR_SPOTPRICES_H
#define GENERATOR_SPOTPRICES_H

#include <stddef.h>

#include "generator/catalog.h"
#include "util/err.h"

/* what was read: for labels */
struct spotprices_info {
	size_t rows;    /* rows kept */
	size_t types;   /* catalog types with a spot price */
	char newest[40]; /* the newest Timestamp kept ("" none) */
};

/*
 * spotprices_parse: fill usd[cat->ntypes] (-1 where the file has no
 * price). ERR_INVALID "FILE:LINE:COL: what is wrong (what to do)" on
 * malformed JSON, a missing SpotPriceHistory array, a row without
 * InstanceType/AvailabilityZone/SpotPrice strings, or a price that is not
 * a decimal number in 0 < p <= PRICELIST_MAX_USD.
 */
int spotprices_parse(const char *file, const char *data, size_t len,
		     const struct catalog *cat, double *usd,
		     struct spotprices_info *info, struct err *err);

/* spotprices_median: the median of v[n] (sorts v); -1 when n is 0 */
double spotprices_median(double *v, size_t n);

#endif
