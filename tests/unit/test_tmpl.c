/*
 * tests/unit/test_tmpl.c: Check suite for generator/tmpl.c — loading the
 * embedded templates and overriding them from a directory, substitution of
 * whole scalars (any JSON type; missing or null drops the entry), nested
 * lookups, interpolation inside text and its errors (with the template's
 * file:line:col), and that no context string can add structure to a
 * rendered document (render, emit, parse back, compare).
 *
 * The override cases write small templates into a mkdtemp directory under
 * /tmp, which the parent process removes after the test case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <check.h>

#include "generator/embedded.h"
#include "generator/tmpl.h"
#include "util/yaml.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* ---- helpers ------------------------------------------------------------ */

static char base_dir[256];
static char tdir[512];

static void base_setup(void)
{
	snprintf(base_dir, sizeof(base_dir), "/tmp/gpuform-tmpl-XXXXXX");
	if (!mkdtemp(base_dir)) {
		perror("mkdtemp");
		abort();
	}
}

static void base_teardown(void)
{
	struct err err = ERR_INIT;

	fs_remove_tree(base_dir, &err);
	err_release(&err);
}

static void dir_setup(void)
{
	snprintf(tdir, sizeof(tdir), "%s/t-XXXXXX", base_dir);
	ck_assert_ptr_nonnull(mkdtemp(tdir));
}

static void write_tmpl(const char *file, const char *content)
{
	char *path = xasprintf("%s/%s", tdir, file);
	FILE *f = fopen(path, "wb");

	ck_assert_msg(f != NULL, "cannot create %s", path);
	ck_assert_uint_eq(fwrite(content, 1, strlen(content), f),
			  strlen(content));
	ck_assert_int_eq(fclose(f), 0);
	free(path);
}

static struct tmpl_set *load(const char *dir)
{
	struct tmpl_set *set = NULL;
	struct err err = ERR_INIT;

	ck_assert_msg(tmpl_set_load(&set, dir, &err) == 0, "tmpl_set_load: %s",
		      err_msg(&err));
	ck_assert_ptr_nonnull(set);
	err_release(&err);
	return set;
}

/* a set whose "namespace" template is `text` */
static struct tmpl_set *load_with(const char *text)
{
	write_tmpl("namespace.yaml", text);
	return load(tdir);
}

static cJSON *render(const struct tmpl_set *set, const char *name,
		     const cJSON *ctx)
{
	struct err err = ERR_INIT;
	cJSON *out = NULL;

	ck_assert_msg(tmpl_render(&out, set, name, ctx, &err) == 0,
		      "tmpl_render(%s): %s", name, err_msg(&err));
	ck_assert_ptr_nonnull(out);
	err_release(&err);
	return out;
}

/* render must fail with code; returns the message (caller frees) */
static char *render_fails(const struct tmpl_set *set, const char *name,
			  const cJSON *ctx, enum err_code code)
{
	struct err err = ERR_INIT;
	cJSON *out = (cJSON *)1;

	ck_assert_int_eq(tmpl_render(&out, set, name, ctx, &err), -1);
	ck_assert_msg(err.code == code, "code %d: %s", (int)err.code,
		      err_msg(&err));
	ck_assert_ptr_null(out);
	return buf_detach(&err.msg, NULL);
}

static cJSON *parse_json(const char *text)
{
	cJSON *j = cJSON_Parse(text);

	ck_assert_msg(j != NULL, "bad JSON in test: %s", text);
	return j;
}

static void assert_json(const cJSON *got, const char *want_text)
{
	cJSON *want = parse_json(want_text);
	char *g = cJSON_PrintUnformatted(got);

	ck_assert_msg(cJSON_Compare(got, want, 1), "got %s, want %s", g,
		      want_text);
	free(g);
	cJSON_Delete(want);
}

/* the embedded template names, without "templates/" and ".yaml" */
static size_t embedded_names(char names[][64], size_t max)
{
	size_t n = 0;

	for (const struct embedded_file *e = embedded_files; e->path; e++) {
		const char *base;
		if (strncmp(e->path, "templates/", 10))
			continue;
		base = e->path + 10;
		ck_assert_uint_lt(n, max);
		snprintf(names[n], sizeof(names[0]), "%.*s",
			 (int)strcspn(base, "."), base);
		n++;
	}
	return n;
}

/* ---- loading ------------------------------------------------------------ */

START_TEST(test_load_embedded)
{
	struct tmpl_set *set = load(NULL);
	char names[64][64];
	size_t n = embedded_names(names, 64);
	cJSON *ctx = cJSON_CreateObject(), *doc;
	char *msg;

	/* every template of templates/ is there and renders */
	ck_assert_uint_ge(n, 16);
	for (size_t i = 0; i < n; i++) {
		doc = render(set, names[i], ctx);
		ck_assert_msg(cJSON_IsObject(doc), "%s is not a mapping",
			      names[i]);
		cJSON_Delete(doc);
	}
	/* with nothing in the context, every ${...} field vanishes */
	doc = render(set, "namespace", ctx);
	assert_json(doc, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
			 "\"metadata\":{}}");
	cJSON_Delete(doc);

	msg = render_fails(set, "no-such-template", ctx, ERR_INTERNAL);
	ck_assert_str_eq(msg, "no template named 'no-such-template'");
	free(msg);
	/* names are without the extension */
	msg = render_fails(set, "namespace.yaml", ctx, ERR_INTERNAL);
	free(msg);
	cJSON_Delete(ctx);
	tmpl_set_free(set);
	tmpl_set_free(NULL);
}
END_TEST

/*
 * Fixed bug (generator/tmpl.c, tmpl_names); the test guards the fix.
 * Before it: tmpl.h calls the template in
 * templates/<name>.yaml "name" and tmpl_render() takes that name
 * ("nodepool"), but tmpl_names() lists the file names with the extension
 * ("nodepool.yaml"), which tmpl_render() rejects with "no template named
 * 'clusterqueue.yaml'".
 */
START_TEST(test_tmpl_names_render)
{
	struct tmpl_set *set = load(NULL);
	const char *const *names = tmpl_names();
	char want[64][64];
	size_t n = embedded_names(want, 64), i;
	cJSON *ctx = cJSON_CreateObject();

	for (i = 0; names[i]; i++) {
		struct err err = ERR_INIT;
		cJSON *doc = NULL;
		ck_assert_msg(tmpl_render(&doc, set, names[i], ctx, &err) == 0,
			      "tmpl_names()[%zu] = '%s': %s", i, names[i],
			      err_msg(&err));
		cJSON_Delete(doc);
		err_release(&err);
	}
	ck_assert_uint_eq(i, n);
	for (i = 0; i < n; i++)
		ck_assert_str_eq(names[i], want[i]);
	cJSON_Delete(ctx);
	tmpl_set_free(set);
}
END_TEST

START_TEST(test_override_one_keeps_others)
{
	struct tmpl_set *set;
	cJSON *ctx = parse_json("{\"name\":\"x\"}"), *doc;

	write_tmpl("namespace.yaml", "kind: Custom\nname: ${name}\n");
	/* files that are no template are ignored */
	write_tmpl("unrelated.yaml", "a: [\n");
	write_tmpl("README", "not yaml: [\n");
	set = load(tdir);
	doc = render(set, "namespace", ctx);
	assert_json(doc, "{\"kind\":\"Custom\",\"name\":\"x\"}");
	cJSON_Delete(doc);
	/* the others are still the embedded ones */
	doc = render(set, "nodepool", ctx);
	ck_assert_str_eq(cJSON_GetObjectItem(doc, "kind")->valuestring,
			 "NodePool");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "metadata"),
					     "name")
				 ->valuestring,
			 "x");
	cJSON_Delete(doc);
	cJSON_Delete(ctx);
	tmpl_set_free(set);
}
END_TEST

START_TEST(test_load_failures)
{
	struct tmpl_set *set = (struct tmpl_set *)1;
	struct err err = ERR_INIT;
	char *missing = xasprintf("%s/does-not-exist", tdir);
	char *file = xasprintf("%s/namespace.yaml", tdir);

	ck_assert_int_eq(tmpl_set_load(&set, missing, &err), -1);
	ck_assert_ptr_null(set);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "does not exist"));
	ck_assert_ptr_nonnull(strstr(err_msg(&err), missing));
	err_release(&err);

	/* a file is not a directory */
	write_tmpl("namespace.yaml", "kind: X\n");
	ck_assert_int_eq(tmpl_set_load(&set, file, &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	err_release(&err);

	/* a template must be one YAML document */
	write_tmpl("namespace.yaml", "a: 1\n---\nb: 2\n");
	ck_assert_int_eq(tmpl_set_load(&set, tdir, &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "exactly one YAML document"));
	ck_assert_ptr_nonnull(strstr(err_msg(&err), file));
	err_release(&err);

	write_tmpl("namespace.yaml", "");
	ck_assert_int_eq(tmpl_set_load(&set, tdir, &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	err_release(&err);

	write_tmpl("namespace.yaml", "a: [1,\n");
	ck_assert_int_eq(tmpl_set_load(&set, tdir, &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "template 'namespace'"));
	ck_assert_ptr_null(set);
	err_release(&err);
	free(missing);
	free(file);
}
END_TEST

/* ---- substitution ------------------------------------------------------- */

START_TEST(test_whole_scalar_any_type)
{
	static const char *const values[] = {
		"\"text\"", "42", "2.5", "true", "false", "[1,\"a\",{\"b\":null}]",
		"{\"k\":{\"n\":[true]}}", "\"\"", "{}", "[]",
	};
	struct tmpl_set *set = load(NULL);

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char *ctx_text = xasprintf("{\"name\":%s,\"labels\":%s}",
					   values[i], values[i]);
		char *want = xasprintf("{\"apiVersion\":\"v1\",\"kind\":"
				       "\"Namespace\",\"metadata\":{\"name\":%s,"
				       "\"labels\":%s}}",
				       values[i], values[i]);
		cJSON *ctx = parse_json(ctx_text), *doc;

		doc = render(set, "namespace", ctx);
		/* a copy: the context can go first */
		cJSON_Delete(ctx);
		assert_json(doc, want);
		cJSON_Delete(doc);
		free(ctx_text);
		free(want);
	}
	tmpl_set_free(set);
}
END_TEST

START_TEST(test_missing_or_null_drops)
{
	struct tmpl_set *set;
	cJSON *ctx, *doc;

	set = load_with("kind: T\n"
			"a: ${x}\n"
			"b: ${nothing}\n"
			"c: ${nul}\n"
			"list:\n"
			"  - ${x}\n"
			"  - ${nothing}\n"
			"  - keep\n"
			"  - ${nul}\n"
			"  - ${x}\n"
			"nested:\n"
			"  only: ${nothing}\n"
			"maps:\n"
			"  - k: ${nothing}\n");
	ctx = parse_json("{\"x\":1,\"nul\":null}");
	doc = render(set, "namespace", ctx);
	/* a map whose only key vanished stays, empty */
	assert_json(doc, "{\"kind\":\"T\",\"a\":1,\"list\":[1,\"keep\",1],"
			 "\"nested\":{},\"maps\":[{}]}");
	cJSON_Delete(doc);
	cJSON_Delete(ctx);
	tmpl_set_free(set);
}
END_TEST

START_TEST(test_nested_lookup)
{
	struct tmpl_set *set;
	cJSON *ctx, *doc;

	set = load_with("kind: T\n"
			"ab: ${a.b}\n"
			"abc: ${a.b.c}\n"
			"deep: ${a.d.e}\n"
			"whole: ${a}\n"
			"notobj: ${s.x}\n"
			"missing: ${zz.b}\n");
	ctx = parse_json("{\"a\":{\"b\":\"B\",\"d\":{\"e\":[1]}},\"s\":\"str\"}");
	doc = render(set, "namespace", ctx);
	assert_json(doc, "{\"kind\":\"T\",\"ab\":\"B\",\"deep\":[1],"
			 "\"whole\":{\"b\":\"B\",\"d\":{\"e\":[1]}}}");
	cJSON_Delete(doc);
	cJSON_Delete(ctx);
	tmpl_set_free(set);
}
END_TEST

START_TEST(test_interpolation)
{
	struct tmpl_set *set;
	cJSON *ctx, *doc;

	set = load_with("kind: T\n"
			"text: pre-${s}-mid-${n}-post\n"
			"float: v${f}\n"
			"nested: \"${a.b}/${a.c}\"\n"
			"quoted: \"${n}\"\n"
			"two: ${s}${s}\n"
			"plain: '${not'\n"
			"int: 3\n"
			"str: '3'\n"
			"flag: true\n"
			"nul: ~\n");
	ctx = parse_json("{\"s\":\"S\",\"n\":3,\"f\":2.5,"
			 "\"a\":{\"b\":\"x\",\"c\":7}}");
	/* "plain: '${not'" has no closing brace */
	{
		char *msg = render_fails(set, "namespace", ctx, ERR_INVALID);
		ck_assert_ptr_nonnull(strstr(msg, "unterminated '${'"));
		free(msg);
	}
	tmpl_set_free(set);

	set = load_with("kind: T\n"
			"text: pre-${s}-mid-${n}-post\n"
			"float: v${f}\n"
			"nested: \"${a.b}/${a.c}\"\n"
			"quoted: \"${n}\"\n"
			"two: ${s}${s}\n"
			"int: 3\n"
			"str: '3'\n"
			"flag: true\n"
			"nul: ~\n"
			"dollar: $5 {x}\n");
	doc = render(set, "namespace", ctx);
	/* a whole quoted "${n}" is a substitution too, keeping the type */
	assert_json(doc, "{\"kind\":\"T\",\"text\":\"pre-S-mid-3-post\","
			 "\"float\":\"v2.5\",\"nested\":\"x/7\",\"quoted\":3,"
			 "\"two\":\"SS\",\"int\":3,\"str\":\"3\",\"flag\":true,"
			 "\"nul\":null,\"dollar\":\"$5 {x}\"}");
	cJSON_Delete(doc);
	cJSON_Delete(ctx);
	tmpl_set_free(set);
}
END_TEST

START_TEST(test_interpolation_errors)
{
	static const struct {
		const char *ctx;
		const char *needle;
	} cases[] = {
		{ "{}", "'${v}' has no text value to put here" },
		{ "{\"v\":null}", "'${v}' has no text value" },
		{ "{\"v\":{\"a\":1}}", "'${v}' has no text value" },
		{ "{\"v\":[1]}", "'${v}' has no text value" },
		{ "{\"v\":true}", "'${v}' has no text value" },
	};
	struct tmpl_set *set;
	char *prefix;

	set = load_with("kind: T\n"          /* 1 */
			"spec:\n"            /* 2 */
			"  items:\n"         /* 3 */
			"    - ok\n"         /* 4 */
			"    - x-${v}-y\n"); /* 5 */
	prefix = xasprintf("%s/namespace.yaml:5:7: ", tdir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *ctx = parse_json(cases[i].ctx);
		char *msg = render_fails(set, "namespace", ctx, ERR_INVALID);
		ck_assert_msg(!strncmp(msg, prefix, strlen(prefix)),
			      "'%s' does not start with '%s'", msg, prefix);
		ck_assert_msg(strstr(msg, cases[i].needle) != NULL,
			      "'%s' lacks '%s'", msg, cases[i].needle);
		free(msg);
		cJSON_Delete(ctx);
	}
	free(prefix);
	tmpl_set_free(set);

	/* keys are never substituted */
	set = load_with("kind: T\n"
			"meta:\n"
			"  ${k}: v\n");
	{
		cJSON *ctx = parse_json("{\"k\":\"key\"}");
		char *msg = render_fails(set, "namespace", ctx, ERR_INVALID);
		prefix = xasprintf("%s/namespace.yaml:3:3: ", tdir);
		ck_assert_msg(!strncmp(msg, prefix, strlen(prefix)), "%s", msg);
		ck_assert_ptr_nonnull(strstr(msg, "keys cannot be substituted"));
		free(prefix);
		free(msg);
		cJSON_Delete(ctx);
	}
	tmpl_set_free(set);
}
END_TEST

/* ---- injection ---------------------------------------------------------- */

static const char *const hostile[] = {
	"a\nkind: Secret\nmetadata: {name: x}",
	"x: y",
	"- item",
	"---\nkind: Secret\n",
	"ns\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n",
	"${labels}",
	"${name}",
	"{a: b}",
	"[1, 2]",
	"&a x",
	"*a",
	"!!binary aGVsbG8=",
	"# comment",
	"'single'",
	"\"double\"",
	"true",
	"0x10",
	"1e3",
	"~",
	"null",
	"",
	" leading",
	"trailing ",
	"line\n  indented: 1\n",
	"tab\there",
	"\n",
	"a\n\n\nb\n\n",
	"key:\n- a\n- b",
	"| block",
	"> folded",
	"? complex",
	"%TAG ! tag:x",
	"@at",
	"`tick`",
	"emoji \xf0\x9f\x9a\x80 and \xc3\xa9",
};

/* emit doc, parse it back, and require the same value and one document */
static void round_trip(const cJSON *doc, const char *kind, const char *what)
{
	struct buf out = BUF_INIT;
	struct ystream ys = YSTREAM_INIT;
	struct err err = ERR_INIT;
	cJSON *back = NULL;
	const cJSON *k;

	ck_assert_msg(yaml_emit(&out, doc, &err) == 0, "emit %s: %s", what,
		      err_msg(&err));
	ck_assert_msg(yaml_parse(&ys, out.ptr, out.len, "emitted", &err) == 0,
		      "%s: emitted YAML does not parse: %s\n%s", what,
		      err_msg(&err), buf_cstr(&out));
	ck_assert_msg(ys.nr == 1, "%s: %zu documents:\n%s", what, ys.nr,
		      buf_cstr(&out));
	ck_assert_int_eq(yaml_to_json(&back, ys.docs[0].root, "emitted", &err),
			 0);
	ck_assert_msg(cJSON_Compare(doc, back, 1),
		      "%s: changed by emit + parse:\n%s", what, buf_cstr(&out));
	k = cJSON_GetObjectItemCaseSensitive(back, "kind");
	ck_assert_msg(cJSON_IsString(k) && !strcmp(k->valuestring, kind),
		      "%s: kind is no longer %s:\n%s", what, kind,
		      buf_cstr(&out));
	cJSON_Delete(back);
	ystream_release(&ys);
	buf_release(&out);
	err_release(&err);
}

START_TEST(test_injection_whole_scalar)
{
	struct tmpl_set *set = load(NULL);

	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		cJSON *ctx = cJSON_CreateObject(), *doc, *labels;
		const cJSON *name;
		char what[32];

		snprintf(what, sizeof(what), "hostile[%zu]", i);
		cJSON_AddStringToObject(ctx, "name", hostile[i]);
		/* as a map key and value too */
		labels = cJSON_AddObjectToObject(ctx, "labels");
		cJSON_AddStringToObject(labels, hostile[i], hostile[i]);
		doc = render(set, "namespace", ctx);
		name = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "metadata"),
					   "name");
		ck_assert_msg(cJSON_IsString(name), "%s: name is no string",
			      what);
		ck_assert_str_eq(name->valuestring, hostile[i]);
		round_trip(doc, "Namespace", what);
		cJSON_Delete(doc);
		cJSON_Delete(ctx);
	}
	tmpl_set_free(set);
}
END_TEST

START_TEST(test_injection_interpolated)
{
	struct tmpl_set *set = load_with("kind: Namespace\n"
					 "metadata:\n"
					 "  name: pre-${v}-post\n"
					 "  list:\n"
					 "    - ${v}/x\n");

	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		cJSON *ctx = cJSON_CreateObject(), *doc;
		const cJSON *name;
		char *want = xasprintf("pre-%s-post", hostile[i]);
		char what[32];

		snprintf(what, sizeof(what), "hostile[%zu]", i);
		cJSON_AddStringToObject(ctx, "v", hostile[i]);
		doc = render(set, "namespace", ctx);
		name = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "metadata"),
					   "name");
		ck_assert_msg(cJSON_IsString(name), "%s", what);
		ck_assert_str_eq(name->valuestring, want);
		round_trip(doc, "Namespace", what);
		cJSON_Delete(doc);
		cJSON_Delete(ctx);
		free(want);
	}
	tmpl_set_free(set);
}
END_TEST

Suite *tmpl_suite(void)
{
	Suite *s = suite_create("tmpl");
	TCase *tc;

	tc = tcase_create("embedded");
	tcase_add_test(tc, test_load_embedded);
	tcase_add_test(tc, test_tmpl_names_render);
	tcase_add_test(tc, test_injection_whole_scalar);
	suite_add_tcase(s, tc);

	tc = tcase_create("override");
	tcase_add_unchecked_fixture(tc, base_setup, base_teardown);
	tcase_add_checked_fixture(tc, dir_setup, NULL);
	tcase_add_test(tc, test_override_one_keeps_others);
	tcase_add_test(tc, test_load_failures);
	tcase_add_test(tc, test_whole_scalar_any_type);
	tcase_add_test(tc, test_missing_or_null_drops);
	tcase_add_test(tc, test_nested_lookup);
	tcase_add_test(tc, test_interpolation);
	tcase_add_test(tc, test_interpolation_errors);
	tcase_add_test(tc, test_injection_interpolated);
	suite_add_tcase(s, tc);
	return s;
}
