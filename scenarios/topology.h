/*
 * topology.h -- stormbench's topology file: services, who calls whom,
 * and how each caller calls (timeout, retries, backoff, breaker, budget,
 * deadline propagation), in YAML:
 *
 *     clients:                 # the callers at the top
 *       calls: front
 *       timeout: 2s            # per attempt
 *       retries: 2             # after the first attempt
 *       deadline: 5s           # end to end (optional)
 *     services:
 *       front:
 *         workers: 64
 *         service: const(2ms)  # its own work, a distribution
 *         calls: api           # or a list: [api, cache]
 *         timeout: 1s
 *         retries: 3
 *         backoff: exponential # exponential (default), immediate, fixed
 *         breaker: true        # or {threshold: 5, cooldown: 30s}
 *         budget: true         # a retry budget (Finagle's), or false
 *         propagate_deadline: true
 *       api: ...
 *
 * `stormbench import` turns a chain (each service calls at most one) into
 * service tiers; `stormbench lint` checks any graph.  topology_load keeps
 * every value's line for messages.
 */
#ifndef SB_TOPOLOGY_H
#define SB_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

#define TOPO_MAX_SERVICES 32
#define TOPO_MAX_CALLS 16
#define TOPO_NAME 64

/* How one caller calls whom it calls. */
typedef struct topo_caller {
    int line;           /* of the caller's entry */
    int64_t timeout_ns; /* per attempt; 0: none given */
    int timeout_line;
    int retries; /* after the first attempt */
    int retries_line;
    char backoff[16]; /* exponential, immediate, fixed */
    bool breaker;
    int breaker_threshold; /* 0: the built-in's default */
    int64_t breaker_cooldown_ns;
    bool budget;
    int budget_line;
    bool propagate_deadline;
    int propagate_line;
    int64_t deadline_ns; /* the clients only; 0: none */
    int deadline_line;
} topo_caller;

typedef struct topo_service {
    char name[TOPO_NAME];
    int line;
    int workers;      /* 0: unlimited */
    char service[64]; /* a distribution as written ("" default) */
    char calls[TOPO_MAX_CALLS][TOPO_NAME];
    int n_calls;
    int calls_line;
    topo_caller out; /* how it calls its callees */
    bool step;       /* a scenario's pipeline step (lint): the
                               steps are stages of one job runner, not
                               callers of their own */
} topo_service;

typedef struct topology {
    char path[1024];
    topo_caller clients;
    char entry[TOPO_MAX_CALLS][TOPO_NAME]; /* whom the clients call */
    int n_entry;
    topo_service s[TOPO_MAX_SERVICES];
    int n;
} topology;

/* Read path.  0, or -1 with "PATH:LINE: what is wrong" in e (unknown
 * keys, a call to no service, a cycle, a bad value). */
int topology_load(const char *path, topology *out, sb_err *e);
/* The service named name, or -1. */
int topology_find(const topology *t, const char *name);
/* A caller's worst case for one call: every attempt timing out, the
 * delays between them at their longest (immediate 0, fixed 1 s,
 * exponential 100 ms x 2^(n-1) capped at 20 s: the built-ins' defaults);
 * 0 when it has no timeout. */
int64_t topology_call_worst_ns(const topo_caller *c);

#endif
