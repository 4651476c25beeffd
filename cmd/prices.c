/*
 * cmd/prices.c: the price files of plan and diff (--prices, an AWS Price
 * List offer file; --spot-prices, describe-spot-price-history JSON), read
 * once for every command that models cost (see prices.h).
 */
#include "cmd/prices.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generator/catalog.h"
#include "generator/spotprices.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* read FILE in 1 MiB chunks into the streaming Price List parser */
static struct pricelist *read_prices(const char *cmd, const char *path,
				     struct capacity_prices *out, double *usd,
				     struct err *err)
{
	struct pricelist *p = pricelist_new(catalog_builtin(), path);
	char *chunk = xmalloc(1 << 20);
	size_t missing = 0;
	int fd = open(path, O_RDONLY), ret = -1;

	if (fd < 0) {
		err_set(err, errno == ENOENT ? ERR_NOTFOUND : ERR_IO,
			"cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, chunk, 1 << 20);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_set(err, ERR_IO, "cannot read '%s': %s", path,
				strerror(errno));
			goto out;
		}
		if (!n)
			break;
		if (pricelist_feed(p, chunk, (size_t)n, err) < 0)
			goto out;
	}
	if (pricelist_finish(p, out, usd, &missing, err) < 0)
		goto out;
	if (missing)
		fprintf(stderr,
			"gpuform %s: warning: '%s' has no on-demand Linux "
			"price for %zu of the catalog's %zu instance types; "
			"pools that may launch them show n/a\n",
			cmd, path, missing, catalog_builtin()->ntypes);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(chunk);
	if (ret < 0) {
		pricelist_free(p);
		return NULL;
	}
	return p; /* out points into it */
}

/* the most a spot price history file may hold (a year of one region's
 * GPU types is a few MiB) */
#define SPOT_MAX_FILE (64u << 20)

/* read FILE's spot prices into pr (with the on-demand prices already in
 * it); spot[] and src are the caller's to free */
static int read_spot(const char *cmd, const char *path, struct capacity_prices *pr,
		     double *spot, char **src, struct err *err)
{
	struct buf data = BUF_INIT;
	struct spotprices_info info;
	int ret = -1;

	if (fs_read_file(&data, path, SPOT_MAX_FILE, err) < 0)
		goto out;
	if (spotprices_parse(path, buf_cstr(&data), data.len,
			     catalog_builtin(), spot, &info, err) < 0)
		goto out;
	if (!info.types)
		fprintf(stderr,
			"gpuform %s: warning: '%s' has no Linux/UNIX spot "
			"price for any catalog instance type\n", cmd, path);
	*src = xasprintf("%s (%zu types, newest %s)", path, info.types,
			 info.newest[0] ? info.newest : "?");
	pr->spot = spot;
	pr->spot_source = *src;
	ret = 0;
out:
	buf_release(&data);
	return ret;
}

int cmd_prices_load(struct cmd_prices *p, const char *cmd,
		    const char *prices, const char *spot, struct err *err)
{
	const struct catalog *cat = catalog_builtin();

	if (!prices && !spot)
		return 0;
	p->usd = xcalloc(cat->ntypes + 1, sizeof(*p->usd));
	if (prices) {
		if (!(p->pl = read_prices(cmd, prices, &p->pr, p->usd, err)))
			return -1;
	} else {
		capacity_builtin_prices(&p->pr, cat, p->usd);
	}
	if (spot) {
		p->spot = xcalloc(cat->ntypes + 1, sizeof(*p->spot));
		if (read_spot(cmd, spot, &p->pr, p->spot, &p->spot_src, err) < 0)
			return -1;
	}
	p->set = 1;
	return 0;
}

const struct capacity_prices *cmd_prices_of(const struct cmd_prices *p)
{
	return p->set ? &p->pr : NULL;
}

void cmd_prices_release(struct cmd_prices *p)
{
	pricelist_free(p->pl);
	free(p->usd);
	free(p->spot);
	free(p->spot_src);
	memset(p, 0, sizeof(*p));
}
