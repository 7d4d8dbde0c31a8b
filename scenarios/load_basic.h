/*
 * load_basic.h -- the sections every scenario has: [scenario], [clients]
 * and [server], read through the key table (keys.h), and the checks that
 * look at more than one of their keys (the request mix adds up to 1, a
 * rate only for open-loop clients, a knee with a degradation ...).
 */
#ifndef SB_LOAD_BASIC_H
#define SB_LOAD_BASIC_H

#include "load.h"

/* [scenario], [clients] and [server] into ld->sc->cfg.  0, or -1. */
int load_basic(load *ld);

/* [server]'s keys into s, read from [section] (a tier's [server.NAME]
 * too), defaults first.  0, or -1. */
int load_server(load *ld, const char *section, server_cfg *s);
/* ... and the checks of their consistency (then read_service, when not
 * written, is the service).  0, or -1. */
int load_check_server(load *ld, const char *section, server_cfg *s);

/* A rate limit (en, its line; NULL: not written) too slow for any run:
 * its Retry-After would be past the end of simulated time.  0, or -1. */
int load_check_limit_rate(load *ld, const entry *en, double rate);

#endif
