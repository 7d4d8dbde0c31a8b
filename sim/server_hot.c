/*
 * server_hot.c -- the hot-record model (server.h): every request is an
 * optimistic update of one shared record.  The record is a version number
 * that counts the updates committed so far.
 *
 * One step (the default): an update reads the version when its service
 * starts and commits at its end only if the version has not moved;
 * otherwise it is answered gRPC ABORTED (a conflict).
 *
 * Two round trips (occ = two_round_trips): the first trip reads the
 * version (served with read_service; the answer carries the version as it
 * is when the read's service ends), the second is a conditional write
 * (served with service) that commits at its end only if the version is
 * still the one read -- so the window in which another update can win
 * spans both network legs between them and any queueing of the write.
 * With instant reads and no network delay the two forms are the same
 * model.
 */
#include "server.h"

typedef struct hot_state {
    uint64_t version; /* updates committed so far */
} hot_state;

static hot_state *state(server *sv)
{
    return server_model_state(sv);
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

/* ---- Two round trips ---------------------------------------------------- */

static const dist *hot2_service(const server *sv, const attempt *t,
                                unsigned *slot)
{
    *slot = t->trip == 0 ? 1 : 0;
    return t->trip == 0 ? &server_config(sv)->read_service
                        : &server_config(sv)->service;
}

static service_end hot2_end(server *sv, uint32_t ai, attempt *t,
                            const request *r)
{
    if (t->trip > 0)
        return hot_end(sv, ai, t, r);
    t->read_version = state(sv)->version;
    server_round_trip(sv, ai);
    return SERVICE_TAKEN;
}

const server_model_ops server_hot_record_2rt_ops = {
    .name = "hot_record (two round trips)",
    .state_size = sizeof(hot_state),
    .service = hot2_service,
    .start = NULL,
    .end = hot2_end,
};

const server_model_ops server_hot_record_ops = {
    .name = "hot_record",
    .state_size = sizeof(hot_state),
    .service = NULL, /* `service`, draw 0 */
    .start = hot_start,
    .end = hot_end,
};
