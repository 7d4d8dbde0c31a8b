/*
 * tree.c -- JSON (jansson) and YAML (libyaml) files as one kind of tree.
 *
 * JSON goes through jansson rather than libyaml (which reads most JSON
 * too) because jansson is strict: a trailing comma, a duplicate key or a
 * comment is an error in a gRPC service config, and the user should hear
 * so here rather than from gRPC at deploy time.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "tree.h"

static tree_node *node_new(tree_kind kind, int line)
{
    tree_node *n = calloc(1, sizeof *n);
    if (n) {
        n->kind = kind;
        n->line = line;
    }
    return n;
}

static void node_free(tree_node *n)
{
    if (n == NULL)
        return;
    for (size_t i = 0; i < n->n; i++) {
        node_free(n->items[i]);
        if (n->keys)
            free(n->keys[i]);
    }
    free(n->items);
    free(n->keys);
    free(n->text);
    free(n);
}

/* Append child (and key, for a map); -1 when out of memory. */
static int node_add(tree_node *p, const char *key, tree_node *child)
{
    tree_node **items = realloc(p->items, (p->n + 1) * sizeof *items);
    if (items == NULL)
        return -1;
    p->items = items;
    if (p->kind == TREE_MAP) {
        char **keys = realloc(p->keys, (p->n + 1) * sizeof *keys);
        if (keys == NULL)
            return -1;
        p->keys = keys;
        p->keys[p->n] = strdup(key);
        if (p->keys[p->n] == NULL)
            return -1;
    }
    p->items[p->n++] = child;
    return 0;
}

static tree_node *scalar_new(const char *text, int line, bool string, bool null)
{
    tree_node *n = node_new(TREE_SCALAR, line);
    if (n == NULL)
        return NULL;
    n->text = strdup(text);
    n->string = string;
    n->null = null;
    if (n->text == NULL) {
        free(n);
        return NULL;
    }
    return n;
}

/* ---- JSON ------------------------------------------------------------- */

static tree_node *from_json(json_t *j)
{
    char buf[64];
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        tree_node *n = node_new(TREE_MAP, 0);
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v)
        {
            tree_node *c = n ? from_json(v) : NULL;
            if (c == NULL || node_add(n, k, c) != 0) {
                node_free(c);
                node_free(n);
                return NULL;
            }
        }
        return n;
    }
    case JSON_ARRAY: {
        tree_node *n = node_new(TREE_LIST, 0);
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v)
        {
            tree_node *c = n ? from_json(v) : NULL;
            if (c == NULL || node_add(n, NULL, c) != 0) {
                node_free(c);
                node_free(n);
                return NULL;
            }
        }
        return n;
    }
    case JSON_STRING:
        return scalar_new(json_string_value(j), 0, true, false);
    case JSON_INTEGER:
        snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT,
                 json_integer_value(j));
        return scalar_new(buf, 0, false, false);
    case JSON_REAL:
        snprintf(buf, sizeof buf, "%.15g", json_real_value(j));
        return scalar_new(buf, 0, false, false);
    case JSON_TRUE:
        return scalar_new("true", 0, false, false);
    case JSON_FALSE:
        return scalar_new("false", 0, false, false);
    case JSON_NULL:
        return scalar_new("", 0, false, true);
    }
    return NULL;
}

static int load_json(const char *path, tree *t, sb_err *e)
{
    json_error_t je;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (j == NULL) {
        if (je.line < 1)
            return err_set(e, "%s: %s", path, je.text);
        return err_set(e, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    }
    tree_node *root = from_json(j);
    json_decref(j);
    t->docs = malloc(sizeof *t->docs);
    if (root == NULL || t->docs == NULL) {
        node_free(root);
        return err_set(e, "%s: out of memory", path);
    }
    t->docs[0] = root;
    t->n_docs = 1;
    return 0;
}

/* ---- YAML ------------------------------------------------------------- */

typedef struct yreader {
    yaml_parser_t p;
    const char *path;
    sb_err *e;
} yreader;

static int next_event(yreader *r, yaml_event_t *ev)
{
    if (yaml_parser_parse(&r->p, ev))
        return 0;
    return err_set(r->e, "%s:%zu:%zu: %s%s%s", r->path,
                   r->p.problem_mark.line + 1, r->p.problem_mark.column + 1,
                   r->p.problem ? r->p.problem : "malformed YAML",
                   r->p.context ? " " : "", r->p.context ? r->p.context : "");
}

static tree_node *parse_node(yreader *r, yaml_event_t *ev);

/* A plain scalar that YAML 1.1 and 1.2 both read as null. */
static bool yaml_null(const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
           strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

/* The children of a map or list until its end event. */
static tree_node *parse_children(yreader *r, tree_node *n, bool map,
                                 yaml_event_type_t end)
{
    for (;;) {
        yaml_event_t ev;
        if (next_event(r, &ev) != 0)
            goto fail;
        if (ev.type == end) {
            yaml_event_delete(&ev);
            return n;
        }
        char key[512] = "";
        int key_line = (int)ev.start_mark.line + 1;
        if (map) {
            if (ev.type != YAML_SCALAR_EVENT) {
                err_set(r->e, "%s:%d: a map's key must be a plain name",
                        r->path, key_line);
                yaml_event_delete(&ev);
                goto fail;
            }
            snprintf(key, sizeof key, "%s", (char *)ev.data.scalar.value);
            yaml_event_delete(&ev);
            for (size_t i = 0; i < n->n; i++)
                if (strcmp(n->keys[i], key) == 0) {
                    err_set(r->e,
                            "%s:%d: duplicate key '%s' (first at "
                            "line %d)",
                            r->path, key_line, key, n->items[i]->line);
                    goto fail;
                }
            if (next_event(r, &ev) != 0)
                goto fail;
        }
        tree_node *c = parse_node(r, &ev);
        if (c == NULL)
            goto fail;
        if (node_add(n, key, c) != 0) {
            node_free(c);
            err_set(r->e, "%s: out of memory", r->path);
            goto fail;
        }
    }
fail:
    node_free(n);
    return NULL;
}

/* The node that starts with ev (which this takes). */
static tree_node *parse_node(yreader *r, yaml_event_t *ev)
{
    int line = (int)ev->start_mark.line + 1;
    tree_node *n = NULL;
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        n = scalar_new((char *)ev->data.scalar.value, line,
                       ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE,
                       yaml_null(ev));
        if (n == NULL)
            err_set(r->e, "%s: out of memory", r->path);
        yaml_event_delete(ev);
        return n;
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT: {
        bool map = ev->type == YAML_MAPPING_START_EVENT;
        yaml_event_delete(ev);
        n = node_new(map ? TREE_MAP : TREE_LIST, line);
        if (n == NULL) {
            err_set(r->e, "%s: out of memory", r->path);
            return NULL;
        }
        return parse_children(
            r, n, map, map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT);
    }
    case YAML_ALIAS_EVENT:
        err_set(r->e,
                "%s:%d: YAML aliases (*%s) are not supported: write "
                "the values out",
                r->path, line, (char *)ev->data.alias.anchor);
        break;
    default:
        err_set(r->e, "%s:%d: unexpected YAML structure", r->path, line);
        break;
    }
    yaml_event_delete(ev);
    return NULL;
}

static int add_doc(tree *t, tree_node *root, sb_err *e)
{
    tree_node **d = realloc(t->docs, (t->n_docs + 1) * sizeof *d);
    if (d == NULL) {
        node_free(root);
        return err_set(e, "%s: out of memory", t->path);
    }
    t->docs = d;
    t->docs[t->n_docs++] = root;
    return 0;
}

/* Documents until the stream ends; an empty document is skipped. */
static int parse_stream(yreader *r, tree *t)
{
    for (;;) {
        yaml_event_t ev;
        if (next_event(r, &ev) != 0)
            return -1;
        yaml_event_type_t type = ev.type;
        if (type == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            return 0;
        }
        if (type == YAML_STREAM_START_EVENT ||
            type == YAML_DOCUMENT_START_EVENT ||
            type == YAML_DOCUMENT_END_EVENT) {
            yaml_event_delete(&ev);
            continue;
        }
        tree_node *root = parse_node(r, &ev);
        if (root == NULL || add_doc(t, root, r->e) != 0)
            return -1;
    }
}

static int load_yaml(const char *path, tree *t, sb_err *e)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return err_set(e, "%s: %s", path, strerror(errno));
    yreader r = {.path = path, .e = e};
    if (!yaml_parser_initialize(&r.p)) {
        fclose(f);
        return err_set(e, "%s: out of memory", path);
    }
    yaml_parser_set_input_file(&r.p, f);
    int rc = parse_stream(&r, t);
    yaml_parser_delete(&r.p);
    fclose(f);
    return rc;
}

int tree_load(const char *path, bool json, tree *out, sb_err *e)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    out->json = json;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return err_set(e, "%s: %s", path, strerror(errno));
    fclose(f);
    int rc = json ? load_json(path, out, e) : load_yaml(path, out, e);
    if (rc != 0)
        tree_free(out);
    return rc;
}

void tree_free(tree *t)
{
    for (size_t i = 0; i < t->n_docs; i++)
        node_free(t->docs[i]);
    free(t->docs);
    t->docs = NULL;
    t->n_docs = 0;
}

/* ---- reading ---------------------------------------------------------- */

tree_node *tree_peek(const tree_node *m, const char *key)
{
    if (m == NULL || m->kind != TREE_MAP)
        return NULL;
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->keys[i], key) == 0)
            return m->items[i];
    return NULL;
}

tree_node *tree_get(tree_node *m, const char *key)
{
    tree_node *n = tree_peek(m, key);
    if (n)
        n->used = true;
    return n;
}

const char *tree_text(tree_node *m, const char *key)
{
    tree_node *n = tree_get(m, key);
    return n && n->kind == TREE_SCALAR ? n->text : NULL;
}

void tree_use_all(tree_node *n)
{
    if (n == NULL)
        return;
    n->used = true;
    for (size_t i = 0; i < n->n; i++)
        tree_use_all(n->items[i]);
}

void tree_unused(tree_node *n, const char *prefix, tree_visit_fn fn, void *ctx)
{
    bool leaf = n->kind == TREE_SCALAR || n->n == 0;
    if (leaf) {
        if (!n->used)
            fn(ctx, prefix, n);
        return;
    }
    for (size_t i = 0; i < n->n; i++) {
        char path[512];
        if (n->kind == TREE_MAP)
            snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "",
                     n->keys[i]);
        else
            snprintf(path, sizeof path, "%s[%zu]", prefix, i);
        tree_unused(n->items[i], path, fn, ctx);
    }
}
