/*
 * generator/sarif.c: SARIF 2.1.0 logs of findings (see sarif.h).
 */
#include "generator/sarif.h"

#include <string.h>

#include "util/buf.h"

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

const char *sarif_level(enum lint_severity s)
{
	return s == LINT_ERROR ? "error" : s == LINT_WARNING ? "warning"
							     : "note";
}

static cJSON *text_obj(const char *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "text", s);
	return o;
}

/* a relative URI reference: unreserved characters and '/' kept */
static void add_uri(struct buf *b, const char *path)
{
	const char *p = path;

	if (path[0] == '/')
		buf_adds(b, "file://");
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	for (; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr("-._~/", ch))
			buf_addc(b, (char)ch);
		else
			buf_addf(b, "%%%02X", ch);
	}
}

cJSON *sarif_log_new(const char *name, cJSON **rules, cJSON **results)
{
	cJSON *root = cJSON_CreateObject(), *runs, *run, *driver;

	cJSON_AddStringToObject(root, "$schema",
				"https://json.schemastore.org/sarif-2.1.0.json");
	cJSON_AddStringToObject(root, "version", "2.1.0");
	runs = cJSON_AddArrayToObject(root, "runs");
	run = cJSON_CreateObject();
	cJSON_AddItemToArray(runs, run);
	driver = cJSON_CreateObject();
	cJSON_AddItemToObject(cJSON_AddObjectToObject(run, "tool"), "driver",
			      driver);
	cJSON_AddStringToObject(driver, "name", name);
	cJSON_AddStringToObject(driver, "version", GPUFORM_VERSION);
	*rules = cJSON_AddArrayToObject(driver, "rules");
	*results = cJSON_AddArrayToObject(run, "results");
	return root;
}

void sarif_add_rule(cJSON *rules, const struct lint_rule *r, int full)
{
	cJSON *o = cJSON_CreateObject(), *cfg;

	cJSON_AddStringToObject(o, "id", r->id);
	cJSON_AddStringToObject(o, "name", r->name);
	cJSON_AddItemToObject(o, "shortDescription", text_obj(r->summary));
	if (full) {
		struct buf b = BUF_INIT;

		buf_addf(&b, "%s.\n\n%s", r->summary, r->explain);
		cJSON_AddItemToObject(o, "fullDescription",
				      text_obj(buf_cstr(&b)));
		buf_release(&b);
	}
	cJSON_AddItemToObject(o, "help", text_obj(r->explain));
	cfg = cJSON_AddObjectToObject(o, "defaultConfiguration");
	cJSON_AddStringToObject(cfg, "level", sarif_level(r->severity));
	cJSON_AddItemToArray(rules, o);
}

void sarif_add_result(cJSON *results, const struct lint_finding *x,
		      size_t rule_index)
{
	cJSON *o = cJSON_CreateObject(), *locs, *loc, *phys, *art, *reg;
	struct buf uri = BUF_INIT;

	cJSON_AddStringToObject(o, "ruleId", x->rule->id);
	cJSON_AddNumberToObject(o, "ruleIndex", (double)rule_index);
	cJSON_AddStringToObject(o, "level", sarif_level(x->sev));
	cJSON_AddItemToObject(o, "message", text_obj(x->msg));
	locs = cJSON_AddArrayToObject(o, "locations");
	loc = cJSON_CreateObject();
	cJSON_AddItemToArray(locs, loc);
	phys = cJSON_AddObjectToObject(loc, "physicalLocation");
	art = cJSON_AddObjectToObject(phys, "artifactLocation");
	add_uri(&uri, x->file);
	cJSON_AddStringToObject(art, "uri", buf_cstr(&uri));
	if (x->file[0] != '/')
		cJSON_AddStringToObject(art, "uriBaseId", "%SRCROOT%");
	if (x->line > 0) {
		reg = cJSON_AddObjectToObject(phys, "region");
		cJSON_AddNumberToObject(reg, "startLine", x->line);
		if (x->col > 0)
			cJSON_AddNumberToObject(reg, "startColumn", x->col);
	}
	cJSON_AddItemToArray(results, o);
	buf_release(&uri);
}

cJSON *finding_json(const struct lint_finding *x)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "file", x->file);
	cJSON_AddNumberToObject(o, "line", x->line);
	cJSON_AddNumberToObject(o, "column", x->col);
	cJSON_AddStringToObject(o, "severity", lint_severity_names[x->sev]);
	cJSON_AddStringToObject(o, "rule", x->rule->id);
	cJSON_AddStringToObject(o, "name", x->rule->name);
	cJSON_AddStringToObject(o, "message", x->msg);
	return o;
}

/* ---- gpuform lint's report ---------------------------------------------- */

/* the errors and warnings of intents (what `gpuform validate` and `render`
 * say) in JSON and SARIF, next to the rules' findings */
const struct lint_rule sarif_intent_rule = {
	"INTENT", "intent-validation", LINT_ERROR,
	"what 'gpuform validate' reports for an intent",
	"An intent's own errors and warnings, as 'gpuform validate' and "
	"'gpuform render' report them; 'gpuform validate FILE' shows the "
	"hints.\n",
};

char *sarif_lint_log(const struct lint_findings *f, const struct diags *d)
{
	cJSON *rules, *results, *root = sarif_log_new("gpuform", &rules, &results);
	char *s;

	for (size_t i = 0; i < lint_nrules; i++)
		sarif_add_rule(rules, &lint_rules[i], 1);
	sarif_add_rule(rules, &sarif_intent_rule, 1);
	for (size_t i = 0; i < f->nr; i++) {
		const struct lint_rule *r = f->items[i].rule;
		sarif_add_result(results, &f->items[i],
				 r == &sarif_intent_rule ? lint_nrules
						   : (size_t)(r - lint_rules));
	}
	for (size_t i = 0; i < d->nr; i++) {
		const struct diag *g = &d->items[i];
		const struct lint_rule *gr =
			g->rule_id ? lint_rule_find(g->rule_id) : NULL;
		struct lint_finding dx = { gr ? gr : &sarif_intent_rule,
					   g->sev == DIAG_ERROR ? LINT_ERROR
								: LINT_WARNING,
					   g->file, g->line, g->col, g->msg };
		sarif_add_result(results, &dx,
				 gr ? (size_t)(gr - lint_rules) : lint_nrules);
	}
	s = cJSON_Print(root);
	cJSON_Delete(root);
	return s;
}

char *sarif_lint_json(const struct lint_findings *f, const struct diags *d,
		      size_t nfiles)
{
	cJSON *root = cJSON_CreateObject(), *arr;
	char *s;

	cJSON_AddNumberToObject(root, "files", (double)nfiles);
	cJSON_AddNumberToObject(root, "errors",
				(double)(f->counts[LINT_ERROR] + d->errors));
	cJSON_AddNumberToObject(root, "warnings",
				(double)(f->counts[LINT_WARNING] + d->warnings));
	cJSON_AddNumberToObject(root, "info", (double)f->counts[LINT_INFO]);
	arr = cJSON_AddArrayToObject(root, "findings");
	for (size_t i = 0; i < f->nr; i++)
		cJSON_AddItemToArray(arr, finding_json(&f->items[i]));
	for (size_t i = 0; i < d->nr; i++) {
		const struct diag *g = &d->items[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "file", g->file);
		cJSON_AddNumberToObject(o, "line", g->line);
		cJSON_AddNumberToObject(o, "column", g->col);
		cJSON_AddStringToObject(o, "severity", g->sev == DIAG_ERROR
							       ? "error"
							       : "warning");
		cJSON_AddStringToObject(o, "rule", g->rule_id ? g->rule_id
							       : sarif_intent_rule.id);
		cJSON_AddStringToObject(o, "name", g->rule_id
							   ? g->rule_name
							   : sarif_intent_rule.name);
		cJSON_AddStringToObject(o, "message", g->msg);
		if (g->hint)
			cJSON_AddStringToObject(o, "hint", g->hint);
		cJSON_AddItemToArray(arr, o);
	}
	s = cJSON_Print(root);
	cJSON_Delete(root);
	return s;
}

void sarif_lint_text(struct buf *out, const struct lint_findings *f)
{
	for (size_t i = 0; i < f->nr; i++) {
		const struct lint_finding *x = &f->items[i];
		if (x->line > 0)
			buf_addf(out, "%s:%d:%d: ", x->file, x->line, x->col);
		else
			buf_addf(out, "%s: ", x->file);
		buf_addf(out, "%s: %s [%s %s]\n", lint_severity_names[x->sev],
			 x->msg, x->rule->id, x->rule->name);
	}
}
