/*
 * server_hot.c -- the hot-record model (server.h): every request is an
 * optimistic update of one shared record.  The record is a version number
 * that counts the updates committed so far.
 *
 * One step (the default): an update reads the version when its service
 * starts and commits at its end only if the version has not moved;
 * otherwise it is answered gRPC ABORTED (a conflict).
 */
#include "server.h"

typedef struct hot_state {
    uint64_t version; /* updates committed so far */
} hot_state;

static hot_state *state(server *sv)
{
    return server_model_state(sv);
}

static const dist *hot_service(const server *sv, const attempt *t,
                               unsigned *slot)
{
    (void)t;
    *slot = 0;
    return &server_config(sv)->service;
}

static void hot_start(server *sv, attempt *t)
{
    t->read_version = state(sv)->version;
}

/* A request with a data defect is refused before it touches the record. */
static service_end hot_end(server *sv, uint32_t ai, attempt *t,
                           const request *r)
{
    (void)ai;
    if (r->defect)
        return SERVICE_DONE;
    if (t->read_version != state(sv)->version)
        return SERVICE_CONFLICT;
    state(sv)->version++;
    return SERVICE_DONE;
}

const server_model_ops server_hot_record_ops = {
    .name = "hot_record",
    .state_size = sizeof(hot_state),
    .service = hot_service,
    .start = hot_start,
    .end = hot_end,
};
