/*
 * generator/validate.c: semantic rules for a ClusterIntent (see validate.h).
 * Shape and type problems were already reported by intent.c; this file sees
 * only values of the right type.
 */
#include "generator/validate.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/capacity.h"
#include "generator/interruption.h"
#include "generator/lint.h"
#include "generator/units.h"
#include "generator/window.h"
#include "util/xalloc.h"

#define AT(p) (p).line, (p).col
#define GPU_SPEC_HINT                                                      \
	"classes: t4 v100 a10g l4 l40s a100 h100 h200 b200; 'l4+' means l4 "  \
	"or better, 'l4..l40s' l4 up to l40s, 'a100.80gb' one GPU model"

int validate_dns_label(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!(islower((unsigned char)c) || isdigit((unsigned char)c) ||
		      c == '-'))
			return 0;
	}
	return s[0] != '-' && s[n - 1] != '-';
}

static int matches_charset(const char *s, const char *extra, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return 1;
}

/* "<prefix>-" followed by 8 or 17 lower-case hex digits */
static int is_aws_id(const char *s, const char *prefix)
{
	size_t pl = strlen(prefix), n;

	if (strncmp(s, prefix, pl) || s[pl] != '-')
		return 0;
	s += pl + 1;
	n = strlen(s);
	if (n != 8 && n != 17)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && !(*s >= 'a' && *s <= 'f'))
			return 0;
	return 1;
}

static void class_names(const struct catalog *cat, const char **names,
			size_t max)
{
	size_t i;
	for (i = 0; i < cat->nclasses && i + 1 < max; i++)
		names[i] = cat->classes[i].name;
	names[i] = NULL;
}

static int has_family(const struct cat_family **list, size_t n,
		      const struct cat_family *f)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == f)
			return 1;
	return 0;
}

static int family_fits(const struct catalog *cat, const struct cat_family *f,
		       const struct workload *w)
{
	const struct cat_type *t;
	size_t n = catalog_types_of(cat, f->name, &t);

	for (size_t i = 0; i < n; i++)
		if (t[i].gpus >= w->gpus_per_pod && (!w->efa || t[i].efa > 0))
			return 1;
	return 0;
}

static int family_has_mig(const struct cat_family *f, const char *profile)
{
	for (size_t i = 0; i < f->nmig; i++)
		if (!strcmp(f->mig_profiles[i], profile))
			return 1;
	return 0;
}

/* a family chosen by the spec "a100.80gb": its GPU model (the MIG key) */
static int is_model_spec(const struct catalog *cat, const char *spec)
{
	for (size_t i = 0; i < cat->nfamilies; i++)
		if (cat->families[i].mig_model &&
		    !strcmp(cat->families[i].mig_model, spec))
			return 1;
	return 0;
}

static void add_family(const struct cat_family **all, size_t *nall,
		       const struct cat_family *f)
{
	if (f && !f->misreports && *nall < VALIDATE_MAX_FAMILIES &&
	    !has_family(all, *nall, f))
		all[(*nall)++] = f;
}

static void unknown_class(const struct catalog *cat, const char *what,
			  const char *written, const char *tail,
			  struct buf *why)
{
	const char *names[128];
	const char *sugg = NULL;
	char *model = xstrdup(what);
	size_t n;

	/* a GPU model with the wrong separator ("a100-80gb", "A100_80GB")
	 * is that model, not the class its prefix names */
	for (char *p = model; *p; p++)
		*p = *p == '-' || *p == '_' || *p == ' '
			     ? '.'
			     : (char)tolower((unsigned char)*p);
	for (size_t i = 0; i < cat->nfamilies && !sugg; i++)
		if (cat->families[i].mig_model &&
		    !strcmp(cat->families[i].mig_model, model))
			sugg = cat->families[i].mig_model;
	if (!sugg) {
		/* else the nearest class or GPU model */
		class_names(cat, names, 64);
		for (n = 0; names[n]; n++)
			;
		for (size_t i = 0; i < cat->nfamilies && n < 127; i++) {
			const char *m = cat->families[i].mig_model;
			int seen = 0;
			if (!m)
				continue;
			for (size_t j = 0; j < n; j++)
				seen |= !strcmp(names[j], m);
			if (!seen)
				names[n++] = m;
		}
		names[n] = NULL;
		sugg = intent_suggest(what, names);
	}
	free(model);
	buf_addf(why, "unknown GPU class '%.40s'", written);
	if (sugg)
		buf_addf(why, "; did you mean '%s%s'?", sugg, tail);
}

/*
 * spec_families: the families one gpu entry names. "l4" a class, "l4+" the
 * class and every better one, "l4..l40s" the classes ranked from l4 to
 * l40s, "a100.80gb" the families of one GPU model (its Bottlerocket MIG
 * key). -1 with a reason for anything else.
 */
static int spec_families(const char *written, const struct catalog *cat,
			 const struct cat_family **all, size_t *nall,
			 struct buf *why)
{
	char *spec = xstrdup(written);
	size_t len = strlen(spec);
	int plus = len > 1 && spec[len - 1] == '+';
	char *dots = strstr(spec, "..");
	const struct cat_class *lo, *hi;
	int ret = -1;

	if (plus)
		spec[len - 1] = '\0';
	if (dots) {
		*dots = '\0';
		lo = catalog_class(cat, spec);
		hi = catalog_class(cat, dots + 2);
		if (plus)
			buf_addf(why, "GPU range '%.40s' cannot also end in "
				      "'+'", written);
		else if (!lo)
			unknown_class(cat, spec, spec, "", why);
		else if (!hi)
			unknown_class(cat, dots + 2, dots + 2, "", why);
		else if (lo->rank > hi->rank)
			buf_addf(why, "GPU range '%.40s' is empty: '%s' ranks "
				      "above '%s' (write the lower class first)",
				 written, lo->name, hi->name);
		else
			ret = 0;
	} else if (!(lo = catalog_class(cat, spec))) {
		if (is_model_spec(cat, spec) && !plus) {
			for (size_t i = 0; i < cat->nfamilies; i++)
				if (cat->families[i].mig_model &&
				    !strcmp(cat->families[i].mig_model, spec))
					add_family(all, nall, &cat->families[i]);
			free(spec);
			return 0;
		}
		if (is_model_spec(cat, spec))
			buf_addf(why, "GPU model '%.40s' cannot end in '+' "
				      "(a model is one GPU; use a class range)",
				 spec);
		else
			unknown_class(cat, spec, written, plus ? "+" : "", why);
	} else {
		hi = plus ? NULL : lo;
		ret = 0;
	}
	if (ret == 0)
		for (size_t c = 0; c < cat->nclasses; c++) {
			const struct cat_class *k = &cat->classes[c];
			if (k->rank < lo->rank || (hi && k->rank > hi->rank))
				continue;
			for (size_t j = 0; j < k->nfamilies; j++)
				add_family(all, nall,
					   catalog_family(cat, k->families[j]));
		}
	free(spec);
	return ret;
}

static const char *family_label(const struct cat_family *f)
{
	return f->mig_model ? f->mig_model : f->gpu;
}

int validate_families(const struct workload *w, const struct catalog *cat,
		      const struct cat_family **out, struct buf *why)
{
	const struct cat_family *all[VALIDATE_MAX_FAMILIES];
	const struct cat_family *fit[VALIDATE_MAX_FAMILIES];
	size_t nall = 0, nfit = 0, n = 0;
	int any_efa = 0, any_gpus = 0, any_mig = 0;

	for (size_t i = 0; i < w->ngpu; i++)
		if (spec_families(w->gpu[i], cat, all, &nall, why) < 0)
			return -1;
	for (size_t i = 0; i < nall; i++) {
		const struct cat_family *f = all[i];
		struct workload probe = *w;

		probe.efa = 0;
		if (family_fits(cat, f, &probe))
			any_gpus = 1;
		if (w->efa && family_fits(cat, f, w))
			any_efa = 1;
		if (w->sharing == SHARE_MIG && f->nmig)
			any_mig = 1;
		if (family_fits(cat, f, w))
			fit[nfit++] = f;
	}
	if (w->sharing == SHARE_MIG && nfit) {
		/* every family the GPU entries name must give the same number
		 * of instances per GPU: a family without the profile would be
		 * dropped silently, and one NodePool limit cannot count two
		 * slice sizes */
		int have = 0, lack = 0, differ = 0;
		long first = 0;

		for (size_t i = 0; i < nfit; i++) {
			int k = catalog_mig_instances(fit[i], w->mig_profile);
			if (!k) {
				lack = 1;
				continue;
			}
			have = 1;
			if (first && k != first)
				differ = 1;
			if (!first)
				first = k;
		}
		if (have && (lack || differ)) {
			buf_addf(why, "MIG profile '%s' %s:", w->mig_profile,
				 lack ? "is missing on some GPUs these entries "
					"name"
				      : "gives a different number of instances "
					"per GPU on the GPUs these entries name");
			for (size_t i = 0; i < nfit; i++)
				buf_addf(why, " %s (%s) %d%s", fit[i]->name,
					 family_label(fit[i]),
					 catalog_mig_instances(fit[i],
							       w->mig_profile),
					 i + 1 < nfit ? "," : "");
			buf_adds(why, "; name one GPU model (e.g. 'a100.80gb') "
				      "or one class, and a profile it has");
			return 0;
		}
	}
	for (size_t i = 0; i < nfit; i++) {
		if (w->sharing == SHARE_MIG &&
		    !family_has_mig(fit[i], w->mig_profile))
			continue;
		out[n++] = fit[i];
	}
	if (n == 0) {
		if (!any_gpus)
			buf_addf(why,
				 "no instance type of GPU class '%s' has %ld "
				 "GPUs",
				 w->gpu[0], w->gpus_per_pod);
		else if (w->efa && !any_efa)
			buf_addf(why,
				 "EFA requested, but no instance family of GPU "
				 "class '%s' offers EFA with %ld GPUs",
				 w->gpu[0], w->gpus_per_pod);
		else if (w->sharing == SHARE_MIG && !any_mig)
			buf_addf(why,
				 "MIG requested, but the GPUs of class '%s' do "
				 "not support MIG (MIG-capable: a100, h100, "
				 "h200, b200)",
				 w->gpu[0]);
		else if (w->sharing == SHARE_MIG) {
			buf_addf(why, "MIG profile '%s' does not exist on "
				      "class '%s'; valid profiles:",
				 w->mig_profile, w->gpu[0]);
			for (size_t i = 0; i < nfit; i++)
				for (size_t j = 0; j < fit[i]->nmig; j++) {
					int dup = 0;
					for (size_t k = 0; k < i; k++)
						dup |= family_has_mig(
							fit[k],
							fit[i]->mig_profiles[j]);
					if (!dup)
						buf_addf(why, " %s",
							 fit[i]->mig_profiles[j]);
				}
		} else
			buf_adds(why, "no instance family fits this workload");
	}
	return (int)n;
}

static void check_ami(const struct intent *in, struct diags *d)
{
	const char *f = in->file;
	const char *v = in->ami_version;

	if (!in->ami) {
		if (in->ami_present)
			return; /* present but malformed: already reported */
		diags_add(d, DIAG_ERROR, f, AT(in->spec_pos.line ? in->spec_pos : in->pos),
			  "add 'ami: bottlerocket@v1.38.0' or "
			  "'ami: al2023@v20250505' under spec",
			  "missing 'spec.ami'");
		return;
	}
	if (in->ami_family == AMI_UNKNOWN) {
		size_t flen = strcspn(in->ami, "@");
		if (flen == 3 && !strncmp(in->ami, "al2", 3))
			diags_add(d, DIAG_ERROR, f, AT(in->ami_pos),
				  "use al2023@vYYYYMMDD or bottlerocket@vX.Y.Z",
				  "AL2 AMIs stop at Kubernetes 1.32 and are "
				  "not supported");
		else if (!strncmp(in->ami, "windows", 7))
			diags_add(d, DIAG_ERROR, f, AT(in->ami_pos),
				  "use al2023@vYYYYMMDD or bottlerocket@vX.Y.Z",
				  "Windows AMIs cannot run NVIDIA GPU nodes "
				  "here");
		else {
			static const char *const fams[] = { "al2023",
							    "bottlerocket", NULL };
			char *fam = xstrndup(in->ami, flen);
			const char *sugg = intent_suggest(fam, fams);
			char *hint = sugg ? xasprintf("did you mean '%s'?", sugg)
					  : xstrdup("write family@version, family "
						    "al2023 or bottlerocket");
			diags_add(d, DIAG_ERROR, f, AT(in->ami_pos), hint,
				  "unknown AMI family in '%.60s'", in->ami);
			free(hint);
			free(fam);
		}
		return;
	}
	if (!v || !*v) {
		diags_add(d, DIAG_ERROR, f, AT(in->ami_pos),
			  in->ami_family == AMI_BOTTLEROCKET
				  ? "pin a release, e.g. bottlerocket@v1.38.0"
				  : "pin a release, e.g. al2023@v20250505",
			  "AMI '%s' is not pinned to a version", in->ami);
		return;
	}
	if (!strcmp(v, "latest")) {
		diags_add(d, DIAG_ERROR, f, AT(in->ami_pos),
			  in->ami_family == AMI_BOTTLEROCKET
				  ? "pin a release, e.g. bottlerocket@v1.38.0"
				  : "pin a release, e.g. al2023@v20250505",
			  "'@latest' AMI: every new AMI release would drift "
			  "and replace all GPU nodes");
		return;
	}
	{
		const char *s = v[0] == 'v' ? v + 1 : v;
		int ok = 1;
		if (in->ami_family == AMI_AL2023) {
			ok = strlen(s) == 8;
			for (const char *p = s; *p; p++)
				ok &= isdigit((unsigned char)*p) != 0;
			if (ok) {
				/* a release date: YYYYMMDD */
				int mon = (s[4] - '0') * 10 + (s[5] - '0');
				int day = (s[6] - '0') * 10 + (s[7] - '0');
				ok = mon >= 1 && mon <= 12 && day >= 1 &&
				     day <= 31 && s[0] == '2';
			}
		} else {
			int dots = 0, digits = 0;
			for (const char *p = s; *p; p++) {
				if (*p == '.') {
					ok &= digits > 0;
					digits = 0;
					dots++;
				} else if (isdigit((unsigned char)*p))
					digits++;
				else
					ok = 0;
			}
			ok &= dots == 2 && digits > 0;
		}
		if (!ok)
			diags_add(d, DIAG_ERROR, f, AT(in->ami_pos),
				  in->ami_family == AMI_AL2023
					  ? "AL2023 releases are dates: al2023@v20250505"
					  : "Bottlerocket releases look like bottlerocket@v1.38.0",
				  "AMI version '%.40s' is not a release version",
				  v);
	}
}

/* a Bottlerocket release as written is usable for comparison */
static int br_release_ok(const char *v)
{
	int dots = 0, digits = 0;

	if (!v)
		return 0;
	if (*v == 'v')
		v++;
	for (; *v; v++) {
		if (*v == '.') {
			if (!digits)
				return 0;
			digits = 0;
			dots++;
		} else if (isdigit((unsigned char)*v))
			digits++;
		else
			return 0;
	}
	return dots == 2 && digits > 0;
}

/* gate: refuse a feature the pinned Bottlerocket release lacks */
static void gate(const struct intent *in, const struct catalog *cat,
		 const char *feature, const char *what, struct pos at,
		 struct diags *d)
{
	const struct cat_release *r =
		catalog_release_of(cat, "bottlerocket", feature);
	char *hint;

	if (!r || catalog_version_cmp(in->ami_version, r->first) >= 0)
		return;
	hint = xasprintf("pin ami: bottlerocket@v%s or later (line %d); "
			 "source: %s",
			 r->first, in->ami_pos.line, r->source);
	diags_add(d, DIAG_ERROR, in->file, AT(at), hint,
		  "%s needs Bottlerocket v%s or later, but the AMI is pinned "
		  "to %s: %s",
		  what, r->first, in->ami,
		  !strcmp(feature, "efa")
			  ? "its images have no EFA support (driver, "
			    "hugepages, locked-memory limit), so no EFA "
			    "device is advertised and EFA pods never start"
		  : strncmp(feature, "gpu:", 4)
			  ? "Bottlerocket refuses settings it does not know "
			    "at boot, so Karpenter would keep launching nodes "
			    "that never become ready"
			  : "its NVIDIA driver branch does not support this "
			    "GPU, so Karpenter would keep launching nodes "
			    "that never become ready");
	free(hint);
}

static void check_release(const struct intent *in, const struct workload *w,
			  const struct cat_family *const *fams, size_t n,
			  const struct catalog *cat, struct diags *d)
{
	const char *done[VALIDATE_MAX_FAMILIES];
	size_t ndone = 0;

	if (in->ami_family != AMI_BOTTLEROCKET ||
	    !br_release_ok(in->ami_version))
		return;
	if (w->sharing == SHARE_TIMESLICING)
		gate(in, cat, "timeslicing", "time-slicing", w->sharing_pos, d);
	else if (w->sharing == SHARE_MIG)
		gate(in, cat, "mig", "MIG", w->sharing_pos, d);
	if (w->efa)
		gate(in, cat, "efa", "EFA", w->efa_pos, d);
	/* Bottlerocket's MIG manager maps 1g, 2g, 3g and 7g profiles of
	 * the A100, H100, H200 and B200 and nothing else; any other value
	 * falls back to the whole GPU (bottlerocket-core-kit migmanager
	 * mig_profile.rs: the 7g variant is #[serde(other)]), so the pods
	 * would get 7g slices instead of the profile named */
	if (w->sharing == SHARE_MIG && w->mig_profile &&
	    !strncmp(w->mig_profile, "4g.", 3))
		diags_add(d, DIAG_ERROR, in->file, AT(w->sharing_pos),
			  "use a 1g, 2g, 3g or 7g profile of the GPU model "
			  "(e.g. 3g.40gb on a100.80gb or h100)",
			  "MIG profile '%s' is valid for the GPU but "
			  "Bottlerocket's MIG manager has no mapping for 4g "
			  "profiles and falls back to the whole GPU (7g): the "
			  "pods would get other slices than the intent names",
			  w->mig_profile);
	for (size_t i = 0; i < n; i++) {
		char feature[64], what[96];
		int seen = 0;

		for (size_t j = 0; j < ndone; j++)
			seen |= !strcmp(done[j], fams[i]->gpu);
		if (seen || ndone == VALIDATE_MAX_FAMILIES)
			continue;
		done[ndone++] = fams[i]->gpu;
		snprintf(feature, sizeof(feature), "gpu:%s", fams[i]->gpu);
		snprintf(what, sizeof(what), "GPU class '%s'", fams[i]->gpu);
		gate(in, cat, feature, what, w->gpu_pos, d);
	}
}

/* "cr-" and 17 lower-case hex digits: the form EC2 gives every Capacity
 * Reservation and Capacity Block (the CRD's own pattern, ^cr-[0-9a-z]+$,
 * is looser) */
static int is_reservation_id(const char *s)
{
	if (strncmp(s, "cr-", 3) || strlen(s) != 20)
		return 0;
	for (s += 3; *s; s++)
		if (!isdigit((unsigned char)*s) && !(*s >= 'a' && *s <= 'f'))
			return 0;
	return 1;
}

/* characters EC2 allows in tag keys and values: letters (UTF-8 included),
 * digits, spaces and + - = . _ : / @ */
static int is_tag_text(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n > max)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !((unsigned char)*s & 0x80) &&
		    !strchr(" +-=._:/@", *s))
			return 0;
	return 1;
}

/* an EC2 zone name as the topology.kubernetes.io/zone label carries it:
 * "us-east-1a" (region + letter), or a Local Zone "us-west-2-lax-1a";
 * lower-case letters, digits and '-', 2-letter area first */
int validate_zone_name(const char *s)
{
	size_t n = strlen(s), i = 0;
	int words = 0;

	if (n < 6 || n > 64 || s[n - 1] == '-' || strstr(s, "--"))
		return 0;
	for (size_t j = 0; j < n; j++)
		if (!islower((unsigned char)s[j]) &&
		    !isdigit((unsigned char)s[j]) && s[j] != '-')
			return 0;
	if (!islower((unsigned char)s[0]) || !islower((unsigned char)s[1]) ||
	    s[2] != '-')
		return 0;
	i = 3;
	/* area words ("east", "gov-west"), then the region number */
	while (i < n && islower((unsigned char)s[i])) {
		while (i < n && islower((unsigned char)s[i]))
			i++;
		if (i >= n || s[i] != '-')
			return 0;
		i++;
		words++;
	}
	if (!words || i >= n || !isdigit((unsigned char)s[i]))
		return 0;
	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	if (i == n)
		return 0; /* a region, not a zone */
	if (islower((unsigned char)s[i]) && i + 1 == n)
		return 1; /* us-east-1a */
	/* Local/Wavelength Zone: us-west-2-lax-1a */
	return s[i] == '-' && islower((unsigned char)s[n - 1]);
}

/* a zone ID ("use1-az1"): the label takes names, not IDs */
static int is_zone_id(const char *s)
{
	const char *az = strstr(s, "-az");

	if (!az || !az[3])
		return 0;
	for (az += 3; *az; az++)
		if (!isdigit((unsigned char)*az))
			return 0;
	return 1;
}

/* placement group name (EC2: up to 255 ASCII characters) or id (the
 * EC2NodeClass CRD's pattern ^pg-[0-9a-z]+$) */
static int pg_ok(const char *s)
{
	size_t n = strlen(s);

	if (!strncmp(s, "pg-", 3)) {
		if (n == 3)
			return 0;
		for (s += 3; *s; s++)
			if (!islower((unsigned char)*s) &&
			    !isdigit((unsigned char)*s))
				return 0;
		return 1;
	}
	if (n == 0 || n > 255)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return 0;
	return 1;
}

/* network.efaOnlyInterfaces: the static layout applies to every type of
 * the class, and Karpenter drops types with fewer network cards
 * (pkg/providers/instancetype/compatibility/compatibility.go), so all EFA
 * types a workload can launch must have the same, known number of cards.
 * Returns that number, or 0 after an error. */
int validate_efa_cards(const struct workload *w, const struct catalog *cat,
		       struct buf *why)
{
	const struct cat_family *fams[VALIDATE_MAX_FAMILIES];
	struct buf tmp = BUF_INIT;
	int n = validate_families(w, cat, fams, &tmp), cards = 0;
	const char *first = NULL;

	buf_release(&tmp);
	for (int f = 0; f < n; f++) {
		const struct cat_type *t;
		size_t nt = catalog_types_of(cat, fams[f]->name, &t);
		for (size_t j = 0; j < nt; j++) {
			if (t[j].gpus < w->gpus_per_pod || !t[j].efa)
				continue;
			if (t[j].cards < 2 || t[j].card0_ifaces < 2) {
				buf_addf(why, "%s has %s network card", t[j].name,
					 t[j].cards ? "one" : "no known");
				return 0;
			}
			if (cards && t[j].cards != cards) {
				buf_addf(why, "%s has %d network cards and %s "
					      "has %d", first, cards, t[j].name,
					 t[j].cards);
				return 0;
			}
			cards = t[j].cards;
			first = t[j].name;
		}
	}
	if (!cards)
		buf_adds(why, "no EFA instance type");
	return cards;
}

static void check_placement(const struct intent *in,
			    const struct workload *w, struct diags *d)
{
	const char *f = in->file;

	if (w->topology)
		diags_add(d, DIAG_ERROR, f, AT(w->topology_pos),
			  "remove 'topology'; pin the gang with 'zone' and "
			  "'placementGroup' (docs/placement-and-resilience.md)",
			  "Kueue topology-aware scheduling cannot place gangs "
			  "on Karpenter nodes: it admits a workload only into "
			  "capacity of Ready nodes that already exist "
			  "(kueue v0.19.2 topology_aware_scheduling.md, "
			  "'Capacity calculation'), while Karpenter launches "
			  "nodes only for pods of admitted workloads, and "
			  "Kueue's autoscaler hook (ProvisioningRequest) is "
			  "not implemented by Karpenter (kueue#5133)");
	for (size_t i = 0; i < w->nzones; i++) {
		if (validate_zone_name(w->zones[i]))
			continue;
		diags_add(d, DIAG_ERROR, f, AT(w->zone_item_pos[i]),
			  is_zone_id(w->zones[i])
				  ? "use the zone name (e.g. us-east-1a) that "
				    "the zone ID maps to in your account: "
				    "aws ec2 describe-availability-zones"
				  : "write a zone name such as us-east-1a",
			  "'%.60s' is not an availability zone name%s",
			  w->zones[i],
			  is_zone_id(w->zones[i])
				  ? " (it is a zone ID; the "
				    "topology.kubernetes.io/zone label holds "
				    "names)"
				  : "");
	}
	for (size_t i = 1; i < w->nzones; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(w->zones[i], w->zones[j]))
				diags_add(d, DIAG_ERROR, f,
					  AT(w->zone_item_pos[i]),
					  "list each zone once",
					  "zone '%.60s' is listed twice",
					  w->zones[i]);
	if (w->efa && w->gang > 1 && w->nzones > 1)
		diags_add(d, DIAG_ERROR, f, AT(w->zone_pos),
			  "name one zone: EFA traffic does not cross "
			  "availability zones",
			  "workload '%s' is an EFA gang of %ld pods on %zu "
			  "zones: Karpenter would launch its nodes in "
			  "whichever listed zone is cheapest per node, and "
			  "NCCL over EFA cannot connect pods in different "
			  "zones",
			  w->name, w->gang, w->nzones);
	if (w->pg) {
		if (!pg_ok(w->pg))
			diags_add(d, DIAG_ERROR, f, AT(w->pg_pos),
				  "write the placement group's name (up to "
				  "255 ASCII characters) or its id "
				  "(pg- and lower-case letters or digits)",
				  "'%.60s' is not a placement group name or "
				  "id",
				  w->pg);
		if (!w->efa)
			diags_add(d, DIAG_ERROR, f, AT(w->pg_pos),
				  "set 'efa: true' for a multi-node gang, or "
				  "remove 'placementGroup'",
				  "workload '%s' has a placement group but no "
				  "EFA: gpuform pins cluster placement groups "
				  "only for EFA gangs (a placement group "
				  "narrows where EC2 can find capacity)",
				  w->name);
		if (w->nzones != 1)
			diags_add(d, DIAG_ERROR, f, AT(w->pg_pos),
				  "add 'zone: <the zone of the placement "
				  "group>' next to it",
				  "workload '%s' has a placement group but %s: "
				  "a cluster placement group lives in one "
				  "zone and Karpenter does not restrict "
				  "launches to it (it resolves only the "
				  "group's id and strategy, "
				  "aws/karpenter-provider-aws "
				  "pkg/providers/placementgroup/types.go)",
				  w->name,
				  w->nzones ? "several zones" : "no zone");
	}
	/* an EFA gang without a zone: render.c gang_zone_affinity keeps
	 * each gang in one zone (a required self pod affinity Karpenter
	 * honours across NodeClaims), so there is nothing to warn about */
}

/*
 * workloads[].capacity: what the controller can do with the terms and
 * the fallback (docs/reserved-capacity.md). `up` holds the types the pool
 * may launch, for the gang-versus-block arithmetic.
 */
static void check_capacity(const struct intent *in, const struct workload *w,
			   const struct units_pool *up, struct diags *d)
{
	const char *f = in->file;
	long ppn = 0;

	if (!w->capacity)
		return;
	/* the CRD caps: 30 terms, 20 tags per term */
	if (w->ncap_terms > 30)
		diags_add(d, DIAG_ERROR, f, AT(w->cap_terms_pos),
			  "select them by a shared tag instead",
			  "%zu reservation terms: an EC2NodeClass takes at "
			  "most 30", w->ncap_terms);
	for (size_t i = 0; i < w->ncap_terms; i++) {
		const struct cap_term *t = &w->cap_terms[i];

		if (t->id && !is_reservation_id(t->id))
			diags_add(d, DIAG_ERROR, f, AT(t->id_pos),
				  "a Capacity Reservation or Capacity Block id "
				  "looks like cr-0123456789abcdef0 ('cr-' and "
				  "17 hex digits)",
				  "'%.60s' is not a capacity reservation id",
				  t->id);
		for (size_t j = 0; t->id && j < i; j++)
			if (w->cap_terms[j].id &&
			    !strcmp(w->cap_terms[j].id, t->id)) {
				diags_add(d, DIAG_ERROR, f, AT(t->id_pos),
					  "list each reservation once",
					  "reservation '%s' is listed twice "
					  "(first at line %d)",
					  t->id, w->cap_terms[j].id_pos.line);
				break;
			}
		if (t->owner_id &&
		    (strlen(t->owner_id) != 12 ||
		     t->owner_id[strspn(t->owner_id, "0123456789")]))
			diags_add(d, DIAG_ERROR, f, AT(t->owner_pos),
				  "ownerID is the 12-digit AWS account id that "
				  "owns the reservations (shared ones)",
				  "'%.60s' is not an AWS account id",
				  t->owner_id);
		if (t->ntags > 20)
			diags_add(d, DIAG_ERROR, f, AT(t->tags_pos),
				  "use fewer tags, or several terms",
				  "%zu tags in one term: Karpenter takes at "
				  "most 20", t->ntags);
		for (size_t j = 0; j < t->ntags; j++) {
			if (!is_tag_text(t->tag_keys[j], 128))
				diags_add(d, DIAG_ERROR, f, AT(t->tag_pos[j]),
					  "tag keys are 1 to 128 letters, digits, "
					  "spaces and + - = . _ : / @",
					  "tag key '%.60s' is not an AWS tag key",
					  t->tag_keys[j]);
			/* '*' selects any value (Karpenter: tag-key filter) */
			else if (strcmp(t->tag_values[j], "*") &&
				 !is_tag_text(t->tag_values[j], 256))
				diags_add(d, DIAG_ERROR, f, AT(t->tag_pos[j]),
					  "tag values are 1 to 256 letters, "
					  "digits, spaces and + - = . _ : / @, or "
					  "'*' for any value",
					  "tag '%.60s' has value '%.60s', which is "
					  "not an AWS tag value",
					  t->tag_keys[j], t->tag_values[j]);
		}
	}
	if (w->cap_fallback == CAPF_SPOT && !interruption_spot(w->interruption))
		diags_add(d, DIAG_ERROR, f, AT(w->cap_fallback_pos),
			  "use 'whenExhausted: on-demand' or 'wait', or "
			  "declare an interruption class that takes spot "
			  "reclaims (checkpointed, tolerant)",
			  "whenExhausted: spot on an 'interruption: %s' "
			  "workload: EC2 reclaims spot nodes at any hour",
			  wl_interruption_names[w->interruption]);
	/* Karpenter deletes a Capacity Block's nodes 40 minutes before its
	 * end, whatever the budgets (aws/karpenter-provider-aws v1.14.1
	 * pkg/controllers/capacityreservation/expiration/controller.go) */
	if (w->cap_type == CAP_BLOCK && w->interruption == INT_NONE)
		diags_add(d, DIAG_ERROR, f,
			  AT(w->interruption_pos.line ? w->interruption_pos
						      : w->cap_type_pos),
			  "declare 'interruption: checkpointed' and save "
			  "checkpoints before the block ends",
			  "a Capacity Block ends at its end date: Karpenter "
			  "drains its nodes 40 minutes before and EC2 reclaims "
			  "them 30 minutes before, so 'interruption: none' "
			  "cannot hold");
	if (w->cap_type == CAP_BLOCK && w->cap_fallback != CAPF_WAIT)
		diags_add_rule(d, DIAG_WARNING, INTENT_RULE_BLOCK_FALLBACK, f,
			       AT(w->cap_fallback_pos),
			  "use 'whenExhausted: wait' if the gang should run "
			  "only on the block",
			  "Karpenter sees a Capacity Block only once it is "
			  "active: before the block starts (and after it "
			  "ends) this pool launches %s nodes",
			  cap_fallback_names[w->cap_fallback]);
	/* how many instances the gang needs, at the most pods per node */
	for (size_t i = 0; i < up->ntypes; i++)
		if (up->cap[i] / w->gpus_per_pod > ppn)
			ppn = up->cap[i] / w->gpus_per_pod;
	if (w->cap_instances && ppn > 0 &&
	    (w->cap_type == CAP_BLOCK || w->cap_fallback == CAPF_WAIT)) {
		long need = (w->gang + ppn - 1) / ppn;
		if (w->cap_instances < need)
			diags_add(d, DIAG_ERROR, f, AT(w->cap_instances_pos),
				  "shrink the gang, or reserve a larger block",
				  "a gang of %ld pods x %ld GPUs needs at least "
				  "%ld instance%s, but the %s holds %ld: the "
				  "gang never starts on it",
				  w->gang, w->gpus_per_pod, need,
				  need == 1 ? "" : "s",
				  w->cap_type == CAP_BLOCK
					  ? "Capacity Block"
					  : "reservation",
				  w->cap_instances);
	}
}

/* the workload's name and namespace (duplicates: check_duplicate_names) */
static void check_workload_names(const struct intent *in,
				 const struct workload *w, struct diags *d)
{
	const char *f = in->file;

	if (w->name && !validate_dns_label(w->name, 50))
		diags_add(d, DIAG_ERROR, f, AT(w->name_pos),
			  "use lower-case letters, digits and '-', at most 50 "
			  "characters, starting and ending with a letter or digit",
			  "workload name '%.60s' is not a valid DNS label",
			  w->name);
	if (w->name && in->general && !strcmp(w->name, "general"))
		diags_add(d, DIAG_ERROR, f, AT(w->name_pos),
			  "rename the workload",
			  "workload name 'general' is taken by the "
			  "general-purpose NodePool");
	/* duplicate names are found once for all workloads, in
	 * check_duplicate_names() */
	if (w->ns && !w->ns_defaulted && !validate_dns_label(w->ns, 63))
		diags_add(d, DIAG_ERROR, f, AT(w->ns_pos),
			  "use lower-case letters, digits and '-', at most 63 "
			  "characters",
			  "namespace '%.60s' is not a valid DNS label", w->ns);
	else if (w->ns && (!strcmp(w->ns, "kube-system") ||
			   !strcmp(w->ns, "kube-public") ||
			   !strcmp(w->ns, "kube-node-lease")))
		diags_add(d, DIAG_ERROR, f, AT(w->ns_pos),
			  "choose a namespace for the workload's own jobs",
			  "namespace '%s' is reserved for the system", w->ns);
}

/* GPU sharing: time-slicing one GPU per pod and bounded ranges, MIG not
 * on AL2023 */
static void check_workload_sharing(const struct intent *in,
				   const struct workload *w, struct diags *d)
{
	const char *f = in->file;

	if (w->sharing == SHARE_TIMESLICING && w->gpus_per_pod > 1)
		diags_add(d, DIAG_ERROR, f, AT(w->gpus_per_pod_pos),
			  "use gpusPerPod: 1 with timeSlicing, or sharing: none",
			  "time-sliced GPUs are requested one per pod "
			  "(failRequestsGreaterThanOne), but gpusPerPod is %ld",
			  w->gpus_per_pod);

	if (w->sharing == SHARE_MIG && in->ami_family == AMI_AL2023)
		diags_add(d, DIAG_ERROR, f, AT(w->sharing_pos),
			  "use ami: bottlerocket@v1.34.0 or later, whose NVIDIA "
			  "variant partitions the GPUs at boot; or use "
			  "whole GPUs or timeSlicing on AL2023",
			  "MIG on AL2023 needs the NVIDIA GPU Operator's MIG "
			  "manager to partition the GPUs, which gpuform does "
			  "not install or configure: pods would get whole GPUs "
			  "and the quota would count slices that do not exist");
	for (size_t i = 0; w->sharing == SHARE_TIMESLICING && i < w->ngpu;
	     i++) {
		size_t len = strlen(w->gpu[i]);
		if (len > 1 && w->gpu[i][len - 1] == '+')
			diags_add(d, DIAG_ERROR, f, AT(w->gpu_item_pos[i]),
				  "bound the range, e.g. 'l4..l40s'",
				  "'%.40s' is open-ended: with time-slicing it "
				  "would put shared, unisolated GPUs on the "
				  "largest classes too (h100, b200) when they "
				  "are what spot offers",
				  w->gpu[i]);
	}
}

/*
 * hugepages2Mi: the pods request 2 MiB pages, which only a node that
 * reserves them has, and only the hugepages NodeOverlay tells Karpenter
 * about (render_hugepages_overlays): Bottlerocket reserves 110 x vCPUs pages
 * on EFA nodes, AL2023 none (docs/kueue-and-disruption.md). Every type of
 * the pool must hold its pods' pages: Karpenter leaves out a type whose
 * overlay capacity is too small, kube-scheduler would not place the pods.
 */
static void check_hugepages(const struct intent *in, const struct workload *w,
			    const struct units_pool *up, struct diags *d)
{
	const char *f = in->file;
	char *hint;

	if (!w->hugepages_mi)
		return;
	if (!w->efa || in->ami_family != AMI_BOTTLEROCKET) {
		diags_add(d, DIAG_ERROR, f, AT(w->hugepages_pos),
			  !w->efa ? "set 'efa: true', or drop hugepages2Mi"
				  : "use ami: bottlerocket@..., or drop "
				    "hugepages2Mi (libfabric falls back to "
				    "regular pages)",
			  "workload '%s' requests hugepages2Mi, but %s: its "
			  "pods would never get a node",
			  w->name,
			  !w->efa ? "only EFA nodes reserve 2 MiB pages "
				    "(Bottlerocket: 110 per vCPU)"
				  : "AL2023 nodes reserve no hugepages");
		return;
	}
	for (size_t i = 0; up && i < up->ntypes; i++) {
		long ppn = up->cap[i] / w->gpus_per_pod;
		long share = ppn > 0 ? UNITS_BR_EFA_HUGEPAGES_MI(up->types[i]) / ppn
				     : 0;

		if (ppn <= 0 || w->hugepages_mi <= share)
			continue;
		hint = xasprintf("request at most %ldMi per pod (%s), or "
				 "fewer pods per node (gpusPerPod)",
				 share - share % 2, up->types[i]->name);
		diags_add(d, DIAG_ERROR, f, AT(w->hugepages_pos), hint,
			  "workload '%s' requests hugepages2Mi: %ldMi per pod, "
			  "but %s reserves %ldMi (110 pages of 2 MiB per vCPU) "
			  "for its %ld pod%s: Karpenter finds no room for "
			  "them",
			  w->name, w->hugepages_mi, up->types[i]->name,
			  UNITS_BR_EFA_HUGEPAGES_MI(up->types[i]), ppn,
			  ppn == 1 ? "" : "s");
		free(hint);
		return;
	}
}

static void check_workload(const struct intent *in, size_t idx,
			   const struct catalog *cat, int capacity,
			   struct diags *d)
{
	const struct workload *w = &in->workloads[idx];
	const char *f = in->file;
	const struct cat_family *fams[VALIDATE_MAX_FAMILIES];
	struct buf why = BUF_INIT;
	int n;

	check_workload_names(in, w, d);
	if (!w->ok)
		return;

	check_workload_sharing(in, w, d);

	/* an unknown class is reported at the list item that names it */
	for (size_t i = 0; i < w->ngpu; i++) {
		struct workload one = *w;
		char *g = w->gpu[i];
		one.gpu = &g;
		one.ngpu = 1;
		if (validate_families(&one, cat, fams, &why) < 0) {
			diags_add(d, DIAG_ERROR, f, AT(w->gpu_item_pos[i]),
				  GPU_SPEC_HINT,
				  "%s", buf_cstr(&why));
			buf_release(&why);
			return;
		}
		buf_reset(&why);
	}
	n = validate_families(w, cat, fams, &why);
	if (n <= 0) {
		struct pos p = w->gpu_pos;
		const char *hint = "choose a GPU class that offers it, or "
				   "change the request";
		if (n == 0 && w->efa && strstr(buf_cstr(&why), "EFA"))
			p = w->efa_pos;
		else if (n == 0 && w->sharing == SHARE_MIG) {
			p = w->sharing_pos;
			if (strstr(buf_cstr(&why), "name one GPU model"))
				hint = "e.g. gpu: a100.80gb with mig: 1g.10gb, "
				       "or gpu: a100.40gb with mig: 1g.5gb";
		}
		else if (n == 0 && strstr(buf_cstr(&why), "GPUs"))
			p = w->gpus_per_pod_pos.line ? w->gpus_per_pod_pos
						     : w->gpu_pos;
		if (n < 0)
			hint = GPU_SPEC_HINT;
		diags_add(d, DIAG_ERROR, f, AT(p), hint, "%s", buf_cstr(&why));
		buf_release(&why);
		return;
	}
	buf_release(&why);

	check_release(in, w, fams, (size_t)n, cat, d);
	{
		/* the capacity findings (gang, quota, pod density) come from
		 * the one capacity model `gpuform plan` prints (capacity.h);
		 * plan reports them itself, with the plan */
		struct capacity c;

		capacity_build(&c, in, w, fams, (size_t)n, cat, NULL, NULL);
		if (capacity)
			capacity_report(in, &c, d);
		if (!c.ntypes) {
			check_hugepages(in, w, NULL, d);
			return;
		}
		check_capacity(in, w, &c.up, d);
		check_hugepages(in, w, &c.up, d);
	}
	check_placement(in, w, d);
	if (in->efa_only && w->efa) {
		struct buf cards_why = BUF_INIT;
		if (!validate_efa_cards(w, cat, &cards_why))
			diags_add(d, DIAG_ERROR, f, AT(w->efa_pos),
				  "narrow the workload to types with the same "
				  "network cards (e.g. one family, gpusPerPod "
				  "= all GPUs of the type), or set "
				  "spec.network.efaOnlyInterfaces: false",
				  "workload '%s': efaOnlyInterfaces needs every "
				  "EFA instance type it can launch to have the "
				  "same number (> 1) of network cards, but %s: "
				  "Karpenter applies one static interface "
				  "layout to every type of the EC2NodeClass",
				  w->name, buf_cstr(&cards_why));
		buf_release(&cards_why);
	}
	if (w->efa && !in->efa_sg && !in->network_unknown_keys)
		diags_add(d, DIAG_ERROR, f, AT(w->efa_pos),
			  "set spec.network.efaSecurityGroup to a security "
			  "group that allows all traffic to and from itself",
			  "workload '%s' uses EFA but no EFA security group is "
			  "set",
			  w->name);
	/* without a window, what the class allows only inside it never
	 * happens (generator/interruption.h) */
	if (interruption_allows(w->interruption, DR_DRIFTED) == DW_IN_WINDOW &&
	    !in->window)
		diags_add_rule(d, DIAG_WARNING, INTENT_RULE_NO_WINDOW, f,
			       AT(w->name_pos),
			  "add spec.maintenanceWindow so AMI bumps can roll "
			  "out inside it",
			  "workload '%s' is 'interruption: %s' and there is "
			  "no maintenance window: drifted nodes (e.g. after an "
			  "AMI bump) and underutilized nodes are never replaced "
			  "automatically",
			  w->name, wl_interruption_names[w->interruption]);
}

static int by_name(const void *a, const void *b)
{
	const struct workload *x = *(const struct workload *const *)a;
	const struct workload *y = *(const struct workload *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->name_pos.line != y->name_pos.line
		       ? (x->name_pos.line < y->name_pos.line ? -1 : 1)
		       : (x->name_pos.col < y->name_pos.col ? -1 : 1);
}

static void check_duplicate_names(const struct intent *in, struct diags *d)
{
	const struct workload **v = xcalloc(in->nworkloads + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < in->nworkloads; i++)
		if (in->workloads[i].name)
			v[n++] = &in->workloads[i];
	qsort(v, n, sizeof(*v), by_name);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(v[i]->name, v[i - 1]->name)) {
			size_t first = i - 1;
			while (first > 0 && !strcmp(v[first - 1]->name, v[i]->name))
				first--;
			diags_add(d, DIAG_ERROR, in->file, AT(v[i]->name_pos),
				  "give each workload its own name",
				  "duplicate workload name '%s' (first at "
				  "line %d)",
				  v[i]->name, v[first]->name_pos.line);
		}
	free(v);
}

size_t validate_intent(const struct intent *in, const struct catalog *cat,
		       struct diags *d)
{
	return validate_intent_opts(in, cat, 1, d);
}

/* spec.nodeRole or spec.instanceProfile: exactly one, a valid IAM name */
static void check_role(const struct intent *in, struct diags *d)
{
	const char *f = in->file;

	if (in->node_role && in->instance_profile)
		diags_add(d, DIAG_ERROR, f, AT(in->role_pos),
			  "keep one: Karpenter takes either a role or a "
			  "pre-made instance profile",
			  "both 'nodeRole' and 'instanceProfile' are set");
	else if (!in->node_role && !in->instance_profile && !in->role_present)
		diags_add(d, DIAG_ERROR, f,
			  AT(in->spec_pos.line ? in->spec_pos : in->pos),
			  "add 'nodeRole: KarpenterNodeRole-<cluster>' under spec",
			  "missing 'spec.nodeRole' (or 'spec.instanceProfile')");
	else if (in->node_role && !matches_charset(in->node_role, "+=,.@_-", 64))
		diags_add(d, DIAG_ERROR, f, AT(in->role_pos),
			  "IAM role names use letters, digits and +=,.@_- "
			  "(max 64)",
			  "'%.60s' is not a valid IAM role name", in->node_role);
	else if (in->instance_profile &&
		 !matches_charset(in->instance_profile, "+=,.@_-", 128))
		diags_add(d, DIAG_ERROR, f, AT(in->role_pos),
			  "instance profile names use letters, digits and "
			  "+=,.@_- (max 128)",
			  "'%.60s' is not a valid instance profile name",
			  in->instance_profile);
}

/* spec.imageCache: Bottlerocket only, the snapshot id, the size, how the
 * volume is initialized */
static void check_image_cache(const struct intent *in, struct diags *d)
{
	const char *f = in->file;

	if (!in->image_cache)
		return;
	if (in->ami_family == AMI_AL2023)
		diags_add(d, DIAG_ERROR, f, AT(in->cache_pos),
			  "use a Bottlerocket AMI, or remove "
			  "imageCache (consider SOCI on AL2023)",
			  "imageCache needs Bottlerocket: its data "
			  "volume /dev/xvdb is what the snapshot seeds");
	if (in->snapshot_id && !is_aws_id(in->snapshot_id, "snap"))
		diags_add(d, DIAG_ERROR, f, AT(in->snapshot_pos),
			  "an EBS snapshot id looks like "
			  "snap-0123456789abcdef0",
			  "'%.60s' is not an EBS snapshot id", in->snapshot_id);
	if (in->cache_size) {
		long long gib = intent_parse_gib(in->cache_size);
		if (gib < 0)
			diags_add(d, DIAG_ERROR, f, AT(in->cache_size_pos),
				  "write a size like 200Gi or 1Ti",
				  "'%.40s' is not a disk size", in->cache_size);
		else if (gib < 20 || gib > 16384)
			diags_add(d, DIAG_ERROR, f, AT(in->cache_size_pos),
				  "gp3 volumes here are 20Gi to 16Ti",
				  "imageCache size %lldGi is out of "
				  "range",
				  gib);
	}
	/* EC2 CreateVolume: with a rate, a snapshot enabled for
	 * fast snapshot restore is initialized at the rate instead */
	if (in->cache_init_rate && in->cache_fsr)
		diags_add(d, DIAG_ERROR, f, AT(in->cache_init_rate_pos),
			  "remove 'initializationRate' (or set "
			  "'fastSnapshotRestore: false')",
			  "imageCache has both 'initializationRate' and "
			  "'fastSnapshotRestore: true': EC2 initializes "
			  "a volume at the given rate instead of by fast "
			  "snapshot restore when both apply");
}

/* a cluster placement group is in one zone: the workloads sharing it
 * must name the same one */
static void check_placement_groups(const struct intent *in, struct diags *d)
{
	const char *f = in->file;

	for (size_t i = 0; i < in->nworkloads; i++)
		for (size_t j = 0; j < i; j++) {
			const struct workload *a = &in->workloads[j];
			const struct workload *b = &in->workloads[i];
			if (!a->pg || !b->pg || strcmp(a->pg, b->pg) ||
			    a->nzones != 1 || b->nzones != 1 ||
			    !strcmp(a->zones[0], b->zones[0]))
				continue;
			diags_add(d, DIAG_ERROR, f, AT(b->zone_item_pos[0]),
				  "use the group's zone for both, or another "
				  "placement group",
				  "workload '%s' puts placement group '%.60s' in "
				  "zone '%s', but workload '%s' (line %d) puts "
				  "it in '%s': a cluster placement group is in "
				  "one zone",
				  b->name, b->pg, b->zones[0], a->name,
				  a->pos.line, a->zones[0]);
			break;
		}
}

static void check_acknowledge(const struct intent *in, struct diags *d);

size_t validate_intent_opts(const struct intent *in, const struct catalog *cat,
			    int capacity, struct diags *d)
{
	size_t before = d->errors;
	const char *f = in->file;
	int any_efa = 0;

	if (in->name && !validate_dns_label(in->name, 63))
		diags_add(d, DIAG_ERROR, f, AT(in->name_pos),
			  "use the EKS cluster name: lower-case letters, digits "
			  "and '-', at most 63 characters",
			  "cluster name '%.60s' is not a valid DNS label",
			  in->name);
	if (in->spec_missing) /* said once; every spec rule would repeat it */
		return d->errors - before;
	check_role(in, d);
	check_ami(in, d);
	check_acknowledge(in, d);
	if (in->discovery &&
	    !matches_charset(in->discovery, "+=,.@_-:/ ", 256))
		diags_add(d, DIAG_ERROR, f, AT(in->discovery_pos),
			  "use the value of the karpenter.sh/discovery tag on "
			  "your subnets and security groups",
			  "discovery tag '%.60s' has characters AWS tags do not "
			  "allow",
			  in->discovery);
	if (in->efa_only && !in->prefix_delegation)
		diags_add(d, DIAG_ERROR, f, AT(in->efa_only_pos),
			  "keep network.prefixDelegation on with "
			  "efaOnlyInterfaces",
			  "efaOnlyInterfaces takes a network interface of card 0 "
			  "(an efa-only interface at device index 1), which "
			  "lowers Karpenter's ENI-limited max pods "
			  "(pkg/providers/instancetype/types.go ENILimitedPods); "
			  "gpuform sizes pools for it only with prefix "
			  "delegation");
	check_image_cache(in, d);
	if (in->dp_ns && !in->dp_ns_defaulted) {
		if (!validate_dns_label(in->dp_ns, 63))
			diags_add(d, DIAG_ERROR, f, AT(in->dp_ns_pos),
				  "use the namespace the nvidia-device-plugin "
				  "Helm release is installed in",
				  "namespace '%.60s' is not a valid DNS label",
				  in->dp_ns);
		else if (in->ami_family == AMI_BOTTLEROCKET)
			diags_add_rule(d, DIAG_WARNING, INTENT_RULE_DP_NS_IGNORED,
				       f, AT(in->dp_ns_pos),
				  "remove it: Bottlerocket's NVIDIA variant has "
				  "the plugin built in and is configured through "
				  "userData",
				  "nvidiaDevicePlugin.namespace has no effect on "
				  "Bottlerocket");
	}
	if (in->efa_sg && !is_aws_id(in->efa_sg, "sg"))
		diags_add(d, DIAG_ERROR, f, AT(in->efa_sg_pos),
			  "a security group id looks like sg-0123456789abcdef0",
			  "'%.60s' is not a security group id", in->efa_sg);
	if (in->window && in->window_schedule && in->window_duration) {
		struct window w;
		struct buf why = BUF_INIT;
		if (window_parse(&w, in->window_schedule, in->window_duration,
				 &why) < 0)
			diags_add(d, DIAG_ERROR, f,
				  AT(strstr(buf_cstr(&why), "duration")
					     ? in->window_duration_pos
					     : in->window_schedule_pos),
				  "example: {schedule: \"0 2 * * sat\", "
				  "duration: 4h} (times are UTC)",
				  "maintenance window: %s", buf_cstr(&why));
		buf_release(&why);
	}
	if (!in->nworkloads && !in->general && !in->workloads_malformed)
		diags_add(d, DIAG_ERROR, f,
			  AT(in->workloads_pos.line ? in->workloads_pos
			     : in->spec_pos.line    ? in->spec_pos
						    : in->pos),
			  "add a workload under spec.workloads",
			  "the intent has no workloads and no general-purpose "
			  "pool: nothing to render");
	check_duplicate_names(in, d);
	check_placement_groups(in, d);
	for (size_t i = 0; i < in->nworkloads; i++) {
		check_workload(in, i, cat, capacity, d);
		any_efa |= in->workloads[i].efa;
	}
	if (in->efa_sg && !any_efa)
		diags_add_rule(d, DIAG_WARNING, INTENT_RULE_EFA_SG_UNUSED, f,
			       AT(in->efa_sg_pos),
			  "remove it, or set 'efa: true' on the workloads that "
			  "need it",
			  "efaSecurityGroup is set but no workload uses EFA");
	return d->errors - before;
}

/* ---- spec.acknowledge ----------------------------------------------------- */

/* the rule an acknowledgement names: an intent rule (INT...), by id or
 * name; NULL if it names none */
static const struct lint_rule *ack_rule(const struct intent_ack *a)
{
	const struct lint_rule *r = lint_rule_find(a->rule);

	return r && !strncmp(r->id, "INT", 3) ? r : NULL;
}

static const struct workload *find_workload(const struct intent *in,
					    const char *name, size_t *idx)
{
	for (size_t i = 0; i < in->nworkloads; i++)
		if (in->workloads[i].name && !strcmp(in->workloads[i].name, name)) {
			if (idx)
				*idx = i;
			return &in->workloads[i];
		}
	return NULL;
}

static void check_acknowledge(const struct intent *in, struct diags *d)
{
	const char *f = in->file;

	for (size_t i = 0; i < in->nacks; i++) {
		const struct intent_ack *a = &in->acks[i];
		const struct lint_rule *r = lint_rule_find(a->rule);

		if (!r)
			diags_add(d, DIAG_ERROR, f, AT(a->rule_pos),
				  "use the id in brackets after the warning, "
				  "e.g. 'rule: INT003'; 'gpuform explain' lists "
				  "the rules (INT001... are the intent's)",
				  "unknown rule '%.40s'", a->rule);
		else if (strncmp(r->id, "INT", 3))
			diags_add(d, DIAG_ERROR, f, AT(a->rule_pos),
				  "acknowledge the intent's own warnings "
				  "(INT001...); lint rules are about manifests",
				  "rule '%.40s' (%s) is a lint rule, not an "
				  "intent warning", a->rule, r->id);
		if (a->workload && !find_workload(in, a->workload, NULL)) {
			struct buf names = BUF_INIT;
			for (size_t j = 0; j < in->nworkloads; j++)
				if (in->workloads[j].name)
					buf_addf(&names, "%s'%s'", j ? ", " : "",
						 in->workloads[j].name);
			char *hint = xasprintf("name one of the workloads: %s",
					       names.len ? buf_cstr(&names)
							 : "(none)");
			diags_add(d, DIAG_ERROR, f, AT(a->workload_pos), hint,
				  "the intent has no workload '%.60s'",
				  a->workload);
			free(hint);
			buf_release(&names);
		}
	}
}

void validate_acknowledge(const struct intent *in, struct diags *d,
			  size_t from, int report_unused)
{
	char *used;

	if (!in->nacks)
		return;
	used = xcalloc(in->nacks, 1);
	for (size_t i = from; i < d->nr;) {
		const struct diag *g = &d->items[i];
		int drop = 0;

		for (size_t k = 0; g->sev == DIAG_WARNING && g->rule_id &&
				   k < in->nacks && !drop; k++) {
			const struct intent_ack *a = &in->acks[k];
			const struct lint_rule *r = ack_rule(a);
			size_t wi;

			if (!r || strcmp(r->id, g->rule_id))
				continue;
			if (a->workload) {
				int lo, hi;
				if (!find_workload(in, a->workload, &wi))
					continue;
				lo = in->workloads[wi].pos.line;
				hi = wi + 1 < in->nworkloads
					     ? in->workloads[wi + 1].pos.line
					     : INT_MAX;
				if (g->line < lo || g->line >= hi)
					continue;
			}
			drop = 1;
			used[k] = 1;
		}
		if (drop)
			diags_drop(d, i);
		else
			i++;
	}
	for (size_t k = 0; report_unused && k < in->nacks; k++) {
		const struct intent_ack *a = &in->acks[k];
		if (used[k] || !ack_rule(a))
			continue;
		diags_add_rule(d, DIAG_WARNING, INTENT_RULE_ACK_UNUSED, in->file,
			       AT(a->pos),
			       "remove it: the warning it accepted is gone",
			       "acknowledgement of %s%s%s matches no warning",
			       ack_rule(a)->id, a->workload ? " for " : "",
			       a->workload ? a->workload : "");
	}
	free(used);
}
