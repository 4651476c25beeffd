/*
 * generator/spotprices.c: spot prices from describe-spot-price-history
 * JSON (see spotprices.h).
 */
#include "generator/spotprices.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "generator/pricelist.h"
#include "util/xalloc.h"

/* line and column (1-based) of byte off */
static void line_col(const char *data, size_t len, size_t off, int *line,
		     int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (data[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* where the n-th (0-based) key "key" starts; 0 when not found */
static size_t key_at(const char *data, size_t len, const char *key, size_t n)
{
	size_t kl = strlen(key);

	for (size_t i = 0; i + kl + 2 <= len; i++) {
		size_t j;
		if (data[i] != '"' || memcmp(data + i + 1, key, kl) ||
		    data[i + 1 + kl] != '"')
			continue;
		for (j = i + kl + 2; j < len && strchr(" \t\r\n", data[j]); j++)
			;
		if (j < len && data[j] == ':' && n-- == 0)
			return i;
	}
	return 0;
}

static int row_err(struct err *err, const char *file, const char *data,
		   size_t len, const char *key, size_t row, const char *what)
{
	int line, col;

	line_col(data, len, key_at(data, len, key, row), &line, &col);
	err_set(err, ERR_INVALID,
		"%s:%d:%d: SpotPriceHistory[%zu]: %s (give the JSON of `aws "
		"ec2 describe-spot-price-history --output json`)",
		file, line, col, row, what);
	return -1;
}

/* a plain decimal: digits, at most one '.', nothing else */
static int decimal(const char *s, double *out)
{
	int dot = 0, digits = 0;
	char *end;

	for (const char *p = s; *p; p++) {
		if (*p == '.' && !dot++)
			continue;
		if (*p < '0' || *p > '9')
			return -1;
		digits++;
	}
	if (!digits)
		return -1;
	*out = strtod(s, &end);
	return *end ? -1 : 0;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double spotprices_median(double *v, size_t n)
{
	if (!n)
		return -1;
	qsort(v, n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct zone_row {
	size_t type;
	const char *zone, *ts;
	double usd;
};

int spotprices_parse(const char *file, const char *data, size_t len,
		     const struct catalog *cat, double *usd,
		     struct spotprices_info *info, struct err *err)
{
	cJSON *root = cJSON_ParseWithLength(data, len);
	const cJSON *hist, *it;
	struct zone_row *rows = NULL;
	size_t nrows = 0, row = 0;
	double *v = NULL;
	int ret = -1;

	memset(info, 0, sizeof(*info));
	for (size_t i = 0; i < cat->ntypes; i++)
		usd[i] = -1;
	if (!root) {
		const char *at = cJSON_GetErrorPtr();
		size_t off = at && at >= data && at <= data + len
				     ? (size_t)(at - data) : len;
		int line, col;
		line_col(data, len, off, &line, &col);
		err_set(err, ERR_INVALID,
			"%s:%d:%d: not valid JSON (give the output of `aws ec2 "
			"describe-spot-price-history --output json`)",
			file, line, col);
		return -1;
	}
	hist = cJSON_GetObjectItemCaseSensitive(root, "SpotPriceHistory");
	if (!cJSON_IsArray(hist)) {
		err_set(err, ERR_INVALID,
			"%s:1:1: no \"SpotPriceHistory\" array (give the output "
			"of `aws ec2 describe-spot-price-history --output "
			"json`)",
			file);
		goto out;
	}
	rows = xcalloc((size_t)cJSON_GetArraySize(hist) + 1, sizeof(*rows));
	cJSON_ArrayForEach(it, hist)
	{
		const cJSON *ty = cJSON_GetObjectItemCaseSensitive(it,
								   "InstanceType");
		const cJSON *az = cJSON_GetObjectItemCaseSensitive(
			it, "AvailabilityZone");
		const cJSON *sp = cJSON_GetObjectItemCaseSensitive(it,
								   "SpotPrice");
		const cJSON *ts = cJSON_GetObjectItemCaseSensitive(it,
								   "Timestamp");
		const cJSON *pd = cJSON_GetObjectItemCaseSensitive(
			it, "ProductDescription");
		double p;
		size_t k, t;

		if (!cJSON_IsString(ty) || !cJSON_IsString(az) ||
		    !cJSON_IsString(sp)) {
			const char *key = !cJSON_IsString(ty) ? "InstanceType"
					  : !cJSON_IsString(az)
						  ? "AvailabilityZone"
						  : "SpotPrice";
			char *w = xasprintf("no \"%s\" string", key);
			row_err(err, file, data, len, "SpotPrice", row, w);
			free(w);
			goto out;
		}
		if (decimal(sp->valuestring, &p) < 0 || p <= 0 ||
		    p > PRICELIST_MAX_USD) {
			char *w = xasprintf("SpotPrice '%s' is not a price in "
					    "USD (a decimal number above 0, at "
					    "most %.0f)",
					    sp->valuestring, PRICELIST_MAX_USD);
			row_err(err, file, data, len, "SpotPrice", row, w);
			free(w);
			goto out;
		}
		row++;
		if (cJSON_IsString(pd) &&
		    strcmp(pd->valuestring, "Linux/UNIX") &&
		    strcmp(pd->valuestring, "Linux/UNIX (Amazon VPC)"))
			continue;
		for (t = 0; t < cat->ntypes; t++)
			if (!strcmp(cat->types[t].name, ty->valuestring))
				break;
		if (t == cat->ntypes)
			continue;
		for (k = 0; k < nrows; k++)
			if (rows[k].type == t &&
			    !strcmp(rows[k].zone, az->valuestring))
				break;
		if (k == nrows)
			rows[nrows++] = (struct zone_row){
				t, az->valuestring,
				cJSON_IsString(ts) ? ts->valuestring : "", p
			};
		else if (cJSON_IsString(ts) &&
			 strcmp(ts->valuestring, rows[k].ts) > 0) {
			rows[k].ts = ts->valuestring;
			rows[k].usd = p;
		}
		info->rows++;
		if (cJSON_IsString(ts) &&
		    strcmp(ts->valuestring, info->newest) > 0 &&
		    strlen(ts->valuestring) < sizeof(info->newest))
			strcpy(info->newest, ts->valuestring);
	}
	v = xcalloc(nrows + 1, sizeof(*v));
	for (size_t t = 0; t < cat->ntypes; t++) {
		size_t n = 0;
		for (size_t k = 0; k < nrows; k++)
			if (rows[k].type == t)
				v[n++] = rows[k].usd;
		if (n) {
			usd[t] = spotprices_median(v, n);
			info->types++;
		}
	}
	ret = 0;
out:
	free(v);
	free(rows);
	cJSON_Delete(root);
	return ret;
}
