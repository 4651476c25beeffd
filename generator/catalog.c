/*
 * generator/catalog.c: parse the GPU instance catalog (catalog.tsv, format
 * documented at the top of that file) and answer lookups.
 *
 * The parser copies the text once and splits it in place, so every string
 * in struct catalog points into c->text; the only other allocations are the
 * record arrays and the per-record lists (class families, MIG profiles).
 *
 * Deliberately not here: any Kubernetes/Karpenter knowledge (which labels or
 * requirements to emit is plan/render's job), file I/O (the text comes from
 * the caller or the embedded table) and printing.
 */
#include "generator/catalog.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "generator/embedded.h"
#include "util/buf.h"
#include "util/vec.h"
#include "util/xalloc.h"

#define CATALOG_EMBEDDED_PATH "generator/catalog.tsv"

/* the widest record ("type") has 10 columns, the kind included */
#define CATALOG_MAX_FIELDS 10

/* Parser state: the catalog being built plus what error messages need. */
struct cat_parser {
	struct catalog cat;
	size_t classes_alloc, families_alloc, types_alloc, releases_alloc;
	/* source line of each record, parallel to cat.classes / cat.types */
	int *class_line, *type_line;
	size_t class_line_alloc, type_line_alloc;
	const char *file;
	struct err *err;
};

static int parse_fail(struct cat_parser *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int parse_fail(struct cat_parser *p, int line, const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	err_set(p->err, ERR_INVALID, "%s:%d: %s", p->file, line,
		buf_cstr(&msg));
	buf_release(&msg);
	return -1;
}

/* parse_uint: a non-empty run of decimal digits that fits an int. */
static int parse_uint(const char *s, int *out)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return -1;
	}
	*out = (int)v;
	return 0;
}

/*
 * parse_price: DIGITS [ "." DIGITS ]. Done by hand rather than with strtod()
 * so the result does not depend on the locale and "-1", "1e3", "inf" or
 * " 1" are rejected.
 */
static int parse_price(const char *s, double *out)
{
	double v = 0.0, scale = 1.0;
	int ndigits = 0;

	for (; *s >= '0' && *s <= '9'; s++, ndigits++)
		v = v * 10.0 + (*s - '0');
	if (!ndigits || ndigits > 9)
		return -1;
	if (*s == '.') {
		s++;
		ndigits = 0;
		for (; *s >= '0' && *s <= '9'; s++, ndigits++) {
			scale /= 10.0;
			v += (*s - '0') * scale;
		}
		if (!ndigits)
			return -1;
	}
	if (*s)
		return -1;
	*out = v;
	return 0;
}

static int valid_arch(const char *s)
{
	return !strcmp(s, "amd64") || !strcmp(s, "arm64");
}

/*
 * split_list: split a comma-separated column in place into a fresh array of
 * pointers into it. Empty and repeated items are errors (what names the
 * list, for the message). On failure *out is untouched.
 */
static int split_list(struct cat_parser *p, int line, char *s,
		      const char *what, const char ***out, size_t *n_out)
{
	const char **items = NULL;
	size_t n = 0, alloc = 0, i;

	for (;;) {
		char *comma = strchr(s, ',');

		if (comma)
			*comma = '\0';
		if (!*s) {
			free(items);
			return parse_fail(p, line, "empty item in %s list",
					  what);
		}
		for (i = 0; i < n; i++) {
			if (!strcmp(items[i], s)) {
				free(items);
				return parse_fail(p, line,
						  "%s '%s' listed twice", what,
						  s);
			}
		}
		GROW(items, n + 1, alloc);
		items[n++] = s;
		if (!comma)
			break;
		s = comma + 1;
	}
	*out = items;
	*n_out = n;
	return 0;
}

static const struct cat_family *find_family(const struct catalog *c,
					    const char *name)
{
	size_t i;

	for (i = 0; i < c->nfamilies; i++)
		if (!strcmp(c->families[i].name, name))
			return &c->families[i];
	return NULL;
}

static int parse_class(struct cat_parser *p, int line, char **f)
{
	struct catalog *c = &p->cat;
	struct cat_class *cl;
	const char **families = NULL;
	size_t nfamilies = 0, i;
	int rank;

	for (i = 0; i < c->nclasses; i++)
		if (!strcmp(c->classes[i].name, f[1]))
			return parse_fail(p, line, "duplicate class '%s'",
					  f[1]);
	if (parse_uint(f[2], &rank) < 0)
		return parse_fail(p, line,
				  "rank '%s' is not a non-negative integer",
				  f[2]);
	if (split_list(p, line, f[3], "family", &families, &nfamilies) < 0)
		return -1;

	GROW(c->classes, c->nclasses + 1, p->classes_alloc);
	GROW(p->class_line, c->nclasses + 1, p->class_line_alloc);
	p->class_line[c->nclasses] = line;
	cl = &c->classes[c->nclasses++];
	cl->name = f[1];
	cl->rank = rank;
	cl->families = families;
	cl->nfamilies = nfamilies;
	return 0;
}

static int parse_family(struct cat_parser *p, int line, char **f)
{
	struct catalog *c = &p->cat;
	struct cat_family *fam;
	const char **profiles = NULL;
	int *instances = NULL;
	size_t nprofiles = 0;
	int has_model = strcmp(f[3], "-") != 0;
	int has_profiles = strcmp(f[4], "-") != 0;
	int misreports;

	if (find_family(c, f[1]))
		return parse_fail(p, line, "duplicate family '%s'", f[1]);
	if (!strcmp(f[2], "-"))
		return parse_fail(p, line, "family '%s' has no gpu label",
				  f[1]);
	if (has_model != has_profiles)
		return parse_fail(p, line,
				  "family '%s': MIG model and MIG profiles "
				  "must both be set or both be '-'",
				  f[1]);
	if (strcmp(f[5], "0") && strcmp(f[5], "1"))
		return parse_fail(p, line,
				  "misreports '%s' is not 0 or 1", f[5]);
	misreports = f[5][0] == '1';
	if (has_profiles &&
	    split_list(p, line, f[4], "MIG profile", &profiles,
		       &nprofiles) < 0)
		return -1;
	if (has_profiles) {
		instances = xcalloc(nprofiles, sizeof(*instances));
		for (size_t i = 0; i < nprofiles; i++) {
			char *colon = strchr(profiles[i], ':');
			if (!colon || parse_uint(colon + 1, &instances[i]) < 0 ||
			    instances[i] < 1 || instances[i] > 7) {
				parse_fail(p, line,
					   "MIG profile '%s' needs ':N', the "
					   "instances per GPU (1 to 7)",
					   profiles[i]);
				free(profiles);
				free(instances);
				return -1;
			}
			*colon = '\0';
		}
		for (size_t i = 0; i < nprofiles; i++)
			for (size_t j = 0; j < i; j++)
				if (!strcmp(profiles[i], profiles[j])) {
					parse_fail(p, line,
						   "MIG profile '%s' listed "
						   "twice", profiles[i]);
					free(profiles);
					free(instances);
					return -1;
				}
	}

	GROW(c->families, c->nfamilies + 1, p->families_alloc);
	fam = &c->families[c->nfamilies++];
	fam->name = f[1];
	fam->gpu = f[2];
	fam->mig_model = has_model ? f[3] : NULL;
	fam->mig_profiles = profiles;
	fam->mig_instances = instances;
	fam->nmig = nprofiles;
	fam->misreports = misreports;
	return 0;
}

static int parse_type(struct cat_parser *p, int line, char **f)
{
	static const char *const int_names[] = {
		"gpus", "gpu memory", "vcpu", "memory", "efa",
	};
	struct catalog *c = &p->cat;
	struct cat_type *t;
	int v[5];
	double price;
	size_t flen = strlen(f[2]), i;

	for (i = 0; i < c->ntypes; i++)
		if (!strcmp(c->types[i].name, f[1]))
			return parse_fail(p, line,
					  "duplicate type '%s' (first at "
					  "line %d)",
					  f[1], p->type_line[i]);
	if (strncmp(f[1], f[2], flen) || f[1][flen] != '.' ||
	    !f[1][flen + 1])
		return parse_fail(p, line,
				  "type '%s' is not named '%s.<size>'", f[1],
				  f[2]);
	/* a family's types must be contiguous (catalog_types_of relies on it) */
	if (c->ntypes && strcmp(c->types[c->ntypes - 1].family, f[2])) {
		for (i = 0; i < c->ntypes; i++)
			if (!strcmp(c->types[i].family, f[2]))
				return parse_fail(
					p, line,
					"types of family '%s' are not "
					"contiguous (another at line %d)",
					f[2], p->type_line[i]);
	}
	for (i = 0; i < 5; i++)
		if (parse_uint(f[3 + i], &v[i]) < 0)
			return parse_fail(p, line,
					  "%s '%s' is not a non-negative "
					  "integer",
					  int_names[i], f[3 + i]);
	if (parse_price(f[8], &price) < 0)
		return parse_fail(p, line,
				  "price '%s' is not a non-negative decimal",
				  f[8]);
	if (!valid_arch(f[9]))
		return parse_fail(p, line,
				  "arch '%s' is not amd64 or arm64", f[9]);

	GROW(c->types, c->ntypes + 1, p->types_alloc);
	GROW(p->type_line, c->ntypes + 1, p->type_line_alloc);
	p->type_line[c->ntypes] = line;
	t = &c->types[c->ntypes++];
	t->name = f[1];
	t->family = f[2];
	t->size = f[1] + flen + 1; /* shares the name's terminator */
	t->gpus = v[0];
	t->gpu_mem_mib = v[1];
	t->vcpu = v[2];
	t->mem_mib = v[3];
	t->efa = v[4];
	t->price = price;
	t->arch = f[9];
	t->enis = 0; /* set by its eni record */
	t->ipv4_per_eni = 0;
	t->cards = 0; /* set by its nic record */
	t->card0_ifaces = 0;
	t->reserved_only = 0; /* set by its reservedonly record */
	return 0;
}

static int parse_nic(struct cat_parser *p, int line, char **f)
{
	struct catalog *c = &p->cat;
	size_t i;
	int cards, ifaces;

	for (i = 0; i < c->ntypes; i++)
		if (!strcmp(c->types[i].name, f[1]))
			break;
	if (i == c->ntypes)
		return parse_fail(p, line,
				  "nic record for unknown type '%s' (nic "
				  "records come after the type)",
				  f[1]);
	if (c->types[i].cards)
		return parse_fail(p, line, "duplicate nic record for '%s'",
				  f[1]);
	if (parse_uint(f[2], &cards) < 0 || cards < 1 || cards > 64 ||
	    parse_uint(f[3], &ifaces) < 0 || ifaces < 1 || ifaces > 1000)
		return parse_fail(p, line,
				  "nic record for '%s': network cards (1-64) "
				  "and interfaces on card 0 (>= 1) must be "
				  "integers",
				  f[1]);
	c->types[i].cards = cards;
	c->types[i].card0_ifaces = ifaces;
	return 0;
}

/* reservedonly TYPE SOURCE: no on-demand price in Karpenter's table */
static int parse_reserved_only(struct cat_parser *p, int line, char **f)
{
	struct catalog *c = &p->cat;
	size_t i;

	for (i = 0; i < c->ntypes; i++)
		if (!strcmp(c->types[i].name, f[1]))
			break;
	if (i == c->ntypes)
		return parse_fail(p, line,
				  "reservedonly record for unknown type '%s' "
				  "(it comes after the type)",
				  f[1]);
	if (c->types[i].reserved_only)
		return parse_fail(p, line,
				  "duplicate reservedonly record for '%s'", f[1]);
	c->types[i].reserved_only = 1;
	return 0;
}

static int parse_eni(struct cat_parser *p, int line, char **f)
{
	struct catalog *c = &p->cat;
	size_t i;
	int enis, ipv4;

	for (i = 0; i < c->ntypes; i++)
		if (!strcmp(c->types[i].name, f[1]))
			break;
	if (i == c->ntypes)
		return parse_fail(p, line,
				  "eni record for unknown type '%s' (eni "
				  "records come after the type)",
				  f[1]);
	if (c->types[i].enis)
		return parse_fail(p, line, "duplicate eni record for '%s'",
				  f[1]);
	if (parse_uint(f[2], &enis) < 0 || enis < 1 ||
	    parse_uint(f[3], &ipv4) < 0 || ipv4 < 2 || enis > 1000 ||
	    ipv4 > 1000)
		return parse_fail(p, line,
				  "eni record for '%s': ENIs and IPv4 per ENI "
				  "must be integers (ENIs >= 1, IPv4 >= 2)",
				  f[1]);
	c->types[i].enis = enis;
	c->types[i].ipv4_per_eni = ipv4;
	return 0;
}

/* a release: MAJOR.MINOR.PATCH, digits only */
static int valid_release(const char *s)
{
	int dots = 0, digits = 0;

	for (; *s; s++) {
		if (*s == '.') {
			if (!digits)
				return 0;
			digits = 0;
			dots++;
		} else if (*s >= '0' && *s <= '9')
			digits++;
		else
			return 0;
	}
	return dots == 2 && digits > 0;
}

static int parse_release(struct cat_parser *p, int line, char **f)
{
	struct catalog *c = &p->cat;
	struct cat_release *r;

	if (strcmp(f[1], "bottlerocket"))
		return parse_fail(p, line,
				  "release record for AMI family '%s' (only "
				  "bottlerocket)",
				  f[1]);
	if (strcmp(f[2], "timeslicing") && strcmp(f[2], "mig") &&
	    strcmp(f[2], "efa") && strncmp(f[2], "gpu:", 4))
		return parse_fail(p, line,
				  "unknown feature '%s' (timeslicing, mig, efa "
				  "or gpu:<class>)",
				  f[2]);
	if (!strncmp(f[2], "gpu:", 4) && !catalog_class(c, f[2] + 4))
		return parse_fail(p, line,
				  "release record names unknown GPU class "
				  "'%s' (classes come first)",
				  f[2] + 4);
	if (!valid_release(f[3]))
		return parse_fail(p, line,
				  "release '%s' is not MAJOR.MINOR.PATCH", f[3]);
	if (catalog_release_of(c, f[1], f[2]))
		return parse_fail(p, line, "duplicate release record for "
				  "'%s' '%s'", f[1], f[2]);
	GROW(c->releases, c->nreleases + 1, p->releases_alloc);
	r = &c->releases[c->nreleases++];
	r->ami = f[1];
	r->feature = f[2];
	r->first = f[3];
	r->source = f[4];
	return 0;
}

/* parse_line: one NUL-terminated line, already known not to be a comment. */
static int parse_line(struct cat_parser *p, int line, char *s)
{
	static const struct {
		const char *kind;
		int nfields;
		int (*fn)(struct cat_parser *, int, char **);
	} kinds[] = {
		{ "class", 4, parse_class },
		{ "family", 6, parse_family },
		{ "type", 10, parse_type },
		{ "eni", 4, parse_eni },
		{ "nic", 4, parse_nic },
		{ "release", 5, parse_release },
		{ "reservedonly", 3, parse_reserved_only },
	};
	char *f[CATALOG_MAX_FIELDS];
	int n = 0, i;
	size_t k;

	for (;;) {
		char *tab = strchr(s, '\t');

		if (tab)
			*tab = '\0';
		if (n < CATALOG_MAX_FIELDS)
			f[n] = s;
		n++;
		if (!tab)
			break;
		s = tab + 1;
	}
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(f[0], kinds[k].kind))
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		return parse_fail(p, line,
				  "unknown record kind '%s' (want class, "
				  "family, type, eni, nic, release or "
				  "reservedonly)",
				  f[0]);
	if (n != kinds[k].nfields)
		return parse_fail(p, line, "'%s' record has %d columns, want %d",
				  kinds[k].kind, n, kinds[k].nfields);
	for (i = 1; i < n; i++) {
		if (!*f[i])
			return parse_fail(p, line, "column %d is empty", i + 1);
		if (strpbrk(f[i], " \v\f\r"))
			return parse_fail(p, line,
					  "column %d '%s' contains a space "
					  "(columns are separated by tabs)",
					  i + 1, f[i]);
	}
	return kinds[k].fn(p, line, f);
}

/* check_references: run once the whole file is read (forward references). */
static int check_references(struct cat_parser *p)
{
	const struct catalog *c = &p->cat;
	size_t i, j;

	for (i = 0; i < c->nclasses; i++)
		for (j = 0; j < c->classes[i].nfamilies; j++)
			if (!find_family(c, c->classes[i].families[j]))
				return parse_fail(p, p->class_line[i],
						  "class '%s' names unknown "
						  "family '%s'",
						  c->classes[i].name,
						  c->classes[i].families[j]);
	for (i = 0; i < c->ntypes; i++)
		if (!find_family(c, c->types[i].family))
			return parse_fail(p, p->type_line[i],
					  "type '%s' names unknown family "
					  "'%s'",
					  c->types[i].name,
					  c->types[i].family);
	return 0;
}

static int line_is_blank(const char *s)
{
	return s[strspn(s, " \t\r")] == '\0';
}

int catalog_parse(struct catalog *out, const char *text, size_t len,
		  const char *file, struct err *err)
{
	struct cat_parser p;
	char *s, *end, *nul;
	int line = 1, ret = -1;

	memset(&p, 0, sizeof(p));
	p.file = file ? file : "<catalog>";
	p.err = err;

	p.cat.text = xmalloc(st_add(len, 1));
	if (len)
		memcpy(p.cat.text, text, len);
	p.cat.text[len] = '\0';
	end = p.cat.text + len;

	nul = memchr(p.cat.text, '\0', len);
	if (nul) {
		for (s = p.cat.text; s < nul; s++)
			line += *s == '\n';
		parse_fail(&p, line, "NUL byte in catalog text");
		goto out;
	}

	for (s = p.cat.text; s < end; line++) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n;

		if (nl)
			*nl = '\0';
		else
			nl = end;
		n = (size_t)(nl - s);
		if (n && s[n - 1] == '\r') /* tolerate CRLF files */
			s[n - 1] = '\0';
		if (*s != '#' && !line_is_blank(s) &&
		    parse_line(&p, line, s) < 0)
			goto out;
		s = nl + 1;
	}
	if (check_references(&p) < 0)
		goto out;

	*out = p.cat;
	p.cat = (struct catalog)CATALOG_INIT;
	ret = 0;
out:
	catalog_release(&p.cat);
	free(p.class_line);
	free(p.type_line);
	return ret;
}

void catalog_release(struct catalog *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nclasses; i++)
		free(c->classes[i].families);
	for (i = 0; i < c->nfamilies; i++) {
		free(c->families[i].mig_profiles);
		free(c->families[i].mig_instances);
	}
	free(c->classes);
	free(c->releases);
	free(c->families);
	free(c->types);
	free(c->text);
	*c = (struct catalog)CATALOG_INIT;
}

const struct catalog *catalog_builtin(void)
{
	/* parsed on first use and kept for the process; not thread-safe */
	static struct catalog builtin = CATALOG_INIT;
	static int loaded;
	const struct embedded_file *f;
	struct err err = ERR_INIT;

	if (loaded)
		return &builtin;
	for (f = embedded_files; f->path; f++)
		if (!strcmp(f->path, CATALOG_EMBEDDED_PATH))
			break;
	if (!f->path)
		BUG("embedded file '%s' is missing", CATALOG_EMBEDDED_PATH);
	if (catalog_parse(&builtin, f->data, f->len, f->path, &err) < 0)
		BUG("embedded catalog is malformed: %s", err_msg(&err));
	loaded = 1;
	return &builtin;
}

const struct cat_class *catalog_class(const struct catalog *c,
				      const char *name)
{
	size_t i;

	if (!c || !name)
		return NULL;
	for (i = 0; i < c->nclasses; i++)
		if (!strcmp(c->classes[i].name, name))
			return &c->classes[i];
	return NULL;
}

const struct cat_family *catalog_family(const struct catalog *c,
					const char *name)
{
	if (!c || !name)
		return NULL;
	return find_family(c, name);
}

size_t catalog_types_of(const struct catalog *c, const char *family,
			const struct cat_type **first)
{
	size_t i, n = 0;

	*first = NULL;
	if (!c || !family)
		return 0;
	for (i = 0; i < c->ntypes; i++)
		if (!strcmp(c->types[i].family, family))
			break;
	if (i == c->ntypes)
		return 0;
	*first = &c->types[i];
	while (i + n < c->ntypes && !strcmp(c->types[i + n].family, family))
		n++;
	return n;
}

int catalog_mig_instances(const struct cat_family *f, const char *profile)
{
	if (!f || !profile)
		return 0;
	for (size_t i = 0; i < f->nmig; i++)
		if (!strcmp(f->mig_profiles[i], profile))
			return f->mig_instances[i];
	return 0;
}

int catalog_max_pods(const struct cat_type *t)
{
	if (!t || t->enis < 1 || t->ipv4_per_eni < 2)
		return 0;
	return t->enis * (t->ipv4_per_eni - 1) + 2;
}

const struct cat_release *catalog_release_of(const struct catalog *c,
					     const char *ami,
					     const char *feature)
{
	if (!c || !ami || !feature)
		return NULL;
	for (size_t i = 0; i < c->nreleases; i++)
		if (!strcmp(c->releases[i].ami, ami) &&
		    !strcmp(c->releases[i].feature, feature))
			return &c->releases[i];
	return NULL;
}

int catalog_version_cmp(const char *a, const char *b)
{
	if (*a == 'v')
		a++;
	if (*b == 'v')
		b++;
	while (*a || *b) {
		long x = 0, y = 0;
		/* bounded: at most 9 digits count per component */
		for (int i = 0; *a >= '0' && *a <= '9'; a++, i++)
			if (i < 9)
				x = x * 10 + (*a - '0');
		for (int i = 0; *b >= '0' && *b <= '9'; b++, i++)
			if (i < 9)
				y = y * 10 + (*b - '0');
		if (x != y)
			return x < y ? -1 : 1;
		if (*a == '.')
			a++;
		else if (*a)
			return *b ? strcmp(a, b) : 1;
		if (*b == '.')
			b++;
		else if (*b)
			return -1;
	}
	return 0;
}

/* ---- the classes as a table (gpuform explain classes) ---------------------- */

/* a table of 3 columns for a terminal: padded columns, the last one
 * wrapped at word boundaries to `width` */
static void text_table(struct buf *out, char *const *cells, size_t nrows,
		       size_t width)
{
	size_t w[3] = { 0, 0, 0 };

	for (size_t r = 0; r < nrows; r++)
		for (int c = 0; c < 2; c++)
			if (strlen(cells[3 * r + c]) > w[c])
				w[c] = strlen(cells[3 * r + c]);
	if (w[1] > width / 2)
		w[1] = width / 2;
	for (size_t r = 0; r < nrows; r++) {
		/* the families column wraps at "; ", the last at ", " */
		const char *p1 = cells[3 * r + 1], *p2 = cells[3 * r + 2];
		int first = 1;

		while (first || *p1 || *p2) {
			size_t n1 = strlen(p1), n2 = strlen(p2);
			size_t room2 = width > 4 + w[0] + w[1] + 20
					       ? width - 4 - w[0] - w[1]
					       : 20;
			if (n1 > w[1]) {
				size_t k = w[1];
				while (k > 0 && p1[k] != ' ')
					k--;
				n1 = k ? k : w[1];
			}
			if (n2 > room2) {
				size_t k = room2;
				while (k > 0 && p2[k] != ' ')
					k--;
				n2 = k ? k : room2;
			}
			buf_addf(out, "%-*s  %-*.*s  %.*s\n", (int)w[0],
			       first ? cells[3 * r] : "", (int)w[1], (int)n1,
			       p1, (int)n2, p2);
			p1 += n1;
			p2 += n2;
			while (*p1 == ' ')
				p1++;
			while (*p2 == ' ')
				p2++;
			first = 0;
		}
	}
}


void catalog_classes_table(struct buf *out, const struct catalog *cat,
			   int markdown, size_t width)
{
	char **cells = xcalloc(3 * (cat->nclasses + 1), sizeof(*cells));
	struct buf b = BUF_INIT;

	cells[0] = xstrdup("CLASS");
	cells[1] = xstrdup("FAMILIES (GPU, GPUS, GPU MEMORY)");
	cells[2] = xstrdup("CLASS+ ALSO ALLOWS");
	if (markdown)
		buf_adds(out, "| class | instance families (GPU, GPUs per "
			      "instance, GPU memory) | `class+` also allows "
			      "|\n|---|---|---|\n");
	for (size_t i = 0; i < cat->nclasses; i++) {
		const struct cat_class *k = &cat->classes[i];
		int first = 1;
		/* a cell is written with Markdown's backticks; the terminal
		 * table drops them */
		buf_reset(&b);
		buf_addf(&b, "| `%s` | ", k->name);
		for (size_t j = 0; j < k->nfamilies; j++) {
			const struct cat_family *f =
				catalog_family(cat, k->families[j]);
			const struct cat_type *t;
			size_t n = catalog_types_of(cat, k->families[j], &t);
			int lo = 0, hi = 0, mem = 0;

			for (size_t m = 0; m < n; m++) {
				if (!lo || t[m].gpus < lo)
					lo = t[m].gpus;
				if (t[m].gpus > hi)
					hi = t[m].gpus;
				mem = t[m].gpu_mem_mib;
			}
			buf_addf(&b, "%s`%s` (%s, ", j ? "; " : "", k->families[j],
			       f && f->gpu ? f->gpu : "?");
			if (lo == hi)
				buf_addf(&b, "%d", lo);
			else
				buf_addf(&b, "%d-%d", lo, hi);
			buf_addf(&b, ", %d GiB)", mem / 1024);
		}
		buf_addf(&b, " | ");
		for (size_t j = 0; j < cat->nclasses; j++)
			if (j != i && cat->classes[j].rank >= k->rank) {
				buf_addf(&b, "%s`%s`", first ? "" : ", ",
				       cat->classes[j].name);
				first = 0;
			}
		buf_addf(&b, "%s |\n", first ? "(none: the best class)" : "");
		if (markdown) {
			buf_adds(out, buf_cstr(&b));
			continue;
		}
		/* "| a | b | c |\n" -> three cells without backticks */
		{
			char *s = buf_detach(&b, NULL), *p = s + 2;
			for (int c = 0; c < 3; c++) {
				char *e = strstr(p, " | ");
				struct buf cell = BUF_INIT;
				if (!e)
					e = p + strcspn(p, "|\n") - 1;
				for (char *q = p; q < e; q++)
					if (*q != '`')
						buf_addc(&cell, *q);
				cells[3 * (i + 1) + (size_t)c] =
					buf_detach(&cell, NULL);
				p = e + 3;
			}
			free(s);
		}
	}
	buf_release(&b);
	if (!markdown)
		text_table(out, cells, cat->nclasses + 1, width);
	for (size_t i = 0; i < 3 * (cat->nclasses + 1); i++)
		free(cells[i]);
	free(cells);
}
