/*
 * tree.h -- a JSON or YAML file read into one tree of maps, lists and
 * scalars, each node with the line it starts on, so that the importers
 * (import.h) can walk a gRPC service config, an Envoy route, an Istio
 * VirtualService or a resilience4j file the same way and point at the
 * line of every field they read.
 *
 * Parsed by libraries, not by hand: JSON by jansson, YAML by libyaml.
 * jansson keeps no position per value, so nodes of a JSON file have line
 * 0 ("unknown") and messages name the field's path instead; a syntax
 * error in either names the file, line and column.
 *
 * Every node has a `used` flag: an importer marks each field it reads
 * (tree_get), and tree_unused lists what nobody read, so a field the
 * importer does not know is reported, never dropped in silence.
 *
 * A tree owns all its nodes and strings; tree_free releases them.
 */
#ifndef SB_TREE_H
#define SB_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

typedef enum tree_kind { TREE_SCALAR, TREE_MAP, TREE_LIST } tree_kind;

typedef struct tree_node {
    tree_kind kind;
    int line;    /* 1-based; 0 when the parser gives none (JSON) */
    char *text;  /* a scalar's text ("" for null) */
    bool string; /* a scalar written as a string (quoted) */
    bool null;   /* JSON null, YAML ~ or an empty value */
    size_t n;    /* children of a map or list */
    char **keys; /* a map's keys, n of them */
    struct tree_node **items;
    bool used; /* read by an importer */
} tree_node;

typedef struct tree {
    char path[1024];
    bool json;     /* parsed as JSON (no lines) */
    size_t n_docs; /* a YAML stream may hold several (---) */
    tree_node **docs;
} tree;

/* Read path as JSON (json = true) or YAML.  0, or -1 with
 * "PATH:LINE:COLUMN: what is wrong" in e. */
int tree_load(const char *path, bool json, tree *out, sb_err *e);
void tree_free(tree *t);

/* A map's child named key, marked used; NULL when absent or when m is
 * not a map. */
tree_node *tree_get(tree_node *m, const char *key);
/* The same without marking it used (for looking before choosing). */
tree_node *tree_peek(const tree_node *m, const char *key);
/* A scalar child's text, marked used; NULL when absent or not a scalar. */
const char *tree_text(tree_node *m, const char *key);

/* Mark n and everything under it used. */
void tree_use_all(tree_node *n);

/* Call fn for every scalar (or empty map or list) under n that no
 * importer read, with its dotted path below `prefix`
 * ("retryPolicy.foo", "name[1].service"). */
typedef void (*tree_visit_fn)(void *ctx, const char *path, tree_node *n);
void tree_unused(tree_node *n, const char *prefix, tree_visit_fn fn, void *ctx);

#endif
