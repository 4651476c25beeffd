/*
 * tests/fuzz/fuzz_lint.c: `gpuform lint` on one input.
 *
 * The input is split at a line "#---#" into up to four files that are
 * linted together (so cross-document resolution — Jobs to pools, queues,
 * flavors, pod contracts, intents — is exercised), then lint_run() is
 * called again with the files in reverse order.
 *
 * Besides the sanitizers, this target aborts on broken contracts:
 *  - lint_run() failing with anything but ERR_INVALID, or with
 *    ERR_INVALID and no error diagnostic;
 *  - a finding without a rule, file or message, or with a severity out of
 *    range, or counts that do not add up;
 *  - findings that are not sorted, or that differ between the two orders.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/lint.h"
#include "util/diag.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEP "\n#---#\n"
#define MAXF 4

static void broken(const char *what)
{
	fprintf(stderr, "fuzz_lint: %s\n", what);
	abort();
}

static int run(struct lint_findings *f, const struct lint_input *in,
	       size_t n)
{
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	size_t sum = 0;
	int r = lint_run(f, in, n, NULL, &d, &err);

	if (r < 0 && (err.code != ERR_INVALID || d.errors == 0))
		broken("lint_run failed without an input error");
	for (size_t i = 0; i < f->nr; i++) {
		const struct lint_finding *x = &f->items[i];
		if (!x->rule || !x->file || !x->msg || x->sev > LINT_INFO)
			broken("malformed finding");
		if (i && strcmp(f->items[i - 1].file, x->file) > 0)
			broken("findings not sorted by file");
	}
	for (int s = 0; s < 3; s++)
		sum += f->counts[s];
	if (sum != f->nr)
		broken("counts do not add up");
	diags_release(&d);
	err_release(&err);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[MAXF] = { "a.yaml", "b.yaml", "c.yaml",
						 "d.yaml" };
	struct lint_input in[MAXF], rev[MAXF];
	struct lint_findings f1 = LINT_FINDINGS_INIT, f2 = LINT_FINDINGS_INIT;
	char *text = malloc(size + 1);
	char *p = text;
	size_t n = 0;
	int r1, r2;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	while (n < MAXF) {
		char *sep = n + 1 < MAXF ? strstr(p, SEP) : NULL;
		size_t len = sep ? (size_t)(sep - p)
				 : size - (size_t)(p - text);
		in[n].path = names[n];
		in[n].data = p;
		in[n].len = len;
		n++;
		if (!sep)
			break;
		p = sep + strlen(SEP);
	}
	for (size_t i = 0; i < n; i++)
		rev[i] = in[n - 1 - i];
	r1 = run(&f1, in, n);
	r2 = run(&f2, rev, n);
	if (r1 != r2 || f1.nr != f2.nr)
		broken("result depends on the order of the inputs");
	for (size_t i = 0; i < f1.nr; i++)
		if (strcmp(f1.items[i].msg, f2.items[i].msg) ||
		    f1.items[i].line != f2.items[i].line)
			broken("findings depend on the order of the inputs");
	lint_findings_release(&f1);
	lint_findings_release(&f2);
	free(text);
	return 0;
}
