/*
 * tests/unit/test_yaml.c: unit tests for generator/yaml.c — the reader
 * (positions, streams, duplicate keys, tags, aliases and their limits,
 * scalar resolution, conversion to cJSON) and the emitter (quoting, block
 * styles, number formatting, and a parse(emit(x)) == x round trip).
 *
 * All inputs are built in memory; nothing here touches the filesystem.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <check.h>

#include "util/yaml.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/xalloc.h"

#define FILE_NAME "f.yaml"

/* ---- helpers ----------------------------------------------------------- */

static void parse_ok(struct ystream *s, const char *text)
{
	struct err e = ERR_INIT;
	int r = yaml_parse(s, text, strlen(text), FILE_NAME, &e);

	ck_assert_msg(r == 0, "parse failed: %s\n--- input:\n%s", err_msg(&e),
		      text);
	err_release(&e);
}

/* parse must fail with ERR_INVALID and leave the stream empty; returns the
 * message (caller frees) */
static char *parse_err(const char *text, size_t len)
{
	struct ystream s = YSTREAM_INIT;
	struct err e = ERR_INIT;
	int r = yaml_parse(&s, text, len, FILE_NAME, &e);

	ck_assert_msg(r == -1, "parse unexpectedly succeeded:\n%s", text);
	ck_assert_msg(e.code == ERR_INVALID, "code %d: %s", (int)e.code,
		      err_msg(&e));
	ck_assert_uint_eq(s.nr, 0);
	ck_assert_ptr_null(s.docs);
	return buf_detach(&e.msg, NULL);
}

static char *parse_err_s(const char *text)
{
	return parse_err(text, strlen(text));
}

static void assert_contains(const char *hay, const char *needle)
{
	ck_assert_msg(strstr(hay, needle) != NULL, "'%s' does not contain '%s'",
		      hay, needle);
}

static void assert_prefix(const char *s, const char *prefix)
{
	ck_assert_msg(!strncmp(s, prefix, strlen(prefix)),
		      "'%s' does not start with '%s'", s, prefix);
}

static void assert_pos(const struct ynode *n, int line, int col)
{
	ck_assert_ptr_nonnull(n);
	ck_assert_msg(n->line == line && n->col == col,
		      "node '%s' at %d:%d, want %d:%d",
		      n->value ? n->value : "(collection)", n->line, n->col,
		      line, col);
}

static void assert_scalar(const struct ynode *n, const char *value)
{
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(n->type, YNODE_SCALAR);
	ck_assert_str_eq(n->value, value);
	ck_assert_uint_eq(n->len, strlen(value));
}

/* the value of "v" in a one-key document "v: <text>" */
static const struct ynode *value_of(struct ystream *s, const char *text)
{
	char *doc = xasprintf("v: %s\n", text);
	const struct ynode *v;

	parse_ok(s, doc);
	free(doc);
	ck_assert_uint_eq(s->nr, 1);
	v = ynode_get(s->docs[0].root, "v");
	ck_assert_ptr_nonnull(v);
	return v;
}

static char *json_text(const cJSON *j)
{
	char *t = cJSON_PrintUnformatted(j);

	ck_assert_ptr_nonnull(t);
	return t;
}

/* YAML document text -> cJSON of its first document (must succeed) */
static cJSON *json_of(const char *text)
{
	struct ystream s = YSTREAM_INIT;
	struct err e = ERR_INIT;
	cJSON *j = NULL;

	parse_ok(&s, text);
	ck_assert_uint_ge(s.nr, 1);
	ck_assert_msg(yaml_to_json(&j, s.docs[0].root, FILE_NAME, &e) == 0,
		      "yaml_to_json: %s", err_msg(&e));
	ck_assert_ptr_nonnull(j);
	ystream_release(&s);
	err_release(&e);
	return j;
}

/* yaml_to_json of the first document must fail; returns the message */
static char *json_err(const char *text)
{
	struct ystream s = YSTREAM_INIT;
	struct err e = ERR_INIT;
	cJSON *j = (cJSON *)&j; /* must be reset to NULL */
	int r;

	parse_ok(&s, text);
	r = yaml_to_json(&j, s.docs[0].root, FILE_NAME, &e);
	if (r == 0) {
		char *t = json_text(j);
		ck_abort_msg("'%s' converted to %s instead of failing", text,
			     t);
	}
	ck_assert_int_eq(r, -1);
	ck_assert_ptr_null(j);
	ck_assert_int_eq(e.code, ERR_INVALID);
	ystream_release(&s);
	return buf_detach(&e.msg, NULL);
}

static void assert_json(const char *yaml, const char *want_json)
{
	cJSON *got = json_of(yaml);
	cJSON *want = cJSON_Parse(want_json);
	char *g = json_text(got);

	ck_assert_ptr_nonnull(want);
	ck_assert_msg(cJSON_Compare(got, want, 1), "%s: got %s, want %s", yaml,
		      g, want_json);
	free(g);
	cJSON_Delete(got);
	cJSON_Delete(want);
}

static char *emit_json(const cJSON *j)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;

	ck_assert_msg(yaml_emit(&out, j, &e) == 0, "yaml_emit: %s",
		      err_msg(&e));
	err_release(&e);
	return buf_detach(&out, NULL);
}

static void assert_emits(const char *json, const char *want)
{
	cJSON *j = cJSON_Parse(json);
	char *got;

	ck_assert_msg(j != NULL, "bad test JSON: %s", json);
	got = emit_json(j);
	ck_assert_msg(!strcmp(got, want), "%s\n--- emitted:\n%s--- want:\n%s",
		      json, got, want);
	free(got);
	cJSON_Delete(j);
}

/* emit {"v": s} and compare with want */
static void assert_emits_string(const char *s, const char *want)
{
	cJSON *j = cJSON_CreateObject();
	char *got;

	cJSON_AddStringToObject(j, "v", s);
	got = emit_json(j);
	ck_assert_msg(!strcmp(got, want), "'%s'\n--- emitted:\n%s--- want:\n%s",
		      s, got, want);
	free(got);
	cJSON_Delete(j);
}

static char *format_number(double v)
{
	struct buf b = BUF_INIT;

	yaml_format_number(&b, v);
	return buf_detach(&b, NULL);
}

/* ---- reader: positions and structure ----------------------------------- */

START_TEST(test_parse_positions)
{
	static const char doc[] = "apiVersion: v1\n"
				  "kind: Pod\n"
				  "spec:\n"
				  "  containers:\n"
				  "    - name: app\n"
				  "      image: \"x\"\n"
				  "  list: [a, {b: c}]\n";
	struct ystream s = YSTREAM_INIT;
	const struct ynode *root, *spec, *containers, *item, *list, *flowmap;

	parse_ok(&s, doc);
	ck_assert_uint_eq(s.nr, 1);
	root = s.docs[0].root;
	ck_assert_int_eq(root->type, YNODE_MAP);
	assert_pos(root, 1, 1);
	ck_assert_uint_eq(YNODE_MAP_LEN(root), 3);

	assert_scalar(YNODE_KEY(root, 0), "apiVersion");
	assert_pos(YNODE_KEY(root, 0), 1, 1);
	assert_scalar(YNODE_VAL(root, 0), "v1");
	assert_pos(YNODE_VAL(root, 0), 1, 13);
	ck_assert_int_eq(YNODE_VAL(root, 0)->plain, 1);
	assert_pos(YNODE_KEY(root, 1), 2, 1);
	assert_pos(YNODE_VAL(root, 1), 2, 7);
	assert_pos(YNODE_KEY(root, 2), 3, 1);

	spec = ynode_get(root, "spec");
	ck_assert_int_eq(spec->type, YNODE_MAP);
	assert_pos(spec, 4, 3);
	assert_pos(YNODE_KEY(spec, 0), 4, 3);

	containers = ynode_get(spec, "containers");
	ck_assert_int_eq(containers->type, YNODE_SEQ);
	assert_pos(containers, 5, 5);
	ck_assert_uint_eq(containers->nr, 1);
	item = containers->kids[0];
	ck_assert_int_eq(item->type, YNODE_MAP);
	assert_pos(item, 5, 7);
	assert_pos(YNODE_KEY(item, 0), 5, 7);
	assert_scalar(ynode_get(item, "name"), "app");
	assert_pos(ynode_get(item, "name"), 5, 13);
	assert_pos(YNODE_KEY(item, 1), 6, 7);
	/* a quoted scalar starts at its opening quote */
	assert_scalar(ynode_get(item, "image"), "x");
	assert_pos(ynode_get(item, "image"), 6, 14);
	ck_assert_int_eq(ynode_get(item, "image")->plain, 0);

	list = ynode_get(spec, "list");
	ck_assert_int_eq(list->type, YNODE_SEQ);
	assert_pos(list, 7, 9);
	ck_assert_uint_eq(list->nr, 2);
	assert_pos(list->kids[0], 7, 10);
	flowmap = list->kids[1];
	ck_assert_int_eq(flowmap->type, YNODE_MAP);
	assert_pos(flowmap, 7, 13);
	assert_pos(YNODE_KEY(flowmap, 0), 7, 14);
	assert_pos(YNODE_VAL(flowmap, 0), 7, 17);

	ystream_release(&s);
	ck_assert_uint_eq(s.nr, 0);
	ck_assert_ptr_null(s.docs);
}
END_TEST

START_TEST(test_ynode_get)
{
	struct ystream s = YSTREAM_INIT;
	const struct ynode *root;

	parse_ok(&s, "a: 1\n\"b c\": 2\nlist: [x]\n");
	root = s.docs[0].root;
	assert_scalar(ynode_get(root, "a"), "1");
	assert_scalar(ynode_get(root, "b c"), "2");
	ck_assert_ptr_null(ynode_get(root, "b"));
	ck_assert_ptr_null(ynode_get(root, "A"));
	ck_assert_ptr_null(ynode_get(root, ""));
	/* not a map, or no map at all */
	ck_assert_ptr_null(ynode_get(ynode_get(root, "list"), "x"));
	ck_assert_ptr_null(ynode_get(ynode_get(root, "a"), "a"));
	ck_assert_ptr_null(ynode_get(NULL, "a"));
	ystream_release(&s);
}
END_TEST

START_TEST(test_parse_multi_document)
{
	struct ystream s = YSTREAM_INIT;

	parse_ok(&s, "a: 1\n"
		     "---\n"
		     "b: 2\n"
		     "--- c\n"
		     "...\n"
		     "---\n"
		     "- d\n");
	ck_assert_uint_eq(s.nr, 4);
	ck_assert_int_eq(s.docs[0].line, 1);
	ck_assert_int_eq(s.docs[0].col, 1);
	assert_scalar(ynode_get(s.docs[0].root, "a"), "1");
	ck_assert_int_eq(s.docs[1].line, 2);
	assert_scalar(ynode_get(s.docs[1].root, "b"), "2");
	assert_pos(ynode_get(s.docs[1].root, "b"), 3, 4);
	ck_assert_int_eq(s.docs[2].line, 4);
	assert_scalar(s.docs[2].root, "c");
	assert_pos(s.docs[2].root, 4, 5);
	ck_assert_int_eq(s.docs[3].line, 6);
	ck_assert_int_eq(s.docs[3].root->type, YNODE_SEQ);
	assert_pos(s.docs[3].root, 7, 1);
	ystream_release(&s);

	/* no documents at all */
	parse_ok(&s, "");
	ck_assert_uint_eq(s.nr, 0);
	ystream_release(&s);
	parse_ok(&s, "# only a comment\n\n");
	ck_assert_uint_eq(s.nr, 0);
	ystream_release(&s);
}
END_TEST

/*
 * Fixed bug (generator/yaml.c, yaml_parse);
 * the test guards the fix.
 * Before it: yaml.h says ydoc.root is "NULL for an
 * empty document", but an empty document ("a: 1\n---\n", "--- # c\n")
 * gets a root that is an empty plain scalar (libyaml reports an empty
 * scalar event for it), so callers that skip empty documents with
 * `if (!doc->root)` see a null scalar instead.
 */
START_TEST(test_parse_empty_document_root_null)
{
	struct ystream s = YSTREAM_INIT;

	parse_ok(&s, "a: 1\n---\n");
	ck_assert_uint_eq(s.nr, 2);
	ck_assert_ptr_nonnull(s.docs[0].root);
	ck_assert_ptr_null(s.docs[1].root);
	ystream_release(&s);

	parse_ok(&s, "--- # nothing here\n");
	ck_assert_uint_eq(s.nr, 1);
	ck_assert_ptr_null(s.docs[0].root);
	ystream_release(&s);
}
END_TEST

START_TEST(test_parse_duplicate_key)
{
	char *msg;

	msg = parse_err_s("x: 1\n"
			  "b:\n"
			  "  c: 1\n"
			  "  d: 2\n"
			  "  c: 3\n");
	assert_prefix(msg, FILE_NAME ":5:3: ");
	assert_contains(msg, "duplicate key");
	assert_contains(msg, "'c'");
	assert_contains(msg, "line 3");
	free(msg);

	/* the same key written plain and quoted is still the same key */
	msg = parse_err_s("a: 1\n\"a\": 2\n");
	assert_prefix(msg, FILE_NAME ":2:1: ");
	assert_contains(msg, "duplicate key");
	free(msg);

	/* flow mapping, and the second document of a stream */
	msg = parse_err_s("ok: 1\n---\n{k: 1, j: 2, k: 3}\n");
	assert_prefix(msg, FILE_NAME ":3:14: ");
	assert_contains(msg, "duplicate key");
	free(msg);

	/* a third copy still reports the second one */
	msg = parse_err_s("k: 1\nk: 2\nk: 3\n");
	assert_prefix(msg, FILE_NAME ":2:1: ");
	free(msg);
}
END_TEST

START_TEST(test_parse_same_key_in_different_maps)
{
	struct ystream s = YSTREAM_INIT;

	parse_ok(&s, "a: {k: 1}\nb: {k: 2}\nc: [{k: 1}, {k: 2}]\n"
		     "---\na: again\n");
	ck_assert_uint_eq(s.nr, 2);
	ystream_release(&s);
}
END_TEST

START_TEST(test_parse_tags)
{
	static const char *const rejected[] = {
		"a: !!binary aGk=\n",
		"!foo x\n",
		"a: !foo\n  b: 1\n",
		"a: !bar [1]\n",
		"!<tag:example.com,2000:x> y\n",
		"a: !!set {x: null}\n",
		"a: !!timestamp 2001-12-14\n",
		"%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n",
	};
	char *msg;

	for (size_t i = 0; i < sizeof(rejected) / sizeof(rejected[0]); i++) {
		msg = parse_err_s(rejected[i]);
		assert_prefix(msg, FILE_NAME ":");
		assert_contains(msg, "unsupported YAML tag");
		free(msg);
	}
	msg = parse_err_s("a: !!binary aGk=\n");
	assert_prefix(msg, FILE_NAME ":1:4: ");
	assert_contains(msg, "tag:yaml.org,2002:binary");
	free(msg);

	/* the standard tags, and the non-specific "!" */
	assert_json("a: !!str 12\n"
		    "b: !!int \"12\"\n"
		    "c: !!float 1\n"
		    "d: !!bool true\n"
		    "e: !!null ''\n"
		    "f: !!map {x: 1}\n"
		    "g: !!seq [1]\n"
		    "h: ! 12\n",
		    "{\"a\":\"12\",\"b\":12,\"c\":1,\"d\":true,\"e\":null,"
		    "\"f\":{\"x\":1},\"g\":[1],\"h\":\"12\"}");
}
END_TEST

START_TEST(test_parse_aliases)
{
	struct ystream s = YSTREAM_INIT;
	const struct ynode *root, *base, *copy;
	char *msg;

	parse_ok(&s, "base: &b {x: 1, y: [1, 2]}\n"
		     "copy: *b\n"
		     "s: &s hello\n"
		     "t: *s\n");
	root = s.docs[0].root;
	base = ynode_get(root, "base");
	copy = ynode_get(root, "copy");
	/* a deep copy, positioned where the alias is */
	ck_assert_ptr_ne(base, copy);
	ck_assert_int_eq(copy->type, YNODE_MAP);
	assert_pos(copy, 2, 7);
	assert_pos(ynode_get(root, "t"), 4, 4);
	assert_scalar(ynode_get(root, "t"), "hello");
	ystream_release(&s);

	assert_json("base: &b {x: 1, y: [1, 2]}\ncopy: *b\ns: &s hello\n"
		    "t: *s\n",
		    "{\"base\":{\"x\":1,\"y\":[1,2]},\"copy\":{\"x\":1,\"y\":[1,2]},"
		    "\"s\":\"hello\",\"t\":\"hello\"}");

	/* a later anchor of the same name wins from there on */
	assert_json("a: &x 1\nb: *x\nc: &x 2\nd: *x\n",
		    "{\"a\":1,\"b\":1,\"c\":2,\"d\":2}");

	msg = parse_err_s("a: 1\nb: *nope\n");
	assert_prefix(msg, FILE_NAME ":2:4: ");
	assert_contains(msg, "unknown alias");
	free(msg);

	/* anchors do not cross documents */
	msg = parse_err_s("a: &x 1\n---\nb: *x\n");
	assert_prefix(msg, FILE_NAME ":3:4: ");
	assert_contains(msg, "unknown alias");
	free(msg);

	/* a collection cannot contain an alias to itself */
	msg = parse_err_s("a: &a [1, *a]\n");
	assert_contains(msg, "unknown alias");
	free(msg);
}
END_TEST

START_TEST(test_parse_non_scalar_key)
{
	static const char *const docs[] = {
		"? [a]\n: b\n",
		"? {x: 1}\n: b\n",
		"{[a]: b}\n",
		"m: &m {x: 1}\n*m : 2\n",
	};
	char *msg;

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		msg = parse_err_s(docs[i]);
		assert_contains(msg, "mapping key");
		free(msg);
	}
	msg = parse_err_s(docs[0]);
	assert_prefix(msg, FILE_NAME ":1:3: ");
	free(msg);
}
END_TEST

START_TEST(test_parse_syntax_error)
{
	char *msg;

	/* an unclosed flow sequence is shown where it opens, with the place
	 * the parser noticed it in the message */
	msg = parse_err_s("a: [1, 2\n");
	assert_prefix(msg, FILE_NAME ":1:4: not closed: ");
	assert_contains(msg, "at line 2, column 1");
	free(msg);

	msg = parse_err_s("a: b: c\n");
	assert_prefix(msg, FILE_NAME ":1:5: ");
	assert_contains(msg, "mapping values are not allowed");
	free(msg);

	msg = parse_err_s("a: 1\nb:\n\t- x\n");
	assert_prefix(msg, FILE_NAME ":3:1: ");
	free(msg);

	msg = parse_err_s("a: \"unterminated\n");
	assert_prefix(msg, FILE_NAME ":");
	free(msg);

	/* invalid UTF-8 */
	msg = parse_err_s("a: \xff\xfe\n");
	assert_prefix(msg, FILE_NAME ":");
	free(msg);
}
END_TEST

/* ---- reader: limits ---------------------------------------------------- */

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(test_parse_billion_laughs)
{
	struct buf y = BUF_INIT;
	double t0, elapsed;
	char *msg;

	/* 9 levels of 10 aliases each: 10^9 nodes if expanded */
	buf_adds(&y, "a: &a [");
	for (int i = 0; i < 10; i++)
		buf_adds(&y, i ? ", lol" : "lol");
	buf_adds(&y, "]\n");
	for (char c = 'b'; c <= 'i'; c++) {
		buf_addf(&y, "%c: &%c [", c, c);
		for (int i = 0; i < 10; i++)
			buf_addf(&y, "%s*%c", i ? ", " : "", (char)(c - 1));
		buf_adds(&y, "]\n");
	}
	t0 = now_seconds();
	msg = parse_err(y.ptr, y.len);
	elapsed = now_seconds() - t0;
	assert_prefix(msg, FILE_NAME ":");
	assert_contains(msg, "expands past the limit");
	/* bounded by YAML_MAX_NODES copies: well under a second unsanitised */
	ck_assert_msg(elapsed < 10.0, "took %.1f s", elapsed);
	free(msg);
	buf_release(&y);
}
END_TEST

START_TEST(test_parse_aliases_within_budget)
{
	struct buf y = BUF_INIT;
	struct ystream s = YSTREAM_INIT;
	const struct ynode *d;

	/* 4 levels x 10 = 10^4 leaves: fine */
	buf_adds(&y, "a: &a [");
	for (int i = 0; i < 10; i++)
		buf_adds(&y, i ? ", lol" : "lol");
	buf_adds(&y, "]\n");
	for (char c = 'b'; c <= 'd'; c++) {
		buf_addf(&y, "%c: &%c [", c, c);
		for (int i = 0; i < 10; i++)
			buf_addf(&y, "%s*%c", i ? ", " : "", (char)(c - 1));
		buf_adds(&y, "]\n");
	}
	parse_ok(&s, buf_cstr(&y));
	d = ynode_get(s.docs[0].root, "d");
	ck_assert_uint_eq(d->nr, 10);
	/* d -> copy of c -> copy of b -> copy of a -> "lol" */
	ck_assert_uint_eq(d->kids[9]->kids[9]->kids[9]->nr, 10);
	assert_scalar(d->kids[9]->kids[9]->kids[9]->kids[9], "lol");
	ystream_release(&s);
	buf_release(&y);
}
END_TEST

START_TEST(test_parse_node_limit)
{
	struct buf y = BUF_INIT;
	char *msg;

	buf_addc(&y, '[');
	for (int i = 0; i <= YAML_MAX_NODES; i++)
		buf_adds(&y, i ? ",0" : "0");
	buf_addc(&y, ']');
	msg = parse_err(y.ptr, y.len);
	assert_prefix(msg, FILE_NAME ":1:");
	assert_contains(msg, "nodes");
	free(msg);
	buf_release(&y);
}
END_TEST

START_TEST(test_parse_input_limit)
{
	size_t len = (size_t)YAML_MAX_INPUT + 1;
	char *big = xmalloc(len);
	char *msg;

	memset(big, 'a', len);
	msg = parse_err(big, len);
	assert_prefix(msg, FILE_NAME ": ");
	assert_contains(msg, "limit");
	free(msg);
	free(big);
}
END_TEST

static char *nested(int depth, int block)
{
	struct buf b = BUF_INIT;

	if (block) {
		/* k:\n  k:\n    k: ... as block mappings */
		for (int i = 0; i < depth; i++) {
			for (int j = 0; j < i; j++)
				buf_adds(&b, " ");
			buf_adds(&b, i + 1 < depth ? "k:\n" : "k: v\n");
		}
	} else {
		for (int i = 0; i < depth; i++)
			buf_addc(&b, '[');
		for (int i = 0; i < depth; i++)
			buf_addc(&b, ']');
	}
	return buf_detach(&b, NULL);
}

START_TEST(test_parse_max_depth)
{
	struct ystream s = YSTREAM_INIT;
	char *doc, *msg;

	doc = nested(YAML_MAX_DEPTH, 0);
	parse_ok(&s, doc);
	ystream_release(&s);
	free(doc);

	doc = nested(YAML_MAX_DEPTH + 1, 0);
	msg = parse_err_s(doc);
	assert_prefix(msg, FILE_NAME ":1:129: ");
	assert_contains(msg, "nesting deeper");
	free(msg);
	free(doc);

	doc = nested(YAML_MAX_DEPTH, 1);
	parse_ok(&s, doc);
	ystream_release(&s);
	free(doc);

	doc = nested(YAML_MAX_DEPTH + 1, 1);
	msg = parse_err_s(doc);
	assert_contains(msg, "nesting deeper");
	free(msg);
	free(doc);

	doc = nested(1000, 0);
	msg = parse_err_s(doc);
	assert_contains(msg, "nesting deeper");
	free(msg);
	free(doc);
}
END_TEST

/* ---- scalar resolution ------------------------------------------------- */

START_TEST(test_scalar_kind)
{
	static const struct {
		const char *text;
		enum yscalar_kind kind;
	} cases[] = {
		{ "hello", YS_STRING },   { "true", YS_BOOL },
		{ "\"true\"", YS_STRING }, { "'true'", YS_STRING },
		{ "True", YS_BOOL },      { "TRUE", YS_BOOL },
		{ "tRUE", YS_STRING },    { "false", YS_BOOL },
		{ "yes", YS_BOOL },       { "\"yes\"", YS_STRING },
		{ "No", YS_BOOL },        { "on", YS_BOOL },
		{ "OFF", YS_BOOL },       { "y", YS_BOOL },
		{ "n", YS_BOOL },         { "~", YS_NULL },
		{ "null", YS_NULL },      { "Null", YS_NULL },
		{ "NULL", YS_NULL },      { "nul", YS_STRING },
		{ "\"~\"", YS_STRING },   { "", YS_NULL },
		{ "''", YS_STRING },      { "\"\"", YS_STRING },
		{ "0", YS_INT },          { "42", YS_INT },
		{ "-7", YS_INT },         { "+7", YS_INT },
		{ "010", YS_INT },        { "0x1F", YS_INT },
		{ "\"0x1F\"", YS_STRING }, { "0o17", YS_INT },
		{ "0b101", YS_INT },      { "1_000", YS_INT },
		{ "0x", YS_STRING },      { "1e3", YS_FLOAT },
		{ "\"1e3\"", YS_STRING }, { "1.5", YS_FLOAT },
		{ ".5", YS_FLOAT },       { "-1.5e-3", YS_FLOAT },
		{ "1.", YS_FLOAT },       { ".inf", YS_FLOAT },
		{ "-.Inf", YS_FLOAT },    { ".nan", YS_FLOAT },
		{ "nan", YS_STRING },     { "1.2.3", YS_STRING },
		{ "10Gi", YS_STRING },    { "100m", YS_STRING },
		{ "v1", YS_STRING },      { "2001-12-14", YS_STRING },
		/* the reader follows YAML 1.2 here: sexagesimal is a string */
		{ "1:30", YS_STRING },    { "\"1:30\"", YS_STRING },
		{ "!!str true", YS_STRING }, { "!!bool \"true\"", YS_BOOL },
		{ "!!int \"42\"", YS_INT }, { "!!null ''", YS_NULL },
		{ "!!float 1", YS_FLOAT }, { "! true", YS_STRING },
		{ "|\n  true\n", YS_STRING }, { ">\n  42\n", YS_STRING },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ystream s = YSTREAM_INIT;
		const struct ynode *v = value_of(&s, cases[i].text);
		enum yscalar_kind got = yaml_scalar_kind(v);

		ck_assert_msg(got == cases[i].kind, "'%s': kind %d, want %d",
			      cases[i].text, (int)got, (int)cases[i].kind);
		ystream_release(&s);
	}
}
END_TEST

START_TEST(test_scalar_bool)
{
	static const struct {
		const char *text;
		int value;
	} cases[] = {
		{ "true", 1 }, { "True", 1 }, { "yes", 1 }, { "ON", 1 },
		{ "y", 1 },    { "false", 0 }, { "No", 0 }, { "off", 0 },
		{ "n", 0 },    { "!!bool true", 1 }, { "!!bool false", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ystream s = YSTREAM_INIT;
		const struct ynode *v = value_of(&s, cases[i].text);

		ck_assert_int_eq(yaml_scalar_kind(v), YS_BOOL);
		ck_assert_msg(yaml_scalar_bool(v) == cases[i].value,
			      "'%s' is not %d", cases[i].text, cases[i].value);
		ystream_release(&s);
	}
}
END_TEST

/*
 * Fixed bug (generator/yaml.c, is_int_text);
 * the test guards the fix.
 * Before it: a plain "_" (or "-_", "__") counts
 * as an integer because the digit loop accepts '_' without requiring a
 * digit; yaml_to_json then fails with "integer '_' is out of range". It is
 * a string in both YAML 1.1 and 1.2.
 */
START_TEST(test_scalar_underscore_is_string)
{
	static const char *const texts[] = { "_", "__", "-_", "+_" };

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct ystream s = YSTREAM_INIT;
		const struct ynode *v = value_of(&s, texts[i]);
		char *doc = xasprintf("v: %s\n", texts[i]);
		char *want = xasprintf("{\"v\":\"%s\"}", texts[i]);

		ck_assert_msg(yaml_scalar_kind(v) == YS_STRING,
			      "'%s': kind %d", texts[i],
			      (int)yaml_scalar_kind(v));
		assert_json(doc, want);
		free(doc);
		free(want);
		ystream_release(&s);
	}
}
END_TEST

/* ---- yaml_to_json ------------------------------------------------------ */

START_TEST(test_to_json_types)
{
	cJSON *j;

	assert_json("s: hello\n"
		    "q: \"42\"\n"
		    "i: 42\n"
		    "neg: -7\n"
		    "plus: +7\n"
		    "hex: 0x1F\n"
		    "oct: 0o17\n"
		    "bin: 0b101\n"
		    "dec0: 010\n"
		    "under: 1_000\n"
		    "f: 1.5\n"
		    "e: 1e3\n"
		    "small: -2.5e-3\n"
		    "b: yes\n"
		    "bf: off\n"
		    "n: ~\n"
		    "empty:\n"
		    "seq: [1, two, true, null]\n"
		    "m: {k: v}\n"
		    "big: 9007199254740992\n"
		    "nbig: -9007199254740992\n"
		    "hexbig: 0x20000000000000\n"
		    "time: 1:30\n"
		    "1: int key\n"
		    "true: bool key\n",
		    "{\"s\":\"hello\",\"q\":\"42\",\"i\":42,\"neg\":-7,\"plus\":7,"
		    "\"hex\":31,\"oct\":15,\"bin\":5,\"dec0\":10,\"under\":1000,"
		    "\"f\":1.5,\"e\":1000,\"small\":-0.0025,\"b\":true,"
		    "\"bf\":false,\"n\":null,\"empty\":null,"
		    "\"seq\":[1,\"two\",true,null],\"m\":{\"k\":\"v\"},"
		    "\"big\":9007199254740992,\"nbig\":-9007199254740992,"
		    "\"hexbig\":9007199254740992,\"time\":\"1:30\","
		    "\"1\":\"int key\",\"true\":\"bool key\"}");

	/* exact values and types, not just cJSON_Compare's tolerance */
	j = json_of("q: \"42\"\nbig: 9007199254740992\nnbig: "
		    "-9007199254740992\n");
	ck_assert(cJSON_IsString(cJSON_GetObjectItem(j, "q")));
	ck_assert(cJSON_GetObjectItem(j, "big")->valuedouble ==
		  9007199254740992.0);
	ck_assert(cJSON_GetObjectItem(j, "nbig")->valuedouble ==
		  -9007199254740992.0);
	cJSON_Delete(j);

	/* the empty stream root: JSON null */
	{
		struct err e = ERR_INIT;
		j = NULL;
		ck_assert_int_eq(yaml_to_json(&j, NULL, FILE_NAME, &e), 0);
		ck_assert(cJSON_IsNull(j));
		cJSON_Delete(j);
	}
}
END_TEST

START_TEST(test_to_json_int_limit)
{
	static const char *const too_big[] = {
		"9007199254740993",
		"-9007199254740993",
		"0x20000000000001",
		"123456789012345678901234567890",
		"0xFFFFFFFFFFFFFFFFFFFF",
	};
	char *msg;

	for (size_t i = 0; i < sizeof(too_big) / sizeof(too_big[0]); i++) {
		char *doc = xasprintf("n: %s\n", too_big[i]);
		msg = json_err(doc);
		assert_prefix(msg, FILE_NAME ":1:4: ");
		assert_contains(msg, "2^53");
		free(msg);
		free(doc);
	}
	/* nested: the error comes through, nothing leaks */
	msg = json_err("a:\n  - 1\n  - {b: 9007199254740993}\n");
	assert_prefix(msg, FILE_NAME ":3:9: ");
	free(msg);
}
END_TEST

START_TEST(test_to_json_inf_nan_rejected)
{
	static const char *const texts[] = {
		".inf", "-.inf", "+.INF", ".Inf", ".nan", ".NaN", ".NAN",
	};
	char *msg;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *doc = xasprintf("x: %s\n", texts[i]);
		msg = json_err(doc);
		assert_prefix(msg, FILE_NAME ":1:4: ");
		assert_contains(msg, "no JSON equivalent");
		free(msg);
		free(doc);
	}
	msg = json_err("a: [1, {b: .nan}]\n");
	assert_contains(msg, "no JSON equivalent");
	free(msg);

	/* quoted, they are just strings */
	assert_json("a: \".inf\"\nb: '.nan'\n", "{\"a\":\".inf\",\"b\":\".nan\"}");
}
END_TEST

/*
 * Fixed bug (generator/yaml.c, yaml_to_json, YS_FLOAT);
 * the test guards the fix.
 * Before it: "1e999" passes the
 * inf/nan text check, strtod() overflows to infinity, and the JSON value is
 * inf (cJSON prints it as null). It should fail like .inf does.
 */
START_TEST(test_to_json_float_overflow_rejected)
{
	char *msg;

	msg = json_err("x: 1e999\n");
	assert_prefix(msg, FILE_NAME ":1:4: ");
	free(msg);
	msg = json_err("x: -1e999\n");
	free(msg);
}
END_TEST

/*
 * Fixed bug (generator/yaml.c, is_float_text vs yaml_to_json);
 * the test guards the fix.
 * Before it: is_float_text
 * accepts '_' in the integer part (YAML 1.1), but the value is read with
 * strtod(), which stops at the '_': "1_000.5" becomes 1, silently. Either
 * strip the underscores (as parse_yaml_int does) or do not accept them.
 */
START_TEST(test_to_json_float_underscore)
{
	cJSON *j = json_of("x: 1_000.5\n");
	const cJSON *x = cJSON_GetObjectItem(j, "x");
	char *t = json_text(j);

	ck_assert_msg(
		(cJSON_IsNumber(x) && x->valuedouble == 1000.5) ||
			(cJSON_IsString(x) && !strcmp(x->valuestring, "1_000.5")),
		"1_000.5 became %s", t);
	free(t);
	cJSON_Delete(j);
}
END_TEST

/*
 * Fixed bug (generator/yaml.c, yaml_to_json);
 * the test guards the fix.
 * Before it: an explicit standard tag forces the
 * kind without checking the text, so "!!bool maybe" becomes false and
 * "!!float abc" becomes 0, silently ("!!int abc" fails, but says "out of
 * range"). Content that does not match its tag should be ERR_INVALID.
 */
START_TEST(test_to_json_tag_content_checked)
{
	static const char *const docs[] = {
		"x: !!bool maybe\n",
		"x: !!float abc\n",
		"x: !!int abc\n",
		"x: !!null something\n",
	};

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		char *msg = json_err(docs[i]);
		assert_prefix(msg, FILE_NAME ":1:4: ");
		free(msg);
	}
}
END_TEST

/* ---- emitter: quoting -------------------------------------------------- */

START_TEST(test_needs_quotes)
{
	static const char *const quoted[] = {
		"true", "True", "no", "NO", "yes", "on", "Off", "y", "N",
		"null", "Null", "~", "", "0", "42", "-1", "+1", "010", "0x1F",
		"0o17", "0b1", "1_000", "1e3", "1E3", "1.5", ".5", "1.",
		".inf", "-.inf", ".nan", "1:30", "190:20:30", " x", "x ", "\tx",
		"- x", "-x", "-", "a: b", "x:", "#x", "a #b", "&a", "*a", "!t",
		"!!int 3", "|x", ">x", "'q'", "\"q\"", "%x", "@x", "`x", "{a",
		"}", "[1]", "]", ",x", "?x", "<<", "=", "a\nb", "a\tb",
		"\x01" "x", "x\x7f",
	};
	static const char *const plain[] = {
		"hello", "hello world", "x-y", "a:b", "a#b", "nginx:1.25",
		"http://example.com/x", "apps/v1", "v1", "1.2.3", "0x",
		"nan", "10Gi", "100m", "A100", "ü", "日本語", "x.y.z",
		"nvidia.com/gpu", "a-b_c", "yes please", "+", ".", "x?",
	};

	for (size_t i = 0; i < sizeof(quoted) / sizeof(quoted[0]); i++)
		ck_assert_msg(yaml_plain_needs_quotes(quoted[i],
						      strlen(quoted[i])),
			      "'%s' should need quotes", quoted[i]);
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		ck_assert_msg(!yaml_plain_needs_quotes(plain[i],
						       strlen(plain[i])),
			      "'%s' should not need quotes", plain[i]);
	/* an embedded NUL is a control character */
	ck_assert(yaml_plain_needs_quotes("a\0b", 3));
}
END_TEST

/*
 * Fixed bug (generator/yaml.c, yaml_plain_needs_quotes);
 * the test guards the fix.
 * Before it: yaml.h promises quotes
 * whenever "a YAML 1.1 or 1.2 reader could take them for anything but a
 * string", but YAML 1.1 timestamps ("2001-12-14", PyYAML reads a date) and
 * signed sexagesimal ints ("+1:30", 1.1 reads 90) are left plain.
 */
START_TEST(test_needs_quotes_yaml11_timestamp_sexagesimal)
{
	static const char *const quoted[] = {
		"2001-12-14",
		"2001-12-14t21:59:43.10-05:00",
		"2001-12-14 21:59:43.10 -5",
		"+1:30",
	};

	for (size_t i = 0; i < sizeof(quoted) / sizeof(quoted[0]); i++)
		ck_assert_msg(yaml_plain_needs_quotes(quoted[i],
						      strlen(quoted[i])),
			      "'%s' should need quotes", quoted[i]);
}
END_TEST

START_TEST(test_emit_quoted_strings)
{
	assert_emits_string("true", "v: \"true\"\n");
	assert_emits_string("no", "v: \"no\"\n");
	assert_emits_string("0", "v: \"0\"\n");
	assert_emits_string("010", "v: \"010\"\n");
	assert_emits_string("1e3", "v: \"1e3\"\n");
	assert_emits_string("", "v: \"\"\n");
	assert_emits_string(" x", "v: \" x\"\n");
	assert_emits_string("- x", "v: \"- x\"\n");
	assert_emits_string("a: b", "v: \"a: b\"\n");
	assert_emits_string("#x", "v: \"#x\"\n");
	assert_emits_string("null", "v: \"null\"\n");
	assert_emits_string("~", "v: \"~\"\n");
	assert_emits_string("1:30", "v: \"1:30\"\n");
	assert_emits_string("0x1F", "v: \"0x1F\"\n");
	assert_emits_string("tab\there", "v: \"tab\\there\"\n");
	assert_emits_string("\"dq\"", "v: \"\\\"dq\\\"\"\n");
	/* keys are quoted by the same rule */
	assert_emits("{\"true\": 1, \"\": 2, \"a: b\": 3, \"plain\": 4}",
		     "\"true\": 1\n\"\": 2\n\"a: b\": 3\nplain: 4\n");
}
END_TEST

START_TEST(test_emit_plain_strings)
{
	assert_emits_string("hello", "v: hello\n");
	assert_emits_string("hello world", "v: hello world\n");
	assert_emits_string("nvidia.com/gpu", "v: nvidia.com/gpu\n");
	assert_emits_string("nginx:1.25", "v: nginx:1.25\n");
	assert_emits_string("\xc3\xbc", "v: \xc3\xbc\n");
	/* no line folding, however long */
	{
		char long_s[301];
		char *want;

		for (int i = 0; i < 300; i++)
			long_s[i] = i % 10 == 9 ? ' ' : 'a';
		long_s[299] = 'z';
		long_s[300] = '\0';
		want = xasprintf("v: %s\n", long_s);
		assert_emits_string(long_s, want);
		free(want);
	}
}
END_TEST

START_TEST(test_emit_block_literal)
{
	assert_emits_string("line1\nline2\n", "v: |\n  line1\n  line2\n");
	assert_emits_string("a\nb", "v: |-\n  a\n  b\n");
	assert_emits_string("a\nkind: Secret",
			    "v: |-\n  a\n  kind: Secret\n");
	assert_emits("{\"m\": {\"script\": \"#!/bin/sh\\necho hi\\n\"}}",
		     "m:\n  script: |\n    #!/bin/sh\n    echo hi\n");
	/* a lone newline is clearer quoted */
	assert_emits_string("\n", "v: \"\\n\"\n");
}
END_TEST

START_TEST(test_emit_numbers_bools_null)
{
	assert_emits("{\"i\": 1, \"z\": 0, \"neg\": -3, \"f\": 0.5, \"t\": 0.1,"
		     " \"big\": 1e15, \"b\": true, \"c\": false, \"x\": null}",
		     "i: 1\nz: 0\nneg: -3\nf: 0.5\nt: 0.1\nbig: 1000000000000000\n"
		     "b: true\nc: false\nx: null\n");
	/* the keys "y" and "n" are YAML 1.1 booleans: quoted */
	assert_emits("{\"y\": 1, \"n\": 2}", "\"y\": 1\n\"n\": 2\n");
}
END_TEST

START_TEST(test_format_number)
{
	static const struct {
		double v;
		const char *text;
	} cases[] = {
		{ 1, "1" },
		{ 0, "0" },
		{ -0.0, "0" },
		{ -42, "-42" },
		{ 0.5, "0.5" },
		{ 0.1, "0.1" },
		{ -2.5, "-2.5" },
		{ 1.0 / 3.0, "0.3333333333333333" },
		{ 1e15, "1000000000000000" },
		{ 9007199254740991.0, "9007199254740991" },
		{ 1e300, "1e+300" },
		{ 2.5e-7, "2.5e-07" },
		{ 123456.789, "123456.789" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = format_number(cases[i].v);
		ck_assert_msg(!strcmp(got, cases[i].text), "%.17g: '%s', want '%s'",
			      cases[i].v, got, cases[i].text);
		free(got);
	}
}
END_TEST

/* whatever yaml_format_number writes reads back as the same double */
START_TEST(test_format_number_reads_back)
{
	static const double values[] = {
		0,       1,          -1,      0.5,      0.1,   0.2 + 0.1,
		1.0 / 3, 2.0 / 3,    1e15,    1e16,     1e17,  1e300,
		1e-300,  -2.5e-7,    123.456, 4.35,     1e21,  9007199254740991.0,
		9007199254740992.0,  -9007199254740992.0, 5e-324, 1.7976931348623157e308,
	};

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char *text = format_number(values[i]);
		char *doc = xasprintf("x: %s\n", text);
		cJSON *j = json_of(doc);
		const cJSON *x = cJSON_GetObjectItem(j, "x");

		ck_assert_msg(cJSON_IsNumber(x), "'%s' did not read as a number",
			      text);
		ck_assert_msg(x->valuedouble == values[i],
			      "%.17g written as '%s' reads back as %.17g",
			      values[i], text, x->valuedouble);
		cJSON_Delete(j);
		free(doc);
		free(text);
	}
}
END_TEST

START_TEST(test_emit_empty_collections)
{
	assert_emits("{}", "{}\n");
	assert_emits("[]", "[]\n");
	assert_emits("{\"a\": {}, \"b\": [], \"c\": [{}, []]}",
		     "a: {}\nb: []\nc:\n- {}\n- []\n");
}
END_TEST

START_TEST(test_emit_key_order)
{
	assert_emits("{\"z\": 1, \"a\": 2, \"m\": 3, \"b\": {\"w\": 1, \"v\": 2}}",
		     "z: 1\na: 2\nm: 3\nb:\n  w: 1\n  v: 2\n");
}
END_TEST

START_TEST(test_emit_exact_document)
{
	static const char json[] =
		"{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\","
		" \"metadata\": {\"name\": \"gpu-config\","
		"   \"labels\": {\"app.kubernetes.io/name\": \"gpuform\"}},"
		" \"data\": {\"enabled\": \"true\", \"count\": \"010\","
		"   \"script\": \"set -e\\nnvidia-smi\\n\", \"empty\": \"\"},"
		" \"list\": [1, 0.5, \"x\", {\"k\": null, \"j\": [true]},"
		"   [], {}, [\"nested\"]],"
		" \"flag\": false}";
	static const char want[] = "apiVersion: v1\n"
				   "kind: ConfigMap\n"
				   "metadata:\n"
				   "  name: gpu-config\n"
				   "  labels:\n"
				   "    app.kubernetes.io/name: gpuform\n"
				   "data:\n"
				   "  enabled: \"true\"\n"
				   "  count: \"010\"\n"
				   "  script: |\n"
				   "    set -e\n"
				   "    nvidia-smi\n"
				   "  empty: \"\"\n"
				   "list:\n"
				   "- 1\n"
				   "- 0.5\n"
				   "- x\n"
				   "- k: null\n"
				   "  j:\n"
				   "  - true\n"
				   "- []\n"
				   "- {}\n"
				   "- - nested\n"
				   "flag: false\n";

	assert_emits(json, want);
}
END_TEST

START_TEST(test_emit_scalar_roots)
{
	assert_emits("\"x\"", "x\n");
	assert_emits("\"true\"", "\"true\"\n");
	assert_emits("3", "3\n");
	assert_emits("null", "null\n");
}
END_TEST

/*
 * Fixed bug (generator/yaml.c, emit_scalar);
 * the test guards the fix.
 * Before it: the return value of
 * yaml_scalar_event_initialize() is ignored. It fails (and leaves the event
 * uninitialised) for a string that is not valid UTF-8, and the garbage
 * event is then handed to yaml_emitter_emit(): undefined behaviour. Today
 * it happens to come back as "cannot emit YAML: expected SCALAR, ...";
 * the fix is to check the return value and report the invalid string.
 */
START_TEST(test_emit_invalid_utf8_fails_cleanly)
{
	cJSON *j = cJSON_CreateObject();
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;

	cJSON_AddStringToObject(j, "a", "ok");
	cJSON_AddStringToObject(j, "b", "\xff\xfe");
	ck_assert_int_eq(yaml_emit(&out, j, &e), -1);
	ck_assert_int_ne(e.code, ERR_NONE);
	ck_assert_msg(strstr(err_msg(&e), "expected SCALAR") == NULL,
		      "an uninitialised event reached libyaml: %s",
		      err_msg(&e));
	buf_release(&out);
	err_release(&e);
	cJSON_Delete(j);
}
END_TEST

/* ---- round trip -------------------------------------------------------- */

static const char *const tricky[] = {
	/* YAML injection attempts */
	"a\nkind: Secret", "x: y", "{a: b}", "[1]", "&a", "*a", "!!int 3",
	"'q'", "\"dq\"", "--- x", "---", "...", "...\n", "---\nkind: Secret",
	"? k", "- x", "- x\n- y", "# c\nx", "x #c", "%YAML 1.1", "%TAG",
	"|", ">", "|-\n  x", "@x", "`x", "a\\b", "<<", "=", "a, b",
	/* words other readers resolve */
	"true", "no", "yes", "on", "y", "N", "0", "010", "1e3", "0x1F",
	"0o17", "0b1", "1_000", "1:30", "+1:30", ".inf", ".nan", "~", "null",
	"", " x", "x ", "  ", "2001-12-14",
	/* unicode and control characters */
	"\xc3\xbc", "\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x98\x80",
	"\xc2\xa0x", "\xef\xbb\xbf" "bom", "a\xc2\x85" "b",
	"a\xe2\x80\xa8" "b", "x\n\xe2\x80\xa9y", "\x01" "ctl", "x\x7f",
	"tab\there", "\tlead",
	/* line breaks in every position */
	"line1\nline2\n", "a\n", "\n", "\n\nx", "x\n\n", " lead\nx",
	"trail \nx", "x\n ", "cr\r\nlf", "a\rb", "a\nb\rc",
};

static cJSON *tricky_document(void)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON *values = cJSON_CreateObject();
	cJSON *keys = cJSON_CreateObject();
	cJSON *arr = cJSON_CreateArray();
	cJSON *nested = cJSON_CreateObject();
	cJSON *nums = cJSON_CreateArray();
	char long_key[301];
	static const double numbers[] = { 0, -1, 0.5, 0.1, 1e300, -2.5e-7,
					   9007199254740991.0, 123456.789 };

	for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
		char name[32];

		snprintf(name, sizeof(name), "v%zu", i);
		cJSON_AddStringToObject(values, name, tricky[i]);
		cJSON_AddNumberToObject(keys, tricky[i], (double)i);
		cJSON_AddItemToArray(arr, cJSON_CreateString(tricky[i]));
	}
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		cJSON_AddItemToArray(nums, cJSON_CreateNumber(numbers[i]));
	/* keys over 128 characters are written as "? key" */
	memset(long_key, 'k', 300);
	long_key[300] = '\0';
	cJSON_AddStringToObject(keys, long_key, long_key);

	cJSON_AddItemToObject(doc, "values", values);
	cJSON_AddItemToObject(doc, "keys", keys);
	cJSON_AddItemToObject(doc, "array", arr);
	cJSON_AddItemToObject(nested, "inner", cJSON_Duplicate(arr, 1));
	cJSON_AddItemToObject(nested, "empty_obj", cJSON_CreateObject());
	cJSON_AddItemToObject(nested, "empty_arr", cJSON_CreateArray());
	cJSON_AddItemToObject(nested, "t", cJSON_CreateTrue());
	cJSON_AddItemToObject(nested, "f", cJSON_CreateFalse());
	cJSON_AddItemToObject(nested, "n", cJSON_CreateNull());
	cJSON_AddItemToObject(nested, "nums", nums);
	cJSON_AddItemToObject(doc, "nested", nested);
	return doc;
}

static void assert_round_trip(const cJSON *in)
{
	char *yaml = emit_json(in);
	struct ystream s = YSTREAM_INIT;
	struct err e = ERR_INIT;
	cJSON *back = NULL;
	int r = yaml_parse(&s, yaml, strlen(yaml), "emitted.yaml", &e);

	ck_assert_msg(r == 0, "emitted YAML does not parse: %s\n%s",
		      err_msg(&e), yaml);
	ck_assert_uint_eq(s.nr, 1);
	ck_assert_msg(yaml_to_json(&back, s.docs[0].root, "emitted.yaml",
				   &e) == 0,
		      "yaml_to_json: %s\n%s", err_msg(&e), yaml);
	if (!cJSON_Compare(in, back, 1)) {
		char *a = json_text(in), *b = json_text(back);
		ck_abort_msg("round trip changed the value\n in: %s\nout: %s\n"
			     "--- yaml:\n%s",
			     a, b, yaml);
	}
	cJSON_Delete(back);
	ystream_release(&s);
	err_release(&e);
	free(yaml);
}

START_TEST(test_round_trip_document)
{
	cJSON *doc = tricky_document();

	assert_round_trip(doc);
	cJSON_Delete(doc);
}
END_TEST

/* each string alone, as a value, a key and a root: one failure per string
 * is easier to read than one for the whole document */
START_TEST(test_round_trip_each_string)
{
	for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
		cJSON *obj = cJSON_CreateObject();
		cJSON *root = cJSON_CreateString(tricky[i]);

		cJSON_AddStringToObject(obj, "v", tricky[i]);
		cJSON_AddStringToObject(obj, tricky[i], "k");
		assert_round_trip(obj);
		assert_round_trip(root);
		cJSON_Delete(obj);
		cJSON_Delete(root);
	}
}
END_TEST

/* an injected line never becomes a key of its own */
START_TEST(test_round_trip_no_injection)
{
	cJSON *in = cJSON_CreateObject();
	cJSON *out;
	char *yaml;

	cJSON_AddStringToObject(in, "name", "a\nkind: Secret\nmetadata: {}");
	cJSON_AddStringToObject(in, "other", "x: y");
	yaml = emit_json(in);
	out = json_of(yaml);
	ck_assert_int_eq(cJSON_GetArraySize(out), 2);
	ck_assert_ptr_null(cJSON_GetObjectItem(out, "kind"));
	ck_assert_ptr_null(cJSON_GetObjectItem(out, "metadata"));
	ck_assert_str_eq(cJSON_GetObjectItem(out, "name")->valuestring,
			 "a\nkind: Secret\nmetadata: {}");
	cJSON_Delete(in);
	cJSON_Delete(out);
	free(yaml);
}
END_TEST

/* ---- suite ------------------------------------------------------------- */

Suite *yaml_suite(void)
{
	Suite *s = suite_create("yaml");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_positions);
	tcase_add_test(tc, test_ynode_get);
	tcase_add_test(tc, test_parse_multi_document);
	tcase_add_test(tc, test_parse_empty_document_root_null);
	tcase_add_test(tc, test_parse_duplicate_key);
	tcase_add_test(tc, test_parse_same_key_in_different_maps);
	tcase_add_test(tc, test_parse_tags);
	tcase_add_test(tc, test_parse_aliases);
	tcase_add_test(tc, test_parse_non_scalar_key);
	tcase_add_test(tc, test_parse_syntax_error);
	suite_add_tcase(s, tc);

	/* these build and parse large inputs; slow under the sanitizers */
	tc = tcase_create("limits");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_parse_billion_laughs);
	tcase_add_test(tc, test_parse_aliases_within_budget);
	tcase_add_test(tc, test_parse_node_limit);
	tcase_add_test(tc, test_parse_input_limit);
	tcase_add_test(tc, test_parse_max_depth);
	suite_add_tcase(s, tc);

	tc = tcase_create("scalar");
	tcase_add_test(tc, test_scalar_kind);
	tcase_add_test(tc, test_scalar_bool);
	tcase_add_test(tc, test_scalar_underscore_is_string);
	suite_add_tcase(s, tc);

	tc = tcase_create("to_json");
	tcase_add_test(tc, test_to_json_types);
	tcase_add_test(tc, test_to_json_int_limit);
	tcase_add_test(tc, test_to_json_inf_nan_rejected);
	tcase_add_test(tc, test_to_json_float_overflow_rejected);
	tcase_add_test(tc, test_to_json_float_underscore);
	tcase_add_test(tc, test_to_json_tag_content_checked);
	suite_add_tcase(s, tc);

	tc = tcase_create("emit");
	tcase_add_test(tc, test_needs_quotes);
	tcase_add_test(tc, test_needs_quotes_yaml11_timestamp_sexagesimal);
	tcase_add_test(tc, test_emit_quoted_strings);
	tcase_add_test(tc, test_emit_plain_strings);
	tcase_add_test(tc, test_emit_block_literal);
	tcase_add_test(tc, test_emit_numbers_bools_null);
	tcase_add_test(tc, test_format_number);
	tcase_add_test(tc, test_format_number_reads_back);
	tcase_add_test(tc, test_emit_empty_collections);
	tcase_add_test(tc, test_emit_key_order);
	tcase_add_test(tc, test_emit_exact_document);
	tcase_add_test(tc, test_emit_scalar_roots);
	tcase_add_test(tc, test_emit_invalid_utf8_fails_cleanly);
	suite_add_tcase(s, tc);

	tc = tcase_create("roundtrip");
	tcase_add_test(tc, test_round_trip_document);
	tcase_add_test(tc, test_round_trip_each_string);
	tcase_add_test(tc, test_round_trip_no_injection);
	suite_add_tcase(s, tc);

	return s;
}

/* ---- regressions found by fuzzing (tests/fuzz/crashes/) ---------------- */

/* yaml-bigint-roundtrip: an integral float past 2^53 is written with a
 * fraction, so it reads back as the same number, not an out-of-range int */
START_TEST(test_fuzz_bigint_float_roundtrip)
{
	cJSON *j = cJSON_CreateObject();
	char *yaml;

	cJSON_AddNumberToObject(j, "a", 18014398509481984.0);
	yaml = emit_json(j);
	ck_assert_str_eq(yaml, "a: 18014398509481984.0\n");
	assert_round_trip(j);
	free(yaml);
	cJSON_Delete(j);
}
END_TEST

/* yaml-nul-key-roundtrip: "a\0b" and "a\0c" are different YAML keys but the
 * same C string: refuse NUL in keys and values instead of merging them */
START_TEST(test_fuzz_nul_in_keys_and_values)
{
	static const char k[] = "\"a\\0b\": 1\n\"a\\0c\": 2\n";
	static const char v[] = "a: \"x\\0y\"\n";
	struct ystream s = YSTREAM_INIT;
	struct err e = ERR_INIT;
	cJSON *j = NULL;

	ck_assert_int_eq(yaml_parse(&s, k, sizeof(k) - 1, "f", &e), 0);
	ck_assert_int_eq(yaml_to_json(&j, s.docs[0].root, "f", &e), -1);
	ck_assert(strstr(err_msg(&e), "NUL") != NULL);
	ystream_release(&s);
	ck_assert_int_eq(yaml_parse(&s, v, sizeof(v) - 1, "f", &e), 0);
	ck_assert_int_eq(yaml_to_json(&j, s.docs[0].root, "f", &e), -1);
	ck_assert(strstr(err_msg(&e), "NUL") != NULL);
	ystream_release(&s);
	err_release(&e);
}
END_TEST


/* yaml-underscore-number-roundtrip: "_1" is a string; written plain it
 * must still read back as the string */
START_TEST(test_fuzz_leading_underscore_is_string)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "a", "_1");
	cJSON_AddStringToObject(j, "b", "-_2.5");
	assert_round_trip(j);
	cJSON_Delete(j);
}
END_TEST

Suite *yaml_fuzz_regressions_suite(void);
Suite *yaml_fuzz_regressions_suite(void)
{
	Suite *s = suite_create("yaml_fuzz");
	TCase *tc = tcase_create("regressions");

	tcase_add_test(tc, test_fuzz_bigint_float_roundtrip);
	tcase_add_test(tc, test_fuzz_nul_in_keys_and_values);
	tcase_add_test(tc, test_fuzz_leading_underscore_is_string);
	suite_add_tcase(s, tc);
	return s;
}
