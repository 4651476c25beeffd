/*
 * generator/tmpl.c: template loading and substitution (see tmpl.h).
 */
#include "generator/tmpl.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "generator/embedded.h"
#include "util/yaml.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"

#define TMPL_MAX 64

/* constant subtrees of a template (no "${" anywhere below), converted to
 * cJSON once at load and copied at render time: keyed by node address */
struct const_slot {
	const struct ynode *node;
	cJSON *value;
};

struct tmpl {
	char *name;
	char *file; /* for messages */
	struct ystream ys;
	struct const_slot *consts;
	size_t cap;
};

struct tmpl_set {
	struct tmpl t[TMPL_MAX];
	size_t nr;
};

static const char *names_cache[TMPL_MAX + 1];
static char names_buf[TMPL_MAX][64];

const char *const *tmpl_names(void)
{
	size_t n = 0;

	if (names_cache[0])
		return names_cache;
	for (const struct embedded_file *e = embedded_files; e->path; e++) {
		const char *base;
		size_t len;
		if (strncmp(e->path, "templates/", 10) || n >= TMPL_MAX)
			continue;
		base = e->path + 10;
		len = strcspn(base, ".");
		if (len >= sizeof(names_buf[0]))
			len = sizeof(names_buf[0]) - 1;
		memcpy(names_buf[n], base, len);
		names_buf[n][len] = '\0';
		names_cache[n] = names_buf[n];
		n++;
	}
	names_cache[n] = NULL;
	return names_cache;
}

static size_t ptr_hash(const void *p, size_t cap)
{
	return ((uintptr_t)p >> 4) * 11400714819323198485ULL >> 7 & (cap - 1);
}

static const cJSON *const_lookup(const struct tmpl *t, const struct ynode *n)
{
	if (!t->cap)
		return NULL;
	for (size_t h = ptr_hash(n, t->cap);; h = (h + 1) & (t->cap - 1)) {
		if (!t->consts[h].node)
			return NULL;
		if (t->consts[h].node == n)
			return t->consts[h].value;
	}
}

static size_t count_nodes(const struct ynode *n)
{
	size_t c = 1;
	for (size_t i = 0; i < n->nr; i++)
		c += count_nodes(n->kids[i]);
	return c;
}

/* returns 1 if the subtree has a substitution; records maximal constant
 * subtrees (their cJSON form) in t->consts */
static int find_consts(struct tmpl *t, const struct ynode *n, int *bad,
		       struct err *err)
{
	int var = 0;

	if (n->type == YNODE_SCALAR)
		var = strstr(n->value, "${") != NULL;
	else
		for (size_t i = 0; i < n->nr; i++)
			var |= find_consts(t, n->kids[i], bad, err);
	if (var || *bad)
		return 1;
	/* constant: record it, and drop its constant children (the parent
	 * entry covers them) — they stay, harmlessly, as unused entries */
	{
		cJSON *v = NULL;
		size_t h;
		if (yaml_to_json(&v, n, t->file, err) < 0) {
			*bad = 1;
			return 1;
		}
		for (h = ptr_hash(n, t->cap); t->consts[h].node;
		     h = (h + 1) & (t->cap - 1))
			;
		t->consts[h].node = n;
		t->consts[h].value = v;
	}
	return 0;
}

static void consts_free(struct tmpl *t)
{
	for (size_t i = 0; i < t->cap; i++)
		cJSON_Delete(t->consts[i].value);
	free(t->consts);
	t->consts = NULL;
	t->cap = 0;
}

static int load_one(struct tmpl *t, const char *name, const char *file,
		    const char *data, size_t len, struct err *err)
{
	if (yaml_parse(&t->ys, data, len, file, err) < 0)
		return err_wrap(err, "template '%s'", name);
	if (t->ys.nr != 1 || !t->ys.docs[0].root) {
		ystream_release(&t->ys);
		return err_set(err, ERR_INVALID,
			       "%s: a template must hold exactly one YAML "
			       "document",
			       file);
	}
	t->name = xstrdup(name);
	t->file = xstrdup(file);
	{
		int bad = 0;
		size_t n = count_nodes(t->ys.docs[0].root);
		t->cap = 16;
		while (t->cap < 2 * n + 1)
			t->cap *= 2;
		t->consts = xcalloc(t->cap, sizeof(*t->consts));
		find_consts(t, t->ys.docs[0].root, &bad, err);
		if (bad) {
			consts_free(t);
			ystream_release(&t->ys);
			free(t->name);
			free(t->file);
			return -1;
		}
	}
	return 0;
}

int tmpl_set_load(struct tmpl_set **out, const char *dir, struct err *err)
{
	struct tmpl_set *set = xcalloc(1, sizeof(*set));
	struct stat st;

	*out = NULL;
	if (dir && (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))) {
		err_set(err, ERR_INVALID,
			"templates directory '%s' does not exist", dir);
		goto fail;
	}
	for (const struct embedded_file *e = embedded_files; e->path; e++) {
		const char *base;
		char *name, *path = NULL;
		struct buf data = BUF_INIT;
		int r;

		if (strncmp(e->path, "templates/", 10))
			continue;
		if (set->nr >= TMPL_MAX)
			BUG("more than %d templates", TMPL_MAX);
		base = e->path + 10;
		name = xstrndup(base, strcspn(base, "."));
		if (dir) {
			path = xasprintf("%s/%s", dir, base);
			if (stat(path, &st) < 0) {
				free(path);
				path = NULL;
			}
		}
		if (path) {
			if (fs_read_file(&data, path, YAML_MAX_INPUT, err) < 0) {
				free(name);
				free(path);
				goto fail;
			}
			r = load_one(&set->t[set->nr], name, path,
				     buf_cstr(&data), data.len, err);
		} else {
			r = load_one(&set->t[set->nr], name, e->path, e->data,
				     e->len, err);
		}
		buf_release(&data);
		free(path);
		free(name);
		if (r < 0)
			goto fail;
		set->nr++;
	}
	*out = set;
	return 0;
fail:
	tmpl_set_free(set);
	return -1;
}

void tmpl_set_free(struct tmpl_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->nr; i++) {
		free(set->t[i].name);
		free(set->t[i].file);
		consts_free(&set->t[i]);
		ystream_release(&set->t[i].ys);
	}
	free(set);
}

/* ---- substitution -------------------------------------------------------- */

static const cJSON *lookup(const cJSON *ctx, const char *path, size_t len)
{
	const cJSON *cur = ctx;
	char key[128];

	while (len && cur) {
		size_t k = 0;
		while (k < len && path[k] != '.')
			k++;
		if (k >= sizeof(key))
			return NULL;
		memcpy(key, path, k);
		key[k] = '\0';
		cur = cJSON_IsObject(cur)
			      ? cJSON_GetObjectItemCaseSensitive(cur, key)
			      : NULL;
		path += k;
		len -= k;
		if (len && *path == '.') {
			path++;
			len--;
		}
	}
	return cur;
}

struct walk {
	const struct tmpl *t;
	const char *file;
	const cJSON *ctx;
	struct err *err;
};

/* returns 0 with *out == NULL for "absent" */
static int subst(cJSON **out, const struct ynode *n, struct walk *w);

static int interpolate(cJSON **out, const struct ynode *n, struct walk *w)
{
	struct buf b = BUF_INIT;
	const char *s = n->value;

	while (*s) {
		const char *open = strstr(s, "${"), *close;
		const cJSON *v;
		if (!open) {
			buf_adds(&b, s);
			break;
		}
		close = strchr(open, '}');
		if (!close) {
			buf_release(&b);
			return err_set(w->err, ERR_INVALID,
				       "%s:%d:%d: unterminated '${' in "
				       "template",
				       w->file, n->line, n->col);
		}
		buf_add(&b, s, (size_t)(open - s));
		v = lookup(w->ctx, open + 2, (size_t)(close - open - 2));
		if (cJSON_IsString(v))
			buf_adds(&b, v->valuestring);
		else if (cJSON_IsNumber(v))
			yaml_format_number(&b, v->valuedouble);
		else {
			buf_release(&b);
			return err_set(w->err, ERR_INVALID,
				       "%s:%d:%d: '%.*s' has no text value "
				       "to put here",
				       w->file, n->line, n->col,
				       (int)(close - open + 1), open);
		}
		s = close + 1;
	}
	*out = cJSON_CreateString(buf_cstr(&b));
	buf_release(&b);
	return 0;
}

static int subst(cJSON **out, const struct ynode *n, struct walk *w)
{
	const cJSON *c = const_lookup(w->t, n);

	*out = NULL;
	if (c) {
		*out = cJSON_Duplicate(c, 1);
		return 0;
	}
	if (n->type == YNODE_MAP) {
		cJSON *obj = cJSON_CreateObject();
		for (size_t i = 0; i < YNODE_MAP_LEN(n); i++) {
			const struct ynode *k = YNODE_KEY(n, i);
			cJSON *v;
			if (strstr(k->value, "${")) {
				cJSON_Delete(obj);
				return err_set(w->err, ERR_INVALID,
					       "%s:%d:%d: keys cannot be "
					       "substituted",
					       w->file, k->line, k->col);
			}
			if (subst(&v, YNODE_VAL(n, i), w) < 0) {
				cJSON_Delete(obj);
				return -1;
			}
			if (v)
				cJSON_AddItemToObject(obj, k->value, v);
		}
		*out = obj;
		return 0;
	}
	if (n->type == YNODE_SEQ) {
		cJSON *arr = cJSON_CreateArray();
		for (size_t i = 0; i < n->nr; i++) {
			cJSON *v;
			if (subst(&v, n->kids[i], w) < 0) {
				cJSON_Delete(arr);
				return -1;
			}
			if (v)
				cJSON_AddItemToArray(arr, v);
		}
		*out = arr;
		return 0;
	}
	if (n->len > 3 && !strncmp(n->value, "${", 2) &&
	    n->value[n->len - 1] == '}' && !memchr(n->value + 2, '}', n->len - 3)) {
		const cJSON *v = lookup(w->ctx, n->value + 2, n->len - 3);
		if (v && !cJSON_IsNull(v))
			*out = cJSON_Duplicate(v, 1);
		return 0;
	}
	if (strstr(n->value, "${"))
		return interpolate(out, n, w);
	return yaml_to_json(out, n, w->file, w->err);
}

int tmpl_render(cJSON **out, const struct tmpl_set *set, const char *name,
		const cJSON *ctx, struct err *err)
{
	struct walk w;

	*out = NULL;
	for (size_t i = 0; i < set->nr; i++) {
		if (strcmp(set->t[i].name, name))
			continue;
		w.t = &set->t[i];
		w.file = set->t[i].file;
		w.ctx = ctx;
		w.err = err;
		if (subst(out, set->t[i].ys.docs[0].root, &w) < 0)
			return -1;
		if (!*out)
			*out = cJSON_CreateObject();
		return 0;
	}
	return err_set(err, ERR_INTERNAL, "no template named '%s'", name);
}

int tmpl_append(cJSON *docs, const struct tmpl_set *set, const char *name,
		cJSON *ctx, struct err *err)
{
	cJSON *doc;
	int r = tmpl_render(&doc, set, name, ctx, err);

	cJSON_Delete(ctx);
	if (r < 0)
		return -1;
	cJSON_AddItemToArray(docs, doc);
	return 0;
}
