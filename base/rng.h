/*
 * rng.h -- counter-based random numbers keyed by (seed, client, stream).
 *
 * A draw is a pure function of (seed, client, stream, counter): no generator
 * state is stored, so a client costs only the counters it keeps (and most
 * counters are things it keeps anyway, such as its request index).  This is
 * what makes common random numbers cheap: request k of client c arrives at
 * the same instant whatever the policy, because its gap is drawn from
 * (seed, c, RNG_ARRIVAL, k), and attempt a of that request gets the same
 * service time under every policy that sends it.
 *
 * The generator is SplitMix64 (Steele, Lea, Flood 2014: passes BigCrush)
 * evaluated at position `counter` of a sequence whose starting point is a
 * hash of (seed, client, stream).  Keeping one xoshiro256** state per stream
 * instead would cost 32 bytes per stream per client.
 */
#ifndef SB_RNG_H
#define SB_RNG_H

#include <stdint.h>

/* Stream numbers.  A fault's coin flips are drawn from RNG_FAULT under a
 * key of its own, made from its name (rng_named). */
enum {
    RNG_ARRIVAL = 1,   /* inter-arrival gaps and think times, by request */
    RNG_ATTR = 2,      /* request attributes: op, defect, critical */
    RNG_SERVICE = 3,   /* service times, by (request, attempt) */
    RNG_NET = 4,       /* network delays, by (request, attempt) */
    RNG_POLICY = 5,    /* the policy's own draws (jitter), by client counter */
    RNG_PARTITION = 6, /* which clients a partition cuts off, by fault */
    RNG_JOB = 7,       /* a pipeline job's coins: permanent, defect */
    RNG_STEP = 8,      /* a pipeline step attempt's transient coin */
    RNG_ITEM = 9,      /* a pipeline batch's item defect coins */
    RNG_FAULT = 16,    /* error / lost-ack coin flips, keyed by fault */
    RNG_FAULT_TIMES = 17, /* a recurring fault's occurrences: the gap
                             before each and its length */
    RNG_PAIR = 0x8000,    /* | stream: the second uniform of a pair */
    RNG_TIER_SHIFT = 8    /* + (tier << this): tier i of a service chain's
                          own RNG_SERVICE, RNG_NET and RNG_POLICY (tier
                          0, the top, is the plain stream) */
};

/*
 * The counter layout of every stream.  Rule: within one (client, stream)
 * no two draws share a counter, unless they are meant to be the same draw
 * (a partition's membership).  k is the client's request number (uint32),
 * a the attempt number (1, 2, ...; hedges are attempts), f a fault's
 * name key (rng_named of its name).
 *
 *   stream          counter                          draws
 *   --------------  -------------------------------  ----------------------
 *   RNG_ARRIVAL     k                                the gap (open loop)
 *                                                    or think time (closed)
 *                                                    before request k
 *                   0                                once: the start
 *   RNG_ATTR        8k + 0 / 1 / 2 / 3               op, defect?, defect
 *                                                    kind, critical?
 *                                                    (8k + 4..7 unused)
 *   RNG_SERVICE     rng_attempt_counter(k, a, 0)     service time
 *   RNG_NET         rng_attempt_counter(k, a, 0/1)   delay to the server /
 *                                                    back to the client
 *   RNG_POLICY      n, the client's n-th draw        sb_host.uniform
 *   RNG_PARTITION   f                                cut off by fault f?
 *                                                    (the same draw every
 *                                                    time: membership)
 *   RNG_JOB         (k << 8) + (step << 1) + 0 / 1   pipeline job k: step
 *                                                    permanent? / defect?
 *   RNG_STEP        rng_attempt_counter(k', a, 0)    a step call k' (see
 *                                                    sim/pipeline.c):
 *                                                    transient error?
 *   RNG_ITEM        (k << 32) + (step << 27) + i     job k, batch item i
 *                                                    defective?
 *   RNG_FAULT       rng_attempt_counter(k, a, 0/1/2) error coin / lost-ack
 *   (seed ^ f)                                       coin / second trip's
 *                                                    error coin
 *   RNG_FAULT_TIMES 2k / 2k + 1, client = the low    fault f's occurrence k
 *                   32 bits of f                     (from 0): the gap
 *                                                    before it / its length
 *                                                    (sim/faults.c)
 *   s | RNG_PAIR    the counter of the pair's first  the second uniform of
 *                   uniform in stream s              a two-uniform variate
 *                                                    (lognormal's
 *                                                    Box-Muller)
 *
 * Tier i > 0 of a service chain (sim/tier.h) draws from streams
 * s + (i << RNG_TIER_SHIFT) with the layouts above, where k is the
 * number of the call to tier i and the "client" a worker of its caller;
 * the top tier (i = 0) draws exactly what a single server does.
 *
 * A variate that needs two uniforms (the lognormal) takes its first at
 * (stream, counter), as every one-uniform variate does, and its second at
 * (stream | RNG_PAIR, counter): a companion stream, not another counter.
 * Another counter would have to be carved out of every layout above --
 * the closed loop passes the raw request number, which has no spare bit,
 * and the attempt counter's slots are the low four bits that `counter | 8`
 * used to collide with -- while a companion stream is disjoint by
 * construction whatever the layout, and leaves the first uniform, and so
 * every const and exp draw, where it always was.  Stream numbers stay below
 * RNG_PAIR.
 *
 * A fault's draws depend on its name, not on its place in the scenario:
 * adding, removing or reordering other faults does not change which
 * attempts a fault fails or which clients it cuts off, and a fault
 * injected in the GUI draws the same coins when the session is saved as
 * a scenario (where faults that had not started yet are left out).
 */

#define RNG_GOLDEN UINT64_C(0x9e3779b97f4a7c15)

static inline uint64_t rng_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* The starting point of stream `stream` of client `client`. */
static inline uint64_t rng_key(uint64_t seed, uint32_t client, uint32_t stream)
{
    uint64_t id = ((uint64_t)client << 16) | (stream & 0xffffu);
    return rng_mix(seed ^ rng_mix(id + RNG_GOLDEN));
}

/* A 64-bit key for a name (FNV-1a, then mixed): distinct names give
 * unrelated keys. */
static inline uint64_t rng_named(const char *name)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * UINT64_C(0x100000001b3);
    return rng_mix(h);
}

/* The counter-th 64-bit number of the stream that starts at key. */
static inline uint64_t rng_at(uint64_t key, uint64_t counter)
{
    return rng_mix(key + (counter + 1) * RNG_GOLDEN);
}

/* Uniform in [0, 1), 53 bits. */
static inline double rng_unit(uint64_t x)
{
    return (double)(x >> 11) * 0x1.0p-53;
}

/* Uniform in (0, 1]: safe to take the logarithm of. */
static inline double rng_unit_open0(uint64_t x)
{
    return ((double)(x >> 11) + 1.0) * 0x1.0p-53;
}

/* The counter of attempt number `number`'s draw `slot` of request
 * `req_index`: 16 draws per attempt, 2^20 attempts per request. */
static inline uint64_t rng_attempt_counter(uint32_t req_index, uint32_t number,
                                           uint32_t slot)
{
    return ((uint64_t)req_index << 24) | ((uint64_t)(number & 0xfffffu) << 4) |
           (slot & 15u);
}

/* An exponential variate with the given mean, from a uniform x. */
double rng_exponential(uint64_t x, double mean);
/* A standard normal variate from two uniforms (Box-Muller); x1 and x2
 * must be independent draws (see RNG_PAIR). */
double rng_normal(uint64_t x1, uint64_t x2);
/* A normal(mean, sd) variate truncated at zero -- distributed as X given
 * X > 0 -- from one uniform x, by inverting the conditional distribution
 * function.  Never negative; sd = 0 gives mean. */
double rng_truncated_normal(uint64_t x, double mean, double sd);
/* The standard normal distribution function Phi(z) and its inverse
 * (Wichura's AS 241, relative error about 1e-16); the inverse of p <= 0 is
 * -HUGE_VAL and of p >= 1 is HUGE_VAL. */
double rng_normal_cdf(double z);
double rng_normal_quantile(double p);

#endif
