/*
 * generator/pricelist.c: stream an AWS Price List offer file (see
 * pricelist.h). One byte at a time through a small state machine: a JSON
 * tokenizer that knows only the path of keys it is in, or a CSV row
 * splitter; nothing of the file is kept but the matching products.
 */
#include "generator/pricelist.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/vec.h"
#include "util/xalloc.h"

#define PL_DEPTH 16  /* the offer file nests 8 deep */
#define PL_KEY 64    /* SKUs, term and rate codes are 14-40 characters */
#define PL_STR 128   /* the values the parser looks at are short */
#define PL_META_MAX 16 /* CSV rows before the header (AWS writes 5) */
#define PL_ROW_MAX (1 << 20) /* a CSV row of the EC2 file is about 1 KB */

enum fmt { F_UNKNOWN, F_JSON, F_CSV };

enum js {
	JS_ROOT,      /* before the top-level '{' */
	JS_VALUE,     /* a value */
	JS_VALUE_END, /* a value or ']' (after '[') */
	JS_KEY,       /* a key or '}' (after '{') */
	JS_KEY_NEXT,  /* a key (after ',') */
	JS_COLON,
	JS_AFTER, /* ',' or the end of the container */
	JS_STRING,
	JS_ESC,
	JS_UHEX,
	JS_SCALAR,
	JS_DONE,
};

/* the attributes of one product (JSON) or row (CSV) */
struct prod {
	char type[PL_STR], os[PL_STR], tenancy[PL_STR], sw[PL_STR];
	char capst[PL_STR], region[PL_STR], loctype[PL_STR];
};

struct match {
	char sku[PL_KEY];
	size_t type; /* index into cat->types */
};

struct pricelist {
	const struct catalog *cat;
	char *file;
	enum fmt fmt;
	unsigned long line;
	unsigned long long byte;
	int failed;
	/* metadata */
	char offer[PL_STR], version[PL_STR], date[PL_STR], region[PL_STR];
	char *label;
	/* prices found, per catalog type */
	double *usd;
	char (*usd_sku)[PL_KEY];
	size_t nprices;
	/* JSON */
	enum js st;
	int depth, key_str, uhex;
	char kind[PL_DEPTH + 1];
	char key[PL_DEPTH + 1][PL_KEY];
	char str[PL_STR];
	size_t slen;
	int seen_products;
	struct prod prod;
	struct match *matches;
	size_t nmatches, amatches;
	long cur; /* the OnDemand SKU being read: index into matches, -1 */
	char unit[PL_STR], begin[PL_STR], price[PL_STR];
	/* CSV */
	struct buf row;    /* the current row's fields, NUL-separated */
	size_t *offs;      /* start of each field in row */
	size_t nf, af;
	int inq, qend, header, nmeta;
	size_t ncols;
	long col[16]; /* column of each needed field (csv_cols), -1 if absent */
	unsigned long row_line;
};

struct pricelist *pricelist_new(const struct catalog *cat, const char *file)
{
	struct pricelist *p = xcalloc(1, sizeof(*p));

	p->cat = cat;
	p->file = xstrdup(file);
	p->line = 1;
	p->cur = -1;
	p->usd = xcalloc(cat->ntypes ? cat->ntypes : 1, sizeof(*p->usd));
	p->usd_sku = xcalloc(cat->ntypes ? cat->ntypes : 1,
			     sizeof(*p->usd_sku));
	for (size_t i = 0; i < cat->ntypes; i++)
		p->usd[i] = -1;
	return p;
}

void pricelist_free(struct pricelist *p)
{
	if (!p)
		return;
	free(p->file);
	free(p->label);
	free(p->usd);
	free(p->usd_sku);
	free(p->matches);
	buf_release(&p->row);
	free(p->offs);
	free(p);
}

__attribute__((format(printf, 3, 4))) static int fail(struct pricelist *p,
						       struct err *err,
						       const char *fmt, ...)
{
	struct buf m = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&m, fmt, ap);
	va_end(ap);
	p->failed = 1;
	err_set(err, ERR_INVALID, "%s:%lu: %s (byte %llu)", p->file, p->line,
		buf_cstr(&m), p->byte);
	buf_release(&m);
	return -1;
}

static void copy(char *dst, const char *src)
{
	snprintf(dst, PL_STR, "%s", src);
}

static long catalog_index(const struct catalog *cat, const char *type)
{
	for (size_t i = 0; i < cat->ntypes; i++)
		if (!strcmp(cat->types[i].name, type))
			return (long)i;
	return -1;
}

/* a product gpuform prices: a catalog type, plain Linux, shared, used */
static long product_type(struct pricelist *p, const struct prod *pr)
{
	if (strcmp(pr->os, "Linux") || strcmp(pr->tenancy, "Shared") ||
	    strcmp(pr->sw, "NA") || strcmp(pr->capst, "Used") ||
	    (pr->loctype[0] && strcmp(pr->loctype, "AWS Region")))
		return -1;
	return catalog_index(p->cat, pr->type);
}

static int check_region(struct pricelist *p, const char *region,
			struct err *err)
{
	if (!region[0])
		return 0;
	if (!p->region[0])
		copy(p->region, region);
	else if (strcmp(p->region, region))
		return fail(p, err,
			    "prices of two regions ('%s' and '%s'): give the "
			    "offer file of one region (.../AmazonEC2/current/"
			    "REGION/index.json or .csv)",
			    p->region, region);
	return 0;
}

/* a decimal number as AWS writes prices: digits, an optional fraction and
 * an optional decimal exponent; never hex ("0x1p10"), inf, nan, a sign or
 * spaces, which strtod would all take */
static int decimal_syntax(const char *s)
{
	const char *q = s;

	while (*q >= '0' && *q <= '9')
		q++;
	if (q == s)
		return 0;
	if (*q == '.') {
		const char *f = ++q;
		while (*q >= '0' && *q <= '9')
			q++;
		if (q == f)
			return 0;
	}
	if (*q == 'e' || *q == 'E') {
		const char *x;
		q++;
		if (*q == '+' || *q == '-')
			q++;
		x = q;
		while (*q >= '0' && *q <= '9')
			q++;
		if (q == x)
			return 0;
	}
	return *q == '\0';
}

static int record(struct pricelist *p, size_t type, const char *sku,
		  const char *price, struct err *err)
{
	char *end;
	double v;

	if (!decimal_syntax(price))
		return fail(p, err,
			    "'%.40s' is not a price in USD (SKU %s): a price "
			    "is a decimal number such as 55.04",
			    price, sku);
	errno = 0;
	v = strtod(price, &end);
	if (errno == ERANGE || *end || !isfinite(v))
		return fail(p, err,
			    "'%.40s' is out of range for a price in USD (SKU "
			    "%s): too small or too large to represent",
			    price, sku);
	if (v > PRICELIST_MAX_USD)
		return fail(p, err,
			    "'%.40s' is not a plausible price (SKU %s): more "
			    "than %.0f USD per instance-hour",
			    price, sku, PRICELIST_MAX_USD);
	if (p->usd[type] >= 0 && p->usd[type] != v)
		return fail(p, err,
			    "two on-demand Linux prices for %s: %g (SKU %s) "
			    "and %g (SKU %s)",
			    p->cat->types[type].name, p->usd[type],
			    p->usd_sku[type], v, sku);
	if (p->usd[type] < 0)
		p->nprices++;
	p->usd[type] = v;
	snprintf(p->usd_sku[type], PL_KEY, "%s", sku);
	return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

static int k(const struct pricelist *p, int d, const char *s)
{
	return d <= p->depth && !strcmp(p->key[d], s);
}

static int in_ondemand(const struct pricelist *p)
{
	return k(p, 1, "terms") && k(p, 2, "OnDemand");
}

static int js_open(struct pricelist *p, char kind, struct err *err)
{
	if (p->depth == PL_DEPTH)
		return fail(p, err, "nested deeper than %d: not an AWS Price "
				    "List offer file", PL_DEPTH);
	p->kind[++p->depth] = kind;
	p->key[p->depth][0] = '\0';
	if (kind != '{')
		return 0;
	if (p->depth == 2 && k(p, 1, "terms") && !p->seen_products)
		return fail(p, err, "'terms' before 'products': AWS writes the "
				    "products first; this file cannot be "
				    "streamed");
	if (p->depth == 2 && k(p, 1, "products"))
		p->seen_products = 1;
	if (p->depth == 3 && k(p, 1, "products"))
		memset(&p->prod, 0, sizeof(p->prod));
	if (p->depth == 4 && in_ondemand(p)) {
		p->cur = -1;
		for (size_t i = 0; i < p->nmatches; i++)
			if (!strcmp(p->matches[i].sku, p->key[3]))
				p->cur = (long)i;
	}
	if (p->depth == 7 && in_ondemand(p))
		p->unit[0] = p->begin[0] = p->price[0] = '\0';
	return 0;
}

static int js_close(struct pricelist *p, struct err *err)
{
	if (p->depth == 3 && k(p, 1, "products")) {
		long t = product_type(p, &p->prod);
		if (t >= 0) {
			if (check_region(p, p->prod.region, err) < 0)
				return -1;
			GROW(p->matches, p->nmatches + 1, p->amatches);
			snprintf(p->matches[p->nmatches].sku, PL_KEY, "%s",
				 p->key[2]);
			p->matches[p->nmatches++].type = (size_t)t;
		}
	}
	if (p->depth == 7 && in_ondemand(p) && k(p, 5, "priceDimensions") &&
	    p->cur >= 0 && !strcmp(p->unit, "Hrs") &&
	    (!p->begin[0] || !strcmp(p->begin, "0")))
		return record(p, p->matches[p->cur].type, p->key[3], p->price,
			      err);
	return 0;
}

static void js_string(struct pricelist *p, const char *s)
{
	int d = p->depth;
	struct prod *pr = &p->prod;

	if (d == 1) {
		if (k(p, 1, "offerCode"))
			copy(p->offer, s);
		else if (k(p, 1, "version"))
			copy(p->version, s);
		else if (k(p, 1, "publicationDate"))
			copy(p->date, s);
	} else if (d == 4 && k(p, 1, "products") && k(p, 3, "attributes")) {
		const char *a = p->key[4];
		char *dst = !strcmp(a, "instanceType")      ? pr->type
			    : !strcmp(a, "operatingSystem") ? pr->os
			    : !strcmp(a, "tenancy")         ? pr->tenancy
			    : !strcmp(a, "preInstalledSw")  ? pr->sw
			    : !strcmp(a, "capacitystatus")  ? pr->capst
			    : !strcmp(a, "regionCode")      ? pr->region
			    : !strcmp(a, "locationType")    ? pr->loctype
							    : NULL;
		if (dst)
			copy(dst, s);
	} else if (d == 7 && p->cur >= 0 && in_ondemand(p)) {
		if (k(p, 7, "unit"))
			copy(p->unit, s);
		else if (k(p, 7, "beginRange"))
			copy(p->begin, s);
	} else if (d == 8 && p->cur >= 0 && in_ondemand(p) &&
		   k(p, 7, "pricePerUnit") && k(p, 8, "USD")) {
		copy(p->price, s);
	}
}

static int scalar_ok(const char *s)
{
	char *end;

	if (!strcmp(s, "true") || !strcmp(s, "false") || !strcmp(s, "null"))
		return 1;
	if (!*s || (!(*s >= '0' && *s <= '9') && *s != '-'))
		return 0;
	strtod(s, &end);
	return !*end;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int js_after_value(struct pricelist *p)
{
	p->st = p->depth ? JS_AFTER : JS_DONE;
	return 0;
}

static int js_byte(struct pricelist *p, char c, struct err *err)
{
	switch (p->st) {
	case JS_STRING:
		if (c == '"') {
			p->str[p->slen] = '\0';
			if (p->key_str) {
				size_t n = p->slen < PL_KEY - 1 ? p->slen
								: PL_KEY - 1;
				memcpy(p->key[p->depth], p->str, n);
				p->key[p->depth][n] = '\0';
				p->st = JS_COLON;
				return 0;
			}
			js_string(p, p->str);
			return js_after_value(p);
		}
		if (c == '\\') {
			p->st = JS_ESC;
			return 0;
		}
		if ((unsigned char)c < 0x20)
			return fail(p, err, "control character in a string "
					    "(a string not closed?)");
		if (p->slen < PL_STR - 1)
			p->str[p->slen++] = c;
		return 0;
	case JS_ESC:
		if (c == 'u') {
			p->uhex = 0;
			p->st = JS_UHEX;
			return 0;
		}
		if (!strchr("\"\\/bfnrt", c))
			return fail(p, err, "bad escape '\\%c' in a string", c);
		if (p->slen < PL_STR - 1)
			p->str[p->slen++] = c;
		p->st = JS_STRING;
		return 0;
	case JS_UHEX:
		if (!strchr("0123456789abcdefABCDEF", c) || !c)
			return fail(p, err, "bad \\u escape in a string");
		if (++p->uhex == 4) {
			if (p->slen < PL_STR - 1)
				p->str[p->slen++] = '?';
			p->st = JS_STRING;
		}
		return 0;
	case JS_SCALAR:
		if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		    c == '.' || c == '-' || c == '+' || c == 'E') {
			if (p->slen < PL_STR - 1)
				p->str[p->slen++] = c;
			return 0;
		}
		p->str[p->slen] = '\0';
		if (!scalar_ok(p->str))
			return fail(p, err, "'%.20s' is not a JSON value",
				    p->str);
		js_after_value(p);
		return js_byte(p, c, err); /* the byte after the value */
	default:
		break;
	}
	if (is_space(c))
		return 0;
	switch (p->st) {
	case JS_ROOT:
		if (c != '{')
			return fail(p, err, "expected '{' (a JSON offer file "
					    "is one object)");
		p->st = JS_KEY;
		return js_open(p, '{', err);
	case JS_DONE:
		return fail(p, err, "data after the end of the JSON object");
	case JS_KEY:
	case JS_KEY_NEXT:
		if (c == '}' && p->st == JS_KEY)
			goto close;
		if (c != '"')
			return fail(p, err, "expected a key in double quotes");
		p->key_str = 1;
		p->slen = 0;
		p->st = JS_STRING;
		return 0;
	case JS_COLON:
		if (c != ':')
			return fail(p, err, "expected ':' after the key '%s'",
				    p->key[p->depth]);
		p->st = JS_VALUE;
		return 0;
	case JS_VALUE_END:
		if (c == ']')
			goto close;
		/* fall through */
	case JS_VALUE:
		if (c == '{' || c == '[') {
			p->st = c == '{' ? JS_KEY : JS_VALUE_END;
			return js_open(p, c, err);
		}
		if (c == '"') {
			p->key_str = 0;
			p->slen = 0;
			p->st = JS_STRING;
			return 0;
		}
		if (c == '}' || c == ']' || c == ',' || c == ':')
			return fail(p, err, "expected a value, found '%c'", c);
		p->slen = 0;
		p->str[p->slen++] = c;
		p->st = JS_SCALAR;
		return 0;
	case JS_AFTER:
		if (c == ',') {
			p->st = p->kind[p->depth] == '{' ? JS_KEY_NEXT
							 : JS_VALUE;
			return 0;
		}
		if (c == '}' || c == ']')
			goto close;
		return fail(p, err, "expected ',' or '%c', found '%c'",
			    p->kind[p->depth] == '{' ? '}' : ']', c);
	default:
		BUG("JSON state %d", (int)p->st);
	}
close:
	if ((c == '}') != (p->kind[p->depth] == '{'))
		return fail(p, err, "'%c' closes a%s", c,
			    p->kind[p->depth] == '{' ? "n object" : "n array");
	if (js_close(p, err) < 0)
		return -1;
	p->depth--;
	return js_after_value(p);
}

/* ---- CSV ----------------------------------------------------------------- */

enum { C_TERM, C_UNIT, C_PRICE, C_CUR, C_TYPE, C_OS, C_TEN, C_SW, C_CAP,
       C_REGION, C_LOCTYPE, C_START, C_SKU };
static const char *const csv_cols[] = {
	"TermType", "Unit", "PricePerUnit", "Currency", "Instance Type",
	"Operating System", "Tenancy", "Pre Installed S/W", "CapacityStatus",
	"Region Code", "Location Type", "StartingRange", "SKU",
};
#define NCOLS (sizeof(csv_cols) / sizeof(csv_cols[0]))
_Static_assert(NCOLS <= 16, "struct pricelist.col is too small");
/* columns a row cannot be read without */
static const int csv_required[] = { C_TERM, C_UNIT, C_PRICE, C_TYPE, C_OS,
				    C_TEN, C_SW, C_CAP, C_SKU };

static const char *field(const struct pricelist *p, size_t i)
{
	return i < p->nf ? p->row.ptr + p->offs[i] : "";
}

static const char *col(const struct pricelist *p, long *cols, int c)
{
	return cols[c] >= 0 ? field(p, (size_t)cols[c]) : "";
}

static int csv_row(struct pricelist *p, long *cols, struct err *err)
{
	if (p->nf == 1 && !field(p, 0)[0])
		return 0; /* an empty line */
	if (!p->header) {
		if (!strcmp(field(p, 0), "SKU")) {
			for (size_t c = 0; c < NCOLS; c++) {
				cols[c] = -1;
				for (size_t i = 0; i < p->nf; i++)
					if (!strcmp(field(p, i), csv_cols[c]))
						cols[c] = (long)i;
			}
			for (size_t i = 0; i < sizeof(csv_required) /
						   sizeof(csv_required[0]);
			     i++)
				if (cols[csv_required[i]] < 0)
					return fail(p, err,
						    "the header row has no "
						    "column '%s'",
						    csv_cols[csv_required[i]]);
			p->ncols = p->nf;
			p->header = 1;
			return 0;
		}
		if (p->nf != 2 || ++p->nmeta > PL_META_MAX)
			return fail(p, err,
				    "expected a metadata row (\"Name\",\"value\") "
				    "or the header row starting \"SKU\"");
		if (!strcmp(field(p, 0), "OfferCode"))
			copy(p->offer, field(p, 1));
		else if (!strcmp(field(p, 0), "Version"))
			copy(p->version, field(p, 1));
		else if (!strcmp(field(p, 0), "Publication Date"))
			copy(p->date, field(p, 1));
		return 0;
	}
	if (p->nf != p->ncols)
		return fail(p, err, "the row has %zu columns, the header %zu "
				    "(a truncated or edited file?)",
			    p->nf, p->ncols);
	if (strcmp(col(p, cols, C_TERM), "OnDemand") ||
	    strcmp(col(p, cols, C_UNIT), "Hrs") ||
	    (cols[C_CUR] >= 0 && strcmp(col(p, cols, C_CUR), "USD")) ||
	    (col(p, cols, C_START)[0] && strcmp(col(p, cols, C_START), "0")))
		return 0;
	{
		struct prod pr;
		long t;

		copy(pr.type, col(p, cols, C_TYPE));
		copy(pr.os, col(p, cols, C_OS));
		copy(pr.tenancy, col(p, cols, C_TEN));
		copy(pr.sw, col(p, cols, C_SW));
		copy(pr.capst, col(p, cols, C_CAP));
		copy(pr.loctype, col(p, cols, C_LOCTYPE));
		t = product_type(p, &pr);
		if (t < 0)
			return 0;
		if (check_region(p, col(p, cols, C_REGION), err) < 0)
			return -1;
		return record(p, (size_t)t, col(p, cols, C_SKU),
			      col(p, cols, C_PRICE), err);
	}
}

static void csv_end_field(struct pricelist *p)
{
	buf_addc(&p->row, '\0');
}

static void csv_start_field(struct pricelist *p)
{
	GROW(p->offs, p->nf + 1, p->af);
	p->offs[p->nf++] = p->row.len;
}

static int csv_byte(struct pricelist *p, char c, struct err *err)
{
	if (!p->nf) { /* a row begins */
		buf_reset(&p->row);
		p->row_line = p->line;
		csv_start_field(p);
	}
	if (p->inq) {
		if (c == '"')
			p->inq = 0, p->qend = 1;
		else
			buf_addc(&p->row, c);
		return 0;
	}
	if (p->qend && c == '"') { /* "" inside quotes */
		buf_addc(&p->row, '"');
		p->inq = 1;
		p->qend = 0;
		return 0;
	}
	if (c == ',') {
		p->qend = 0;
		csv_end_field(p);
		csv_start_field(p);
		return 0;
	}
	if (c == '\r')
		return 0;
	if (c == '\n') {
		int r;
		unsigned long at = p->line;
		p->qend = 0;
		csv_end_field(p);
		p->line = p->row_line; /* messages name the row's line */
		r = csv_row(p, p->col, err);
		p->line = at;
		p->nf = 0;
		return r;
	}
	if (p->qend)
		return fail(p, err, "'%c' after a closing quote", c);
	if (p->row.len > PL_ROW_MAX)
		return fail(p, err, "a CSV row longer than %d bytes",
			    PL_ROW_MAX);
	if (c == '"' && p->row.len == p->offs[p->nf - 1]) {
		p->inq = 1;
		return 0;
	}
	buf_addc(&p->row, c);
	return 0;
}

/* ---- the interface -------------------------------------------------------- */

int pricelist_feed(struct pricelist *p, const char *data, size_t len,
		   struct err *err)
{
	if (p->failed)
		BUG("pricelist_feed after an error");
	for (size_t i = 0; i < len; i++) {
		char c = data[i];
		int r;

		if (p->fmt == F_UNKNOWN) {
			if (is_space(c)) {
				p->line += c == '\n';
				p->byte++;
				continue;
			}
			p->fmt = c == '{' ? F_JSON : F_CSV;
		}
		if (p->fmt == F_JSON && p->st == JS_STRING) {
			/* the bulk of the file: string bytes, taken in a run */
			size_t j = i;
			while (j < len && data[j] != '"' && data[j] != '\\' &&
			       (unsigned char)data[j] >= 0x20)
				j++;
			if (j > i) {
				size_t n = j - i, room = PL_STR - 1 - p->slen;
				memcpy(p->str + p->slen, data + i,
				       n < room ? n : room);
				p->slen += n < room ? n : room;
				p->byte += n;
				i = j - 1;
				continue;
			}
		}
		if (p->fmt == F_CSV && p->nf && p->inq) {
			/* a quoted field: up to its closing quote in a run */
			size_t j = i;
			while (j < len && data[j] != '"') {
				p->line += data[j] == '\n';
				j++;
			}
			if (p->row.len + (j - i) > PL_ROW_MAX)
				return fail(p, err, "a CSV row longer than %d "
						    "bytes (a quote not closed?)",
					    PL_ROW_MAX);
			if (j > i) {
				buf_add(&p->row, data + i, j - i);
				p->byte += j - i;
				i = j - 1;
				continue;
			}
		}
		if (p->fmt == F_JSON && (c == ' ' || c == '\t') &&
		    p->st != JS_SCALAR && p->st != JS_ESC && p->st != JS_UHEX) {
			p->byte++; /* indentation */
			continue;
		}
		r = p->fmt == F_JSON ? js_byte(p, c, err) : csv_byte(p, c, err);
		if (r < 0)
			return -1;
		p->line += c == '\n';
		p->byte++;
	}
	return 0;
}

int pricelist_finish(struct pricelist *p, struct capacity_prices *out,
		     double *usd, size_t *missing, struct err *err)
{
	if (p->failed)
		BUG("pricelist_finish after an error");
	if (p->fmt == F_UNKNOWN)
		return fail(p, err, "empty file: not an AWS Price List offer "
				    "file");
	if (p->fmt == F_JSON && p->st != JS_DONE)
		return fail(p, err, "the file ends inside the JSON (%d "
				    "object%s open): truncated?",
			    p->depth, p->depth == 1 ? "" : "s");
	if (p->fmt == F_CSV && p->inq)
		return fail(p, err, "the file ends inside a quoted field: "
				    "truncated?");
	if (p->fmt == F_CSV && p->nf)
		return fail(p, err, "the last line has no line end: "
				    "truncated?");
	if (p->fmt == F_CSV && !p->header)
		return fail(p, err, "no header row (\"SKU\",\"OfferTermCode\","
				    "...): not an AWS Price List CSV file");
	if (strcmp(p->offer, "AmazonEC2"))
		return fail(p, err, "offer code is '%s', not 'AmazonEC2': give "
				    "the EC2 offer file",
			    p->offer);
	if (!p->nprices)
		return fail(p, err, "no on-demand Linux price for any instance "
				    "type of the catalog");
	*missing = 0;
	for (size_t i = 0; i < p->cat->ntypes; i++) {
		usd[i] = p->usd[i];
		*missing += usd[i] < 0;
	}
	free(p->label);
	p->label = xasprintf("AWS Price List %s (version %s)", p->file,
			     p->version[0] ? p->version : "?");
	if (strlen(p->date) > 10)
		p->date[10] = '\0'; /* the day: 2025-09-12T22:53:08Z */
	out->usd = usd;
	out->n = p->cat->ntypes;
	out->source = p->label;
	out->region = p->region;
	out->date = p->date[0] ? p->date : "?";
	out->spot = NULL;
	out->spot_source = NULL;
	return 0;
}
