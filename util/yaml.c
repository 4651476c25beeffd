/*
 * util/yaml.c: YAML reader (libyaml events -> struct ynode with
 * positions) and emitter (cJSON -> libyaml events). The only libyaml user.
 *
 * libyaml returns 1 for success and 0 for failure; that convention does not
 * leave this file.
 */
#include "util/yaml.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "util/vec.h"
#include "util/xalloc.h"

/* ---- nodes ------------------------------------------------------------- */

static struct ynode *ynode_new(enum ynode_type type, const yaml_mark_t *m)
{
	struct ynode *n = xcalloc(1, sizeof(*n));
	n->type = type;
	n->line = (int)m->line + 1;
	n->col = (int)m->column + 1;
	return n;
}

void ynode_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nr; i++)
		ynode_free(n->kids[i]);
	free(n->kids);
	free(n->tag);
	free(n->value);
	free(n);
}

static void ynode_push(struct ynode *parent, struct ynode *kid)
{
	GROW(parent->kids, parent->nr + 1, parent->alloc);
	parent->kids[parent->nr++] = kid;
}

/* deep copy for alias expansion; counts nodes against *budget */
static struct ynode *ynode_copy(const struct ynode *n, size_t *budget)
{
	struct ynode *c;

	if (*budget == 0)
		return NULL;
	(*budget)--;
	c = xcalloc(1, sizeof(*c));
	c->type = n->type;
	c->line = n->line;
	c->col = n->col;
	c->plain = n->plain;
	c->tag = n->tag ? xstrdup(n->tag) : NULL;
	if (n->value) {
		c->value = xmalloc(n->len + 1);
		memcpy(c->value, n->value, n->len + 1);
		c->len = n->len;
	}
	for (size_t i = 0; i < n->nr; i++) {
		struct ynode *k = ynode_copy(n->kids[i], budget);
		if (!k) {
			ynode_free(c);
			return NULL;
		}
		ynode_push(c, k);
	}
	return c;
}

const struct ynode *ynode_get(const struct ynode *map, const char *key)
{
	size_t klen = strlen(key);

	if (!map || map->type != YNODE_MAP)
		return NULL;
	for (size_t i = 0; i + 1 < map->nr; i += 2) {
		const struct ynode *k = map->kids[i];
		if (k->type == YNODE_SCALAR && k->len == klen &&
		    !memcmp(k->value, key, klen))
			return map->kids[i + 1];
	}
	return NULL;
}

void ystream_release(struct ystream *s)
{
	for (size_t i = 0; i < s->nr; i++)
		ynode_free(s->docs[i].root);
	free(s->docs);
	s->docs = NULL;
	s->nr = s->alloc = 0;
}

/* ---- scalar resolution ------------------------------------------------- */

static int streq_any(const char *s, size_t len, const char *const *list)
{
	if (len > 6) /* the longest word in these lists is "+.Inf"/"false" */
		return 0;
	for (; *list; list++)
		if ((*list)[0] == s[0] && strlen(*list) == len &&
		    !memcmp(s, *list, len))
			return 1;
	return 0;
}

static const char *const null_words[] = { "~", "null", "Null", "NULL", NULL };
static const char *const true_words[] = { "true", "True", "TRUE", "yes",
					  "Yes", "YES", "on", "On", "ON",
					  "y", "Y", NULL };
static const char *const false_words[] = { "false", "False", "FALSE", "no",
					   "No", "NO", "off", "Off", "OFF",
					   "n", "N", NULL };
static const char *const float_words[] = { ".inf", ".Inf", ".INF", "+.inf",
					   "+.Inf", "+.INF", "-.inf", "-.Inf",
					   "-.INF", ".nan", ".NaN", ".NAN",
					   NULL };

static int is_int_text(const char *s, size_t len)
{
	size_t i = 0;

	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	/* a number starts with a digit: "_1" is a string (YAML 1.1 and 1.2) */
	if (i >= len || !isdigit((unsigned char)s[i]))
		return 0;
	if (len - i > 2 && s[i] == '0' &&
	    (s[i + 1] == 'x' || s[i + 1] == 'o' || s[i + 1] == 'b')) {
		char kind = s[i + 1];
		int digits = 0;
		i += 2;
		for (; i < len; i++) {
			char c = s[i];
			if (c == '_')
				continue;
			digits++;
			if (kind == 'x' ? !isxdigit((unsigned char)c)
			    : kind == 'o' ? (c < '0' || c > '7')
					  : (c != '0' && c != '1'))
				return 0;
		}
		return digits > 0;
	}
	{
		int digits = 0;
		for (; i < len; i++) {
			if (isdigit((unsigned char)s[i]))
				digits++;
			else if (s[i] != '_')
				return 0;
		}
		return digits > 0;
	}
}

static int is_float_text(const char *s, size_t len)
{
	size_t i = 0;
	int digits = 0;

	if (streq_any(s, len, float_words))
		return 1;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	if (i >= len || !(isdigit((unsigned char)s[i]) || s[i] == '.'))
		return 0;
	while (i < len && (isdigit((unsigned char)s[i]) || s[i] == '_')) {
		if (s[i] != '_')
			digits++;
		i++;
	}
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && isdigit((unsigned char)s[i])) {
			i++;
			digits++;
		}
	}
	if (!digits)
		return 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		int ed = 0;
		i++;
		if (i < len && (s[i] == '-' || s[i] == '+'))
			i++;
		while (i < len && isdigit((unsigned char)s[i])) {
			i++;
			ed++;
		}
		if (!ed)
			return 0;
	}
	/* sexagesimal (YAML 1.1) like 1:30 also reads as a number there */
	return i == len;
}

/* YAML 1.1 timestamp: starts YYYY-M[M]-D[D] */
static int is_timestamp(const char *s, size_t len)
{
	if (len < 8)
		return 0;
	for (size_t i = 0; i < 4; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return s[4] == '-' && isdigit((unsigned char)s[5]);
}

static int is_sexagesimal(const char *s, size_t len)
{
	int colon = 0;

	if (len && (s[0] == '+' || s[0] == '-')) {
		s++;
		len--;
	}
	if (!len || !isdigit((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == ':')
			colon = 1;
		else if (!isdigit((unsigned char)s[i]) && s[i] != '.' &&
			 s[i] != '_')
			return 0;
	}
	return colon;
}

static int tag_mismatch(const struct ynode *n);

enum yscalar_kind yaml_scalar_kind(const struct ynode *n)
{
	if (n->type != YNODE_SCALAR)
		return YS_STRING;
	if (n->tag && tag_mismatch(n))
		return YS_STRING; /* "!!bool maybe" is no boolean */
	if (n->tag) {
		if (!strcmp(n->tag, YAML_STR_TAG))
			return YS_STRING;
		if (!strcmp(n->tag, YAML_NULL_TAG))
			return YS_NULL;
		if (!strcmp(n->tag, YAML_BOOL_TAG))
			return YS_BOOL;
		if (!strcmp(n->tag, YAML_INT_TAG))
			return YS_INT;
		if (!strcmp(n->tag, YAML_FLOAT_TAG))
			return YS_FLOAT;
	}
	if (!n->plain)
		return YS_STRING;
	if (n->len == 0 || streq_any(n->value, n->len, null_words))
		return YS_NULL;
	if (streq_any(n->value, n->len, true_words) ||
	    streq_any(n->value, n->len, false_words))
		return YS_BOOL;
	if (is_int_text(n->value, n->len))
		return YS_INT;
	if (is_float_text(n->value, n->len))
		return YS_FLOAT;
	return YS_STRING;
}

int yaml_scalar_bool(const struct ynode *n)
{
	return streq_any(n->value, n->len, true_words);
}

int yaml_plain_needs_quotes(const char *s, size_t len)
{
	unsigned char c0;

	if (len == 0)
		return 1;
	/* every word a resolver could read as null/bool/number/timestamp
	 * starts with one of these characters: skip the checks otherwise
	 * (this runs for every key and string gpuform writes) */
	c0 = (unsigned char)s[0];
	if ((isdigit(c0) || strchr("+-.~nNtTfFyYoO", c0)) &&
	    (streq_any(s, len, null_words) || streq_any(s, len, true_words) ||
	     streq_any(s, len, false_words) || is_int_text(s, len) ||
	     is_float_text(s, len) || is_sexagesimal(s, len) ||
	     is_timestamp(s, len)))
		return 1;
	/* leading/trailing space, or starting like an indicator */
	if (isspace((unsigned char)s[0]) || isspace((unsigned char)s[len - 1]))
		return 1;
	if (strchr("-?:,[]{}#&*!|>'\"%@`=<", s[0]))
		return 1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return 1;
		if (c == '#' && i > 0 && s[i - 1] == ' ')
			return 1;
		if (c == ':' && (i + 1 == len || s[i + 1] == ' '))
			return 1;
	}
	return 0;
}

/* ---- parser ------------------------------------------------------------ */

struct anchor {
	char *name;
	struct ynode *node; /* borrowed: owned by the tree */
};

struct parse_state {
	const char *file;
	struct ynode **stack; /* open collections */
	size_t depth, alloc;
	struct anchor *anchors;
	size_t nanchors, anchors_alloc;
	char **pending_anchor; /* anchor name for each open collection */
	size_t budget;         /* nodes still allowed */
	struct ynode *root;
};

static int key_cmp(const void *a, const void *b)
{
	const struct ynode *x = *(const struct ynode *const *)a;
	const struct ynode *y = *(const struct ynode *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->value, y->value, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	/* equal keys: the later one (greater position) sorts after */
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->col < y->col ? -1 : (x->col > y->col);
}

static int check_duplicate_keys(const struct ynode *map, const char *file,
				struct err *err)
{
	size_t n = map->nr / 2;
	const struct ynode **keys;
	int ret = 0;

	if (n < 2)
		return 0;
	keys = xmalloc(st_mul(n, sizeof(*keys)));
	for (size_t i = 0; i < n; i++)
		keys[i] = map->kids[2 * i];
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (size_t i = 1; i < n; i++)
		if (keys[i]->len == keys[i - 1]->len &&
		    !memcmp(keys[i]->value, keys[i - 1]->value, keys[i]->len)) {
			ret = err_set(err, ERR_INVALID,
				      "%s:%d:%d: duplicate key '%.*s' (first "
				      "at line %d); remove one of them",
				      file, keys[i]->line, keys[i]->col,
				      (int)(keys[i]->len > 80 ? 80
							      : keys[i]->len),
				      keys[i]->value, keys[i - 1]->line);
			break;
		}
	free(keys);
	return ret;
}

static void remember_anchor(struct parse_state *ps, const char *name,
			    struct ynode *node)
{
	/* a later anchor with the same name replaces the earlier one */
	for (size_t i = 0; i < ps->nanchors; i++)
		if (!strcmp(ps->anchors[i].name, name)) {
			ps->anchors[i].node = node;
			return;
		}
	GROW(ps->anchors, ps->nanchors + 1, ps->anchors_alloc);
	ps->anchors[ps->nanchors].name = xstrdup(name);
	ps->anchors[ps->nanchors].node = node;
	ps->nanchors++;
}

/* attach a finished node to the open collection (or make it the root) */
static int attach(struct parse_state *ps, struct ynode *n, struct err *err)
{
	struct ynode *parent;

	if (ps->depth == 0) {
		ps->root = n;
		return 0;
	}
	parent = ps->stack[ps->depth - 1];
	if (parent->type == YNODE_MAP && parent->nr % 2 == 0 &&
	    n->type != YNODE_SCALAR) {
		int line = n->line, col = n->col;
		ynode_free(n);
		return err_set(err, ERR_INVALID,
			       "%s:%d:%d: a mapping key must be a plain "
			       "value, not a list or mapping",
			       ps->file, line, col);
	}
	ynode_push(parent, n);
	return 0;
}

static int start_collection(struct parse_state *ps, enum ynode_type type,
			    const yaml_event_t *ev, const yaml_char_t *anchor,
			    const yaml_char_t *tag, struct err *err)
{
	struct ynode *n;

	if (ps->depth >= YAML_MAX_DEPTH)
		return err_set(err, ERR_INVALID,
			       "%s:%zu:%zu: nesting deeper than %d levels; "
			       "flatten the document",
			       ps->file, ev->start_mark.line + 1,
			       ev->start_mark.column + 1, YAML_MAX_DEPTH);
	if (ps->budget == 0)
		return err_set(err, ERR_INVALID,
			       "%s:%zu:%zu: more than %d nodes; the document "
			       "is too large",
			       ps->file, ev->start_mark.line + 1,
			       ev->start_mark.column + 1, YAML_MAX_NODES);
	ps->budget--;
	n = ynode_new(type, &ev->start_mark);
	if (tag)
		n->tag = xstrdup((const char *)tag);
	GROW(ps->stack, ps->depth + 1, ps->alloc);
	ps->pending_anchor = xrealloc(ps->pending_anchor,
				      st_mul(ps->alloc, sizeof(char *)));
	ps->stack[ps->depth] = n;
	ps->pending_anchor[ps->depth] =
		anchor ? xstrdup((const char *)anchor) : NULL;
	ps->depth++;
	return 0;
}

static int end_collection(struct parse_state *ps, struct err *err)
{
	struct ynode *n = ps->stack[--ps->depth];
	char *anchor = ps->pending_anchor[ps->depth];

	if (n->type == YNODE_MAP && check_duplicate_keys(n, ps->file, err) < 0) {
		free(anchor);
		ynode_free(n);
		return -1;
	}
	if (attach(ps, n, err) < 0) {
		free(anchor);
		return -1;
	}
	if (anchor) {
		remember_anchor(ps, anchor, n);
		free(anchor);
	}
	return 0;
}

static int check_tag(struct parse_state *ps, const yaml_char_t *tag,
		     const yaml_mark_t *m, struct err *err)
{
	static const char *const ok[] = { YAML_STR_TAG, YAML_INT_TAG,
					  YAML_FLOAT_TAG, YAML_BOOL_TAG,
					  YAML_NULL_TAG, YAML_MAP_TAG,
					  YAML_SEQ_TAG, "!", NULL };
	if (!tag)
		return 0;
	for (const char *const *p = ok; *p; p++)
		if (!strcmp((const char *)tag, *p))
			return 0;
	return err_set(err, ERR_INVALID,
		       "%s:%zu:%zu: unsupported YAML tag '%.80s'; remove the "
		       "tag (only the standard !!str, !!int, !!float, !!bool, "
		       "!!null, !!map and !!seq are accepted)",
		       ps->file, m->line + 1, m->column + 1, (const char *)tag);
}

static void parse_state_release(struct parse_state *ps)
{
	for (size_t i = ps->depth; i > 0; i--) {
		free(ps->pending_anchor[i - 1]);
		ynode_free(ps->stack[i - 1]);
	}
	free(ps->stack);
	free(ps->pending_anchor);
	for (size_t i = 0; i < ps->nanchors; i++)
		free(ps->anchors[i].name);
	free(ps->anchors);
	ynode_free(ps->root);
	memset(ps, 0, sizeof(*ps));
}

static void reset_document(struct parse_state *ps)
{
	/* anchors do not cross documents */
	for (size_t i = 0; i < ps->nanchors; i++)
		free(ps->anchors[i].name);
	ps->nanchors = 0;
	ps->root = NULL;
}

/*
 * A libyaml error with the most useful position: reader errors (NUL bytes,
 * invalid UTF-8) carry only a byte offset; an unclosed quote or flow
 * collection is best shown where it was opened (context_mark), with the
 * place the problem was noticed in the message.
 */
static void report_parse_error(const yaml_parser_t *p, const char *data,
			       size_t len, const char *file, struct err *err)
{
	const char *problem = p->problem ? p->problem : "invalid YAML";

	if (p->error == YAML_READER_ERROR) {
		size_t line = 1, col = 1, off = p->problem_offset;
		for (size_t i = 0; i < off && i < len; i++) {
			if (data[i] == '\n') {
				line++;
				col = 1;
			} else if (((unsigned char)data[i] & 0xc0) != 0x80) {
				col++;
			}
		}
		err_set(err, ERR_INVALID, "%s:%zu:%zu: %s (byte 0x%02x); the file "
					  "must be UTF-8 text without NUL bytes",
			file, line, col, problem,
			off < len ? (unsigned char)data[off] : 0);
		return;
	}
	if (p->context && (!strncmp(p->context, "while scanning a quoted", 23) ||
			   !strncmp(p->context, "while parsing a flow", 20)) &&
	    p->context_mark.line != p->problem_mark.line) {
		err_set(err, ERR_INVALID,
			"%s:%zu:%zu: not closed: %s that starts here, %s at "
			"line %zu, column %zu",
			file, p->context_mark.line + 1, p->context_mark.column + 1,
			p->context, problem, p->problem_mark.line + 1,
			p->problem_mark.column + 1);
		return;
	}
	err_set(err, ERR_INVALID, "%s:%zu:%zu: %s%s%s%s", file,
		p->problem_mark.line + 1, p->problem_mark.column + 1, problem,
		p->context ? " (" : "", p->context ? p->context : "",
		p->context ? ")" : "");
}

/* a scalar event: a new node, attached (and remembered under its anchor) */
static int on_scalar(struct parse_state *ps, const yaml_event_t *ev,
		     struct err *err)
{
	struct ynode *n;

	if (check_tag(ps, ev->data.scalar.tag, &ev->start_mark, err) < 0)
		return -1;
	if (ps->budget == 0)
		return err_set(err, ERR_INVALID,
			       "%s:%zu:%zu: more than %d nodes; the document "
			       "is too large",
			       ps->file, ev->start_mark.line + 1,
			       ev->start_mark.column + 1, YAML_MAX_NODES);
	ps->budget--;
	n = ynode_new(YNODE_SCALAR, &ev->start_mark);
	n->len = ev->data.scalar.length;
	n->value = xmalloc(n->len + 1);
	memcpy(n->value, ev->data.scalar.value, n->len);
	n->value[n->len] = '\0';
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
		   ev->data.scalar.plain_implicit;
	if (ev->data.scalar.tag &&
	    strcmp((const char *)ev->data.scalar.tag, "!"))
		n->tag = xstrdup((const char *)ev->data.scalar.tag);
	else if (ev->data.scalar.tag)
		n->plain = 0; /* "!" forces a string */
	if (attach(ps, n, err) < 0)
		return -1;
	if (ev->data.scalar.anchor)
		remember_anchor(ps, (const char *)ev->data.scalar.anchor, n);
	return 0;
}

/* an alias event: a copy of the anchored node, within the node budget */
static int on_alias(struct parse_state *ps, const yaml_event_t *ev,
		    struct err *err)
{
	const char *name = (const char *)ev->data.alias.anchor;
	struct ynode *src = NULL, *copy;

	for (size_t i = 0; i < ps->nanchors; i++)
		if (!strcmp(ps->anchors[i].name, name))
			src = ps->anchors[i].node;
	if (!src)
		return err_set(err, ERR_INVALID,
			       "%s:%zu:%zu: unknown alias '*%.80s'", ps->file,
			       ev->start_mark.line + 1,
			       ev->start_mark.column + 1, name);
	copy = ynode_copy(src, &ps->budget);
	if (!copy)
		return err_set(err, ERR_INVALID,
			       "%s:%zu:%zu: alias '*%.80s' expands past the "
			       "limit of %d nodes; avoid nested aliases",
			       ps->file, ev->start_mark.line + 1,
			       ev->start_mark.column + 1, name,
			       YAML_MAX_NODES);
	copy->line = (int)ev->start_mark.line + 1;
	copy->col = (int)ev->start_mark.column + 1;
	return attach(ps, copy, err);
}

int yaml_parse(struct ystream *out, const char *data, size_t len,
	       const char *file, struct err *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct parse_state ps;
	struct ystream s = YSTREAM_INIT;
	int done = 0, ret = -1;
	int doc_line = 1, doc_col = 1;

	memset(&ps, 0, sizeof(ps));
	ps.file = file;
	ps.budget = YAML_MAX_NODES;
	if (len > YAML_MAX_INPUT)
		return err_set(err, ERR_INVALID,
			       "%s: larger than the limit of %u bytes", file,
			       YAML_MAX_INPUT);
	if (!yaml_parser_initialize(&parser))
		return err_set(err, ERR_INTERNAL, "cannot initialise libyaml");
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);

	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			report_parse_error(&parser, data, len, file, err);
			goto out;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			doc_line = (int)ev.start_mark.line + 1;
			doc_col = (int)ev.start_mark.column + 1;
			break;
		case YAML_DOCUMENT_END_EVENT:
			if (ps.root && ps.root->type == YNODE_SCALAR &&
			    ps.root->plain && !ps.root->tag && ps.root->len == 0) {
				/* an empty document: libyaml gives an empty
				 * plain scalar; there is no node */
				ynode_free(ps.root);
				ps.root = NULL;
			}
			GROW(s.docs, s.nr + 1, s.alloc);
			s.docs[s.nr].root = ps.root;
			s.docs[s.nr].line = doc_line;
			s.docs[s.nr].col = doc_col;
			s.nr++;
			reset_document(&ps);
			break;
		case YAML_SCALAR_EVENT:
			if (on_scalar(&ps, &ev, err) < 0)
				goto fail_event;
			break;
		case YAML_ALIAS_EVENT:
			if (on_alias(&ps, &ev, err) < 0)
				goto fail_event;
			break;
		case YAML_SEQUENCE_START_EVENT:
			if (check_tag(&ps, ev.data.sequence_start.tag,
				      &ev.start_mark, err) < 0 ||
			    start_collection(&ps, YNODE_SEQ, &ev,
					     ev.data.sequence_start.anchor,
					     ev.data.sequence_start.tag,
					     err) < 0)
				goto fail_event;
			break;
		case YAML_MAPPING_START_EVENT:
			if (check_tag(&ps, ev.data.mapping_start.tag,
				      &ev.start_mark, err) < 0 ||
			    start_collection(&ps, YNODE_MAP, &ev,
					     ev.data.mapping_start.anchor,
					     ev.data.mapping_start.tag,
					     err) < 0)
				goto fail_event;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (end_collection(&ps, err) < 0)
				goto fail_event;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	*out = s;
	memset(&s, 0, sizeof(s));
	ret = 0;
	goto out;
fail_event:
	yaml_event_delete(&ev);
out:
	yaml_parser_delete(&parser);
	parse_state_release(&ps);
	ystream_release(&s);
	return ret;
}

/* ---- ynode -> cJSON ---------------------------------------------------- */

/* an explicit !!bool/!!int/!!float/!!null tag on text of another kind */
static int tag_mismatch(const struct ynode *n)
{
	if (!n->tag)
		return 0;
	if (!strcmp(n->tag, YAML_BOOL_TAG))
		return !streq_any(n->value, n->len, true_words) &&
		       !streq_any(n->value, n->len, false_words);
	if (!strcmp(n->tag, YAML_INT_TAG))
		return !is_int_text(n->value, n->len);
	if (!strcmp(n->tag, YAML_FLOAT_TAG))
		return !is_float_text(n->value, n->len) &&
		       !is_int_text(n->value, n->len);
	if (!strcmp(n->tag, YAML_NULL_TAG))
		return n->len && !streq_any(n->value, n->len, null_words);
	return 0;
}

/* parse_yaml_int: decimal/0x/0o/0b with '_' separators; |v| <= 2^53 */
static int parse_yaml_int(const char *text, double *out)
{
	const char *s = text;
	unsigned long long v = 0, base = 10;
	int neg = 0, digits = 0;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b')) {
		base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
		s += 2;
	}
	for (; *s; s++) {
		unsigned d;
		if (*s == '_')
			continue;
		if (isdigit((unsigned char)*s))
			d = (unsigned)(*s - '0');
		else
			d = (unsigned)(tolower((unsigned char)*s) - 'a') + 10;
		if (d >= base)
			return -1;
		v = v * base + d;
		if (v > (1ULL << 53))
			return -1;
		digits++;
	}
	if (!digits)
		return -1;
	*out = neg ? -(double)v : (double)v;
	return 0;
}

int yaml_to_json(cJSON **out, const struct ynode *n, const char *file,
		 struct err *err)
{
	cJSON *j = NULL;

	*out = NULL;
	if (!n) {
		*out = cJSON_CreateNull();
		return 0;
	}
	switch (n->type) {
	case YNODE_MAP:
		j = cJSON_CreateObject();
		for (size_t i = 0; i + 1 < n->nr; i += 2) {
			cJSON *v;
			if (memchr(n->kids[i]->value, '\0', n->kids[i]->len)) {
				cJSON_Delete(j);
				return err_set(err, ERR_INVALID,
					       "%s:%d:%d: a key contains a NUL "
					       "character",
					       file, n->kids[i]->line,
					       n->kids[i]->col);
			}
			if (yaml_to_json(&v, n->kids[i + 1], file, err) < 0) {
				cJSON_Delete(j);
				return -1;
			}
			cJSON_AddItemToObject(j, n->kids[i]->value, v);
		}
		break;
	case YNODE_SEQ:
		j = cJSON_CreateArray();
		for (size_t i = 0; i < n->nr; i++) {
			cJSON *v;
			if (yaml_to_json(&v, n->kids[i], file, err) < 0) {
				cJSON_Delete(j);
				return -1;
			}
			cJSON_AddItemToArray(j, v);
		}
		break;
	case YNODE_SCALAR:
		if (memchr(n->value, '\0', n->len))
			return err_set(err, ERR_INVALID,
				       "%s:%d:%d: a value contains a NUL character",
				       file, n->line, n->col);
		if (tag_mismatch(n))
			return err_set(err, ERR_INVALID,
				       "%s:%d:%d: '%.40s' is not a valid %s",
				       file, n->line, n->col, n->value, n->tag);
		switch (yaml_scalar_kind(n)) {
		case YS_NULL:
			j = cJSON_CreateNull();
			break;
		case YS_BOOL:
			j = cJSON_CreateBool(yaml_scalar_bool(n));
			break;
		case YS_INT: {
			double v;
			if (parse_yaml_int(n->value, &v) < 0)
				return err_set(err, ERR_INVALID,
					       "%s:%d:%d: integer '%.40s' is "
					       "out of range (beyond 2^53); "
					       "write it as a quoted string",
					       file, n->line, n->col, n->value);
			j = cJSON_CreateNumber(v);
			break;
		}
		case YS_FLOAT: {
			double v;
			if (strstr(n->value, "inf") || strstr(n->value, "Inf") ||
			    strstr(n->value, "INF") || strstr(n->value, "nan") ||
			    strstr(n->value, "NaN") || strstr(n->value, "NAN"))
				return err_set(err, ERR_INVALID,
					       "%s:%d:%d: '%s' has no JSON "
					       "equivalent; use a finite "
					       "number",
					       file, n->line, n->col, n->value);
			{
				char *clean = xmalloc(n->len + 1);
				size_t k = 0;
				for (size_t c = 0; c < n->len; c++)
					if (n->value[c] != '_')
						clean[k++] = n->value[c];
				clean[k] = '\0';
				v = strtod(clean, NULL);
				free(clean);
			}
			if (isinf(v) || isnan(v))
				return err_set(err, ERR_INVALID,
					       "%s:%d:%d: '%.40s' is too large "
					       "for a number",
					       file, n->line, n->col, n->value);
			j = cJSON_CreateNumber(v);
			break;
		}
		default:
			j = cJSON_CreateString(n->value);
			break;
		}
		break;
	}
	*out = j;
	return 0;
}

/* ---- emitter ----------------------------------------------------------- */

void yaml_format_number(struct buf *out, double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		buf_addf(out, "%lld", (long long)v);
	else {
		char tmp[64];
		/* shortest representation that reads back to the same double */
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
			if (strtod(tmp, NULL) == v)
				break;
		}
		buf_adds(out, tmp);
		/* an integral value past 2^53 must still read back as a
		 * number with a fraction, not as an out-of-range integer */
		if (!strpbrk(tmp, ".eE"))
			buf_adds(out, ".0");
	}
}

struct emit_ctx {
	yaml_emitter_t em;
	struct buf *out;
	struct err *err;
};

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	struct emit_ctx *c = data;
	return buf_add(c->out, buffer, size) == 0;
}

static int emit(struct emit_ctx *c, yaml_event_t *ev)
{
	if (!yaml_emitter_emit(&c->em, ev))
		return err_set(c->err, ERR_INTERNAL, "cannot emit YAML: %s",
			       c->em.problem ? c->em.problem : "unknown");
	return 0;
}

static int emit_scalar(struct emit_ctx *c, const char *s, size_t len,
		       yaml_scalar_style_t style)
{
	yaml_event_t ev;

	if (!yaml_scalar_event_initialize(&ev, NULL, NULL,
					  (yaml_char_t *)(uintptr_t)s, (int)len,
					  1, 1, style))
		return err_set(c->err, ERR_INVALID,
			       "cannot write the string '%.40s' as YAML: it is "
			       "not valid UTF-8",
			       s);
	return emit(c, &ev);
}

static int emit_node(struct emit_ctx *c, const cJSON *j)
{
	yaml_event_t ev;

	if (cJSON_IsObject(j)) {
		const cJSON *kid;
		int flow = j->child == NULL;
		yaml_mapping_start_event_initialize(
			&ev, NULL, NULL, 1,
			flow ? YAML_FLOW_MAPPING_STYLE
			     : YAML_BLOCK_MAPPING_STYLE);
		if (emit(c, &ev) < 0)
			return -1;
		cJSON_ArrayForEach(kid, j)
		{
			const char *k = kid->string ? kid->string : "";
			if (emit_scalar(c, k, strlen(k),
					yaml_plain_needs_quotes(k, strlen(k))
						? YAML_DOUBLE_QUOTED_SCALAR_STYLE
						: YAML_PLAIN_SCALAR_STYLE) < 0 ||
			    emit_node(c, kid) < 0)
				return -1;
		}
		yaml_mapping_end_event_initialize(&ev);
		return emit(c, &ev);
	}
	if (cJSON_IsArray(j)) {
		const cJSON *kid;
		int flow = j->child == NULL;
		yaml_sequence_start_event_initialize(
			&ev, NULL, NULL, 1,
			flow ? YAML_FLOW_SEQUENCE_STYLE
			     : YAML_BLOCK_SEQUENCE_STYLE);
		if (emit(c, &ev) < 0)
			return -1;
		cJSON_ArrayForEach(kid, j)
		{
			if (emit_node(c, kid) < 0)
				return -1;
		}
		yaml_sequence_end_event_initialize(&ev);
		return emit(c, &ev);
	}
	if (cJSON_IsString(j)) {
		const char *s = j->valuestring;
		size_t len = strlen(s);
		yaml_scalar_style_t style = YAML_PLAIN_SCALAR_STYLE;
		if (memchr(s, '\n', len) && len > 1)
			style = YAML_LITERAL_SCALAR_STYLE;
		else if (yaml_plain_needs_quotes(s, len))
			style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
		return emit_scalar(c, s, len, style);
	}
	if (cJSON_IsNumber(j)) {
		struct buf b = BUF_INIT;
		int r;
		yaml_format_number(&b, j->valuedouble);
		r = emit_scalar(c, buf_cstr(&b), b.len, YAML_PLAIN_SCALAR_STYLE);
		buf_release(&b);
		return r;
	}
	if (cJSON_IsBool(j))
		return emit_scalar(c, cJSON_IsTrue(j) ? "true" : "false",
				   cJSON_IsTrue(j) ? 4 : 5,
				   YAML_PLAIN_SCALAR_STYLE);
	return emit_scalar(c, "null", 4, YAML_PLAIN_SCALAR_STYLE);
}

int yaml_emit(struct buf *out, const cJSON *doc, struct err *err)
{
	struct emit_ctx c;
	yaml_event_t ev;
	int ret = -1;

	c.out = out;
	c.err = err;
	if (!yaml_emitter_initialize(&c.em))
		return err_set(err, ERR_INTERNAL, "cannot initialise libyaml");
	yaml_emitter_set_output(&c.em, write_handler, &c);
	yaml_emitter_set_unicode(&c.em, 1);
	yaml_emitter_set_width(&c.em, -1);
	yaml_emitter_set_indent(&c.em, 2);

	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (emit(&c, &ev) < 0)
		goto out;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	if (emit(&c, &ev) < 0)
		goto out;
	if (emit_node(&c, doc) < 0)
		goto out;
	yaml_document_end_event_initialize(&ev, 1);
	if (emit(&c, &ev) < 0)
		goto out;
	yaml_stream_end_event_initialize(&ev);
	if (emit(&c, &ev) < 0)
		goto out;
	if (!yaml_emitter_flush(&c.em)) {
		err_set(err, ERR_INTERNAL, "cannot flush YAML output");
		goto out;
	}
	ret = 0;
out:
	yaml_emitter_delete(&c.em);
	return ret;
}
