/*
 * generator/pricelist.h: on-demand prices of the catalog's instance types
 * from an AWS Price List bulk offer file for AmazonEC2 in one region, in
 * either format AWS publishes (docs.aws.amazon.com/awsaccountbilling/
 * latest/aboutv2/reading-service-price-list-file-for-services.html):
 *
 *   JSON: {"formatVersion", "disclaimer", "offerCode", "version",
 *          "publicationDate", "products": {SKU: {"sku", "productFamily",
 *          "attributes": {...}}}, "terms": {"OnDemand": {SKU: {TERM:
 *          {"priceDimensions": {RATE: {"unit", "beginRange",
 *          "pricePerUnit": {"USD"}}}}}}, "Reserved": ...}}
 *   CSV:  five metadata rows ("FormatVersion", "Disclaimer", "Publication
 *          Date", "Version", "OfferCode"), then the header row starting
 *          "SKU","OfferTermCode",..., then one row per price dimension.
 *
 * The real files are gigabytes: the parser is fed the file in chunks and
 * keeps only the products that are a catalog instance type with
 * operatingSystem Linux, tenancy Shared, preInstalledSw NA, capacitystatus
 * Used (locationType AWS Region) and their OnDemand hourly price. In the
 * JSON, products come before terms (as AWS writes them); terms first is
 * an error. Pure: the caller does the reading.
 */
#ifndef GENERATOR_PRICELIST_H
#define GENERATOR_PRICELIST_H

#include <stddef.h>

#include "generator/capacity.h"
#include "generator/catalog.h"
#include "util/err.h"

struct pricelist;

/* the most an instance-hour may cost in a price file (USD): the dearest
 * EC2 instance is a few hundred dollars an hour, so a larger number is a
 * broken or hostile file, not a price (docs/plan.md) */
#define PRICELIST_MAX_USD 10000.0

/* file: the name in messages */
struct pricelist *pricelist_new(const struct catalog *cat, const char *file);
/* pricelist_feed: the next len bytes; ERR_INVALID "FILE:LINE: ... (byte
 * N)" on malformed input (then stop feeding) */
int pricelist_feed(struct pricelist *p, const char *data, size_t len,
		   struct err *err);
/*
 * pricelist_finish: after the last chunk: a truncated file is an error.
 * Fills usd[cat->ntypes] (-1 where the file has no price) and *out
 * (pointing into p and usd: keep both). *missing = types without a price.
 */
int pricelist_finish(struct pricelist *p, struct capacity_prices *out,
		     double *usd, size_t *missing, struct err *err);
void pricelist_free(struct pricelist *p);

#endif
