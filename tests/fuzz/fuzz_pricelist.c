/*
 * tests/fuzz/fuzz_pricelist.c: the streaming AWS Price List reader
 * (generator/pricelist.h).
 *
 * The first input byte chooses where the rest is cut into two chunks (so
 * state carried across pricelist_feed() calls is exercised); the rest is
 * fed, then pricelist_finish() is called unless a feed failed. Either a
 * clean error or prices; never a crash, a leak or a read past the input.
 */
#include <stdint.h>
#include <stdlib.h>

#include "generator/catalog.h"
#include "generator/pricelist.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct catalog *cat = catalog_builtin();
	struct pricelist *p;
	struct err err = ERR_INIT;
	struct capacity_prices pr;
	double *usd;
	size_t cut, missing;
	const char *s = (const char *)data + 1;

	if (size < 1)
		return 0;
	size--;
	cut = size ? data[0] % (size + 1) : 0;
	usd = calloc(cat->ntypes, sizeof(*usd));
	p = pricelist_new(cat, "fuzz");
	if (pricelist_feed(p, s, cut, &err) == 0 &&
	    pricelist_feed(p, s + cut, size - cut, &err) == 0)
		pricelist_finish(p, &pr, usd, &missing, &err);
	err_release(&err);
	pricelist_free(p);
	free(usd);
	return 0;
}
