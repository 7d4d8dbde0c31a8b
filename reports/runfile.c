/*
 * runfile.c -- a comparison's run saved as text and read back strictly
 * (runfile.h has the format).
 *
 * Writing formats into a buffer the thread keeps from run to run, then
 * writes it in one call; reading takes the whole file, checks the
 * checksum on the last line first (so a truncated or edited file is
 * refused before any of it is parsed), then walks the lines in their
 * fixed order.  A strict reader is what lets a resumed comparison trust
 * every file it does not run again.
 */
/* flock(2): BSD's, in glibc and musl under _DEFAULT_SOURCE; POSIX's
 * fcntl locks belong to the process, and one thread closing its lock
 * would release every other thread's (runfile_lock). */
#define _DEFAULT_SOURCE

#include "runfile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <stdatomic.h>
#include <sys/file.h>
#include <unistd.h>

#include "compiler.h"
#include "outfile.h"

#define RUNFILE_MAGIC "stormbench-run"

/* strlen of a field's name, for runfile_field.len; a name too long for
 * its array with its NUL does not compile (an array of size -1). */
#define NAME_LEN(name)                                                         \
    (sizeof #name - 1 +                                                        \
     0 * sizeof(char[sizeof #name <= RUNFILE_NAME_MAX ? 1 : -1]))

#define FIELD(name, type)                                                      \
    {                                                                          \
#name, type, offsetof(sim_summary, name), NAME_LEN(name)               \
    }
const runfile_field runfile_summary_fields[] = {
    FIELD(duration_s, RF_DOUBLE),
    FIELD(bucket_s, RF_DOUBLE),
    FIELD(offered, RF_U64),
    FIELD(attempts, RF_U64),
    FIELD(successes, RF_U64),
    FIELD(failures, RF_U64),
    FIELD(gave_up, RF_U64),
    FIELD(deadline, RF_U64),
    FIELD(refused, RF_U64),
    FIELD(quarantined, RF_U64),
    FIELD(refused_budget, RF_U64),
    FIELD(refused_breaker, RF_U64),
    FIELD(refused_other, RF_U64),
    FIELD(refusals, RF_U64),
    FIELD(timeouts, RF_U64),
    FIELD(rejections, RF_U64),
    FIELD(errors, RF_U64),
    FIELD(duplicates, RF_U64),
    FIELD(repeats, RF_U64),
    FIELD(expired, RF_U64),
    FIELD(lost_acks, RF_U64),
    FIELD(in_flight, RF_U64),
    FIELD(late, RF_U64),
    FIELD(amplification, RF_DOUBLE),
    FIELD(peak_amplification, RF_DOUBLE),
    FIELD(peak_amplification_at_s, RF_DOUBLE),
    FIELD(success_ratio, RF_DOUBLE),
    FIELD(success_ratio_finished, RF_DOUBLE),
    FIELD(has_baseline, RF_BOOL),
    FIELD(baseline_goodput_per_s, RF_DOUBLE),
    FIELD(has_fault, RF_BOOL),
    FIELD(first_fault_start_s, RF_DOUBLE),
    FIELD(last_fault_end_s, RF_DOUBLE),
    FIELD(recovery_judged, RF_BOOL),
    FIELD(recovered, RF_BOOL),
    FIELD(recovery_time_s, RF_DOUBLE),
    FIELD(metastable, RF_BOOL),
    FIELD(final_goodput_ratio, RF_DOUBLE),
    FIELD(latency_mean_ms, RF_DOUBLE),
    FIELD(latency_p50_ms, RF_DOUBLE),
    FIELD(latency_p99_ms, RF_DOUBLE),
    FIELD(latency_p999_ms, RF_DOUBLE),
    FIELD(attempts_ended, RF_U64),
    FIELD(attempt_mean_ms, RF_DOUBLE),
    FIELD(attempt_p50_ms, RF_DOUBLE),
    FIELD(attempt_p99_ms, RF_DOUBLE),
    FIELD(attempt_p999_ms, RF_DOUBLE),
    FIELD(wasted_work_s, RF_DOUBLE),
    FIELD(wasted_work_share, RF_DOUBLE),
    FIELD(has_completion, RF_BOOL),
    FIELD(completion_time_s, RF_DOUBLE),
    FIELD(conflicts, RF_U64),
    FIELD(utilization, RF_DOUBLE),
    FIELD(mean_busy_workers, RF_DOUBLE),
    FIELD(mean_queue_len, RF_DOUBLE),
    FIELD(mean_queue_wait_ms, RF_DOUBLE),
    FIELD(max_queue, RF_U32),
    FIELD(events, RF_U64),
    FIELD(processes, RF_U32),
    FIELD(other_errors, RF_U64),
    FIELD(overflowed, RF_U64),
/* The metric table's counts added since (sim/metrics.h), in its order. */
#define ADDED(f, reduce, in_summary, csv, json, label, compare)                \
    METRICS_IF_##in_summary(FIELD(f, RF_U64), )
    METRICS_ADDED(ADDED)
#undef ADDED
};
#undef FIELD
const size_t runfile_n_summary_fields =
    sizeof runfile_summary_fields / sizeof *runfile_summary_fields;

/* The phase fields after `present`, in file order. */
#define PFIELD(name)                                                           \
    {                                                                          \
#name, RF_DOUBLE, offsetof(compare_phase, name), NAME_LEN(name)        \
    }
static const runfile_field phase_fields[] = {
    PFIELD(from_s),        PFIELD(to_s),          PFIELD(offered_per_s),
    PFIELD(goodput_per_s), PFIELD(success_ratio), PFIELD(amplification),
    PFIELD(p99_ms),        PFIELD(duplicates),
};
#undef PFIELD
#define N_PHASE_FIELDS (sizeof phase_fields / sizeof *phase_fields)

/* A pipeline's figures (sim.h) after its strategy, in file order, and a
 * step's after its name.  Neither name is saved: the strategy is written
 * by its name, and the steps' names are the scenario's, which the plan
 * has (compare.c names a loaded run's steps from it). */
#define LFIELD(name, type)                                                     \
    {                                                                          \
#name, type, offsetof(sim_pipeline_summary, name), NAME_LEN(name)      \
    }
const runfile_field runfile_pipeline_fields[] = {
    LFIELD(checkpoints, RF_BOOL),
    LFIELD(steps, RF_U32),
    LFIELD(jobs, RF_U64),
    LFIELD(completed, RF_U64),
    LFIELD(within_sla, RF_U64),
    LFIELD(partial, RF_U64),
    LFIELD(failed, RF_U64),
    LFIELD(compensated, RF_U64),
    LFIELD(inconsistent, RF_U64),
    LFIELD(unfinished, RF_U64),
    LFIELD(runs, RF_U64),
    LFIELD(reruns, RF_U64),
    LFIELD(retries, RF_U64),
    LFIELD(late_retries, RF_U64),
    LFIELD(items_committed, RF_U64),
    LFIELD(items_duplicated, RF_U64),
    LFIELD(items_quarantined, RF_U64),
    LFIELD(dead_letters, RF_U64),
    LFIELD(alerts_log, RF_U64),
    LFIELD(alerts_warning, RF_U64),
    LFIELD(alerts_critical, RF_U64),
    LFIELD(working_s, RF_DOUBLE),
    LFIELD(blocked_s, RF_DOUBLE),
    LFIELD(failed_s, RF_DOUBLE),
};
#undef LFIELD
const size_t runfile_n_pipeline_fields =
    sizeof runfile_pipeline_fields / sizeof *runfile_pipeline_fields;

#define SFIELD(name)                                                           \
    {                                                                          \
#name, RF_U64, offsetof(sim_step_summary, name), NAME_LEN(name)        \
    }
static const runfile_field step_fields[] = {
    SFIELD(calls),   SFIELD(attempts), SFIELD(succeeded), SFIELD(failed),
    SFIELD(skipped), SFIELD(redone),   SFIELD(undone),    SFIELD(undo_failed),
};
#undef SFIELD
#define N_STEP_FIELDS (sizeof step_fields / sizeof *step_fields)

/* A service chain's tier (compare_tier), after the series: one line per
 * tier, only in a run that has a chain, so a run without one is saved
 * byte for byte as before tiers were kept. */
#define TFIELD(name, type)                                                     \
    {                                                                          \
#name, type, offsetof(compare_tier, name), NAME_LEN(name)              \
    }
static const runfile_field tier_fields[] = {
    TFIELD(calls, RF_U64),
    TFIELD(attempts, RF_U64),
    TFIELD(amplification, RF_DOUBLE),
    TFIELD(during_amplification, RF_DOUBLE),
    TFIELD(peak_amplification, RF_DOUBLE),
    TFIELD(utilization, RF_DOUBLE),
    TFIELD(max_queue, RF_U32),
};
#undef TFIELD
#define N_TIER_FIELDS (sizeof tier_fields / sizeof *tier_fields)

uint64_t runfile_hash(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void runfile_field_text(const sim_summary *s, const runfile_field *f, char *buf,
                        size_t len)
{
    runfile_value_text(s, f, buf, len);
}

void runfile_value_text(const void *base, const runfile_field *f, char *buf,
                        size_t len)
{
    const char *at = (const char *)base + f->offset;
    switch (f->type) {
    case RF_U64:
        snprintf(buf, len, "%" PRIu64, *(const uint64_t *)(const void *)at);
        break;
    case RF_U32:
        snprintf(buf, len, "%" PRIu32, *(const uint32_t *)(const void *)at);
        break;
    case RF_BOOL:
        snprintf(buf, len, "%d", *(const bool *)(const void *)at ? 1 : 0);
        break;
    default:
        runfile_double_text(*(const double *)(const void *)at, buf, len);
    }
}

void runfile_path(char *buf, size_t len, const char *dir, uint32_t point,
                  uint32_t policy, uint64_t seed)
{
    snprintf(buf, len,
             "%s/runs/point%" PRIu32 "-policy%" PRIu32 "-seed%" PRIu64 ".run",
             dir, point, policy, seed);
}

/* ---- Writing -------------------------------------------------------------- */

void runfile_buf_free(runfile_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* Room for n more bytes and a NUL, by growing b; false when memory ran
 * out (the buffer then stays as it was, and the write that asked fails). */
SB_NOINLINE static bool grow(runfile_buf *b, size_t n)
{
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (p == NULL)
        return false;
    b->p = p;
    b->cap = cap;
    return true;
}

/* Room for n more bytes and a NUL.  A record is hundreds of small writes
 * (a space, a name, a digit), so the test is inline and the growing out
 * of line. */
static inline bool reserve(runfile_buf *b, size_t n)
{
    return b->cap - b->len > n || grow(b, n);
}

/* The writes below leave the text unterminated; runfile_format ends it
 * once (reserve keeps room for the NUL). */
static inline bool put(runfile_buf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return false;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return true;
}

/* The len bytes at b->p + at, once more (reserve may move b->p). */
static bool put_again(runfile_buf *b, size_t at, size_t len)
{
    if (!reserve(b, len))
        return false;
    memcpy(b->p + b->len, b->p + at, len);
    b->len += len;
    return true;
}

static inline bool puts_(runfile_buf *b, const char *s)
{
    return put(b, s, strlen(s));
}

/* 10^0 ... 10^19: every power of ten a uint64_t holds. */
static const uint64_t pow10_u64[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};

/* How many decimal digits v has. */
static int digit_count(uint64_t v)
{
    int n = 1;
    while (n < 20 && v >= pow10_u64[n])
        n++;
    return n;
}

/* The last `count` decimal digits of v (leading zeros included), written
 * backwards so that the last ends just before `end`.  Written where they
 * go, a byte at a time: digits built in a buffer of their own and copied
 * by a wider load stall on the narrow stores (no store forwarding). */
static void digits_before(uint64_t v, char *end, int count)
{
    for (int i = 0; i < count; i++) {
        *--end = (char)('0' + v % 10);
        v /= 10;
    }
}

/* v's decimal digits into buf (up to 20, not NUL-terminated); their
 * count. */
static int u64_digits(uint64_t v, char *buf)
{
    int n = digit_count(v);
    digits_before(v, buf + n, n);
    return n;
}

/* Straight into the buffer; a single digit (most counts of a short run
 * are 0) without the count. */
static bool put_u64(runfile_buf *b, uint64_t v)
{
    if (!reserve(b, 20))
        return false;
    if (v < 10)
        b->p[b->len++] = (char)('0' + v);
    else
        b->len += (size_t)u64_digits(v, b->p + b->len);
    return true;
}

/* ---- %.15g / %.17g without printf ----------------------------------------
 *
 * runfile_double_text's digits by exact integer arithmetic, for the
 * doubles a run record is mostly made of (latencies, rates, shares: a
 * normal v whose scaled value v * 10^k, k in [0, 22], holds the digits).
 * v = m * 2^q with m a 53-bit integer, so v * 10^k = m * 5^k * 2^(q + k):
 * m * 5^k < 2^53 * 2^52 fits 128 bits and the division by a power of two
 * is a shift, so the rounding (half to even, as printf's) and the test
 * "do 15 digits read back as v" (strtod rounds correctly: the digits lie
 * within half of v's gap to its neighbour) are exact, not estimated.
 * Anything else (k outside [0, 22], subnormals, v >= 2^52) takes
 * snprintf's way; check_compare's doubles_print_as_printf compares the
 * two on a million doubles. */
__extension__ typedef unsigned __int128 u128;

static const uint64_t pow5[23] = {1ull,
                                  5ull,
                                  25ull,
                                  125ull,
                                  625ull,
                                  3125ull,
                                  15625ull,
                                  78125ull,
                                  390625ull,
                                  1953125ull,
                                  9765625ull,
                                  48828125ull,
                                  244140625ull,
                                  1220703125ull,
                                  6103515625ull,
                                  30517578125ull,
                                  152587890625ull,
                                  762939453125ull,
                                  3814697265625ull,
                                  19073486328125ull,
                                  95367431640625ull,
                                  476837158203125ull,
                                  2384185791015625ull};

/* floor(log10(2^e2)), give or take one, for |e2| < 1650: the decimal
 * exponent of a value in [2^e2, 2^(e2 + 1)).  78913 / 2^18 is log10(2)
 * within 2e-7; callers correct the guess by comparing (an integer
 * product, not floor() of a double, which GCC calls libm for). */
static int decimal_exponent_guess(int e2)
{
    return (e2 * 78913) >> 18;
}

/* The scaled value of v = m * 2^q (m in [2^52, 2^53)) with `digits`
 * digits before the point: m * 5^k exactly in *big, the shift t
 * (v * 10^k = big / 2^t) in *t, k in *k.  False when no k in [0, 22]
 * gives it with t in [1, 127]. */
static bool scale_digits(uint64_t m, int q, int digits, u128 *big, int *t,
                         int *k)
{
    const uint64_t *ten = pow10_u64;
    int kk = digits - 1 - decimal_exponent_guess(q + 52);
    for (int tries = 0; tries < 4; tries++) {
        if (kk < 0 || kk > 22)
            return false;
        int s = q + kk;
        if (s >= 0 || s <= -128)
            return false;
        u128 b = (u128)m * pow5[kk];
        u128 whole_hi = b >> -s; /* floor(v * 10^k) */
        if (whole_hi < ten[digits - 1])
            kk++;
        else if (whole_hi >= ten[digits])
            kk--;
        else {
            *big = b;
            *t = -s;
            *k = kk;
            return true;
        }
    }
    return false;
}

/* v > 0 rounded to `digits` significant digits: the digits in *n (exactly
 * `digits` of them), the decimal exponent of the first in *x, and in
 * *reads_back whether that decimal reads back as v.  False when v is
 * outside scale_digits' range. */
static bool round_digits(uint64_t m, int q, int digits, uint64_t *n, int *x,
                         bool *reads_back)
{
    u128 big;
    int t, k;
    if (!scale_digits(m, q, digits, &big, &t, &k))
        return false;
    u128 one = 1;
    uint64_t whole = (uint64_t)(big >> t);
    u128 rest = big & ((one << t) - 1), half = one << (t - 1);
    uint64_t r = whole + (rest > half || (rest == half && (whole & 1)));
    /* |r - v * 10^k| * 2^t against half the gap to v's neighbour, scaled
     * the same way: 2^(q-1) * 10^k * 2^t = 5^k / 2 (a quarter below a
     * power of two, whose lower neighbour is nearer). */
    u128 rt = (u128)r << t;
    bool up = rt >= big;
    u128 off = up ? rt - big : big - rt;
    u128 gap = (u128)pow5[k];
    u128 lhs = (!up && m == (1ull << 52)) ? off * 4 : off * 2;
    *reads_back = lhs < gap || (lhs == gap && (m & 1) == 0);
    *x = digits - 1 - k;
    *n = r;
    uint64_t top = pow10_u64[digits];
    if (r == top) { /* 9.99..95 rounded up to 10.0.. */
        *n = top / 10;
        ++*x;
    }
    return true;
}

/* n (digits of them) with decimal exponent x, as %.{digits}g writes it
 * (trailing zeros dropped).  Returns the length, buf holds >= 32. */
static size_t g_text(bool neg, uint64_t n, int digits, int x, char *buf)
{
    char d[20];
    int nd = u64_digits(n, d);
    while (nd > 1 && d[nd - 1] == '0')
        nd--;
    size_t k = 0;
    if (neg)
        buf[k++] = '-';
    if (x < -4 || x >= digits) {
        buf[k++] = d[0];
        if (nd > 1) {
            buf[k++] = '.';
            memcpy(buf + k, d + 1, (size_t)nd - 1);
            k += (size_t)nd - 1;
        }
        buf[k++] = 'e';
        buf[k++] = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100)
            buf[k++] = (char)('0' + ax / 100);
        buf[k++] = (char)('0' + ax / 10 % 10);
        buf[k++] = (char)('0' + ax % 10);
    } else if (x < 0) {
        buf[k++] = '0';
        buf[k++] = '.';
        for (int i = 0; i < -x - 1; i++)
            buf[k++] = '0';
        memcpy(buf + k, d, (size_t)nd);
        k += (size_t)nd;
    } else {
        int whole = x + 1;
        for (int i = 0; i < whole; i++)
            buf[k++] = i < nd ? d[i] : '0';
        if (nd > whole) {
            buf[k++] = '.';
            memcpy(buf + k, d + whole, (size_t)(nd - whole));
            k += (size_t)(nd - whole);
        }
    }
    buf[k] = '\0';
    return k;
}

/* runfile_double_text's "%.15g, else %.17g" for a finite non-zero v,
 * into buf (32 bytes, NUL-terminated); its length, or 0 when v is outside
 * the exact path.  m and q from v's bits: |v| = m * 2^q with the hidden
 * bit set, m in [2^52, 2^53) (frexp and ldexp are library calls). */
static size_t g_fast(double v, char *buf)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int biased = (int)(bits >> 52 & 0x7ff);
    if (biased == 0 || biased == 0x7ff)
        return 0; /* zero or subnormal; infinite or NaN */
    uint64_t m = (bits & ((1ull << 52) - 1)) | 1ull << 52;
    int q = biased - 1075, x;
    uint64_t n;
    bool back, back17;
    if (!round_digits(m, q, 15, &n, &x, &back))
        return 0;
    if (!back && !round_digits(m, q, 17, &n, &x, &back17))
        return 0;
    return g_text(v < 0, n, back ? 15 : 17, x, buf);
}

void runfile_double_text(double v, char *buf, size_t len)
{
    if (v == 0.0) {
        snprintf(buf, len, signbit(v) ? "-0" : "0");
    } else if (fabs(v) < 9007199254740992.0 && v == floor(v)) {
        snprintf(buf, len, "%.0f", v);
    } else if (isnan(v)) {
        snprintf(buf, len, "nan");
    } else {
        /* 15 digits when they read back (0.1, 2.5e-05), else 17, which
         * always do; trying 16 as well cost more than it saved.  Most
         * values take g_fast's exact way, the rest printf's. */
        char fast[32];
        size_t n = g_fast(v, fast);
        if (n > 0 && n < len) {
            memcpy(buf, fast, n + 1);
            return;
        }
        snprintf(buf, len, "%.15g", v);
        if (strtod(buf, NULL) != v)
            snprintf(buf, len, "%.17g", v);
    }
}

/* Zero and whole numbers, the common case (counts, and every figure of
 * an idle row), without printf. */
static bool put_double(runfile_buf *b, double v)
{
    if (v == 0.0) /* as runfile_double_text, without snprintf */
        return signbit(v) ? put(b, "-0", 2) : put(b, "0", 1);
    /* Whole: below 2^53 the conversion to an integer is exact for whole
     * values and cuts the rest (floor is a library call). */
    if (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v) {
        if (v < 0 && !put(b, "-", 1))
            return false;
        return put_u64(b, (uint64_t)fabs(v));
    }
    if (!reserve(b, 32))
        return false;
    size_t n = g_fast(v, b->p + b->len);
    if (n > 0) {
        b->len += n;
        return true;
    }
    char tmp[40];
    runfile_double_text(v, tmp, sizeof tmp);
    return puts_(b, tmp);
}

/* llround(y) for y in [0, 2^52), inline (llround is a library call):
 * there y - floor(y) is exact, and a half rounds away from zero as
 * llround's does. */
static uint64_t round_half_away(double y)
{
    uint64_t whole = (uint64_t)y;
    return whole + (y - (double)whole >= 0.5);
}

/* A float with 9 significant digits (always enough to read back the same
 * float), trailing zeros dropped; by integer arithmetic where the value
 * allows, since snprintf's %g was a tenth of a short run's cost.  The
 * scaled value is within a double's rounding of the exact one, far inside
 * a float's half ulp, so the digits read back as v either way. */
static bool put_float(runfile_buf *b, float v)
{
    double x = (double)v, ax = fabs(x);
    if (ax < 16777216.0 && x == (double)(int32_t)x) /* whole, or +-0 */
        return put_double(b, x);
    if (isnan(x))
        return put(b, "nan", 3);
    if (ax < 1e-4 || ax >= 1e8) {
        char tmp[32];
        snprintf(tmp, sizeof tmp, "%.9g", x);
        return puts_(b, tmp);
    }
    /* 10^k, exact as doubles, for the decimals: ax in [1e-4, 1e8) needs
     * 1 to 12 (log10 and pow cost more than the rest of put_float). */
    static const double ten[] = {1e0, 1e1, 1e2, 1e3,  1e4,  1e5,  1e6,
                                 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13};
    /* The most decimals, 1 to 12, that keep ax * 10^decimals below 1e9
     * (nine digits).  The products grow with the decimals, so starting
     * from a guess by ax's binary exponent and stepping down, then up,
     * ends where counting down from 12 does, in a step or two. */
    uint64_t bits;
    memcpy(&bits, &ax, sizeof bits);
    int decimals = 8 - decimal_exponent_guess((int)(bits >> 52) - 1023);
    decimals = decimals < 1 ? 1 : decimals > 12 ? 12 : decimals;
    while (decimals > 1 && ax * ten[decimals] >= 1e9)
        decimals--;
    while (decimals < 12 && ax * ten[decimals + 1] < 1e9)
        decimals++;
    uint64_t scaled = round_half_away(ax * ten[decimals]);
    if (scaled >= 1000000000u) { /* rounded up to a tenth digit */
        decimals--;
        scaled = round_half_away(ax * ten[decimals]);
    }
    while (decimals > 0 && scaled % 10 == 0) { /* trailing zeros dropped */
        scaled /= 10;
        decimals--;
    }
    int n = digit_count(scaled);
    /* Straight into the buffer: at most a sign, "0.", 11 zeros and 9
     * digits. */
    if (!reserve(b, 32))
        return false;
    char *out = b->p + b->len;
    size_t k = 0;
    if (x < 0)
        out[k++] = '-';
    if (decimals >= n) { /* 0.000123 */
        out[k++] = '0';
        out[k++] = '.';
        for (int i = 0; i < decimals - n; i++)
            out[k++] = '0';
        k += (size_t)n;
        digits_before(scaled, out + k, n);
    } else { /* 12.5, 125 */
        uint64_t unit = pow10_u64[decimals];
        k += (size_t)(n - decimals);
        digits_before(scaled / unit, out + k, n - decimals);
        if (decimals > 0) {
            out[k++] = '.';
            k += (size_t)decimals;
            digits_before(scaled % unit, out + k, decimals);
        }
    }
    b->len += k;
    return true;
}

/* " name=" of field f: its name copied as the fixed 32 bytes of its
 * array (an inline copy, no strlen, no call), of which len are kept. */
static inline bool put_name(runfile_buf *b, const runfile_field *f)
{
    if (!reserve(b, RUNFILE_NAME_MAX + 2))
        return false;
    char *at = b->p + b->len;
    at[0] = ' ';
    memcpy(at + 1, f->name, RUNFILE_NAME_MAX);
    at[1 + f->len] = '=';
    b->len += f->len + 2;
    return true;
}

/* " name=value" for each of the n fields of the struct at base.  Counts
 * go through put_u64 and whole doubles through put_double's integer
 * path: no printf for most of a summary. */
static bool put_fields(runfile_buf *b, const void *base,
                       const runfile_field *fields, size_t n)
{
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        const runfile_field *f = &fields[i];
        const char *at = (const char *)base + f->offset;
        ok = put_name(b, f);
        if (f->type == RF_U64)
            ok = ok && put_u64(b, *(const uint64_t *)(const void *)at);
        else if (f->type == RF_U32)
            ok = ok && put_u64(b, *(const uint32_t *)(const void *)at);
        else if (f->type == RF_BOOL)
            ok = ok && put(b, *(const bool *)(const void *)at ? "1" : "0", 1);
        else
            ok = ok && put_double(b, *(const double *)(const void *)at);
    }
    return ok;
}

static bool put_summary(runfile_buf *b, const sim_summary *s)
{
    return puts_(b, "summary") &&
           put_fields(b, s, runfile_summary_fields, runfile_n_summary_fields) &&
           put(b, "\n", 1);
}

/* "pipeline -" without one; else its figures, then a line per step. */
static bool put_pipeline(runfile_buf *b, const sim_summary *s)
{
    const sim_pipeline_summary *p = &s->pipeline;
    if (!s->has_pipeline)
        return puts_(b, "pipeline -\n");
    bool ok =
        puts_(b, "pipeline strategy=") &&
        puts_(b, pipeline_strategy_name(p->strategy)) &&
        put_fields(b, p, runfile_pipeline_fields, runfile_n_pipeline_fields) &&
        put(b, "\n", 1);
    for (uint32_t i = 0; i < p->steps && i < SIM_MAX_STEPS && ok; i++)
        ok = puts_(b, "step") &&
             put_fields(b, &p->step[i], step_fields, N_STEP_FIELDS) &&
             put(b, "\n", 1);
    return ok;
}

static bool put_phases(runfile_buf *b, const compare_phase *ph)
{
    bool ok = true;
    for (int k = 0; k < PHASE_COUNT; k++) {
        ok = ok && puts_(b, "phase ") && puts_(b, phases_name(k));
        if (!ph[k].present) {
            ok = ok && puts_(b, " -\n");
            continue;
        }
        for (size_t i = 0; i < N_PHASE_FIELDS; i++) {
            const char *at = (const char *)&ph[k] + phase_fields[i].offset;
            ok = ok && put_name(b, &phase_fields[i]) &&
                 put_double(b, *(const double *)(const void *)at);
        }
        ok = ok && put(b, "\n", 1);
    }
    return ok;
}

static bool put_row(runfile_buf *b, const float *v)
{
    bool ok = true;
    for (int c = 0; c < CC_COUNT; c++)
        ok = ok && (c == 0 || put(b, " ", 1)) && put_float(b, v[c]);
    return ok && put(b, "\n", 1);
}

/* Rows equal to the one before (bit for bit, NaN included) are counted,
 * not repeated. */
static bool put_series(runfile_buf *b, const compare_series *s)
{
    bool ok = puts_(b, "series rows=") && put_u64(b, s->n_rows) &&
              puts_(b, " row_s=") && put_double(b, s->row_s) && put(b, "\n", 1);
    for (uint32_t i = 0; i < s->n_rows && ok;) {
        ok = put_row(b, s->v[i]);
        uint32_t same = 0;
        while (i + 1 + same < s->n_rows &&
               memcmp(s->v[i + 1 + same], s->v[i], sizeof s->v[i]) == 0)
            same++;
        if (same)
            ok = ok && puts_(b, "= ") && put_u64(b, same) && put(b, "\n", 1);
        i += 1 + same;
    }
    return ok;
}

static bool format_run(runfile_buf *b, const char *fingerprint,
                       const char *label, const compare_run *r,
                       const compare_series *series)
{
    size_t start = b->len;
    bool ok = puts_(b, RUNFILE_MAGIC " ") && put_u64(b, RUNFILE_VERSION) &&
              puts_(b, "\nfingerprint ") && puts_(b, fingerprint) &&
              puts_(b, "\nrun point=") && put_u64(b, r->point) &&
              puts_(b, " policy=") && put_u64(b, r->policy) &&
              puts_(b, " seed=") && put_u64(b, r->seed) &&
              puts_(b, "\nlabel ") && puts_(b, label) && put(b, "\n", 1) &&
              put_summary(b, &r->sum) && put_phases(b, r->sum.phase) &&
              put_pipeline(b, &r->sum) && puts_(b, "latency_ms");
    /* Neighbouring levels often share a histogram bin, so a value equal
     * (bit for bit) to the one before is copied, not formatted again. */
    size_t at = 0, len = 0;
    for (int i = 0; i < COMPARE_CDF_POINTS && ok; i++) {
        ok = put(b, " ", 1);
        if (ok && i > 0 &&
            memcmp(&r->latency_ms[i], &r->latency_ms[i - 1], sizeof(float)) ==
                0) {
            ok = put_again(b, at, len);
            continue;
        }
        at = b->len;
        ok = ok && put_float(b, r->latency_ms[i]);
        len = b->len - at;
    }
    ok = ok && put(b, "\n", 1) && put_series(b, series);
    for (uint32_t i = 0; i < r->n_tiers && i < SIM_MAX_TIERS && ok; i++)
        ok = puts_(b, "tier") &&
             put_fields(b, &r->tier[i], tier_fields, N_TIER_FIELDS) &&
             put(b, "\n", 1);
    if (!ok)
        return false;
    /* "end %016" PRIx64 "\n" without printf, and the text's NUL. */
    uint64_t h = runfile_hash(RUNFILE_FNV, b->p + start, b->len - start);
    if (!reserve(b, 21))
        return false;
    char *end = b->p + b->len;
    memcpy(end, "end ", 4);
    for (int i = 0; i < 16; i++)
        end[4 + i] = "0123456789abcdef"[h >> (60 - 4 * i) & 0xf];
    end[20] = '\n';
    b->len += 21;
    b->p[b->len] = '\0';
    return true;
}

int runfile_format(runfile_buf *b, const char *fingerprint, const char *label,
                   const compare_run *r, const compare_series *series,
                   sb_err *e)
{
    b->len = 0;
    if (strchr(label, '\n'))
        return err_set(e, "policy entry '%s': a line break in its name", label);
    if (!format_run(b, fingerprint, label, r, series))
        return err_set(e,
                       "policy entry '%s': out of memory for its saved "
                       "run",
                       label);
    return 0;
}

int runfile_write(runfile_buf *b, const char *path, const char *fingerprint,
                  const char *label, const compare_run *r,
                  const compare_series *series, sb_err *e)
{
    if (runfile_format(b, fingerprint, label, r, series, e) != 0)
        return -1;
    return outfile_write_whole(path, b->p, b->len, e);
}

/* ---- Appending: one file per thread -------------------------------------- */

/* Files are named HOST-PID-K.runs, K from one counter of the process, and
 * created exclusively: two threads, two processes or two machines writing
 * into one directory (jobs on a shared file system) never share a file,
 * and a file left by a crash is never appended to again, so a record cut
 * short by the crash stays the last of its file. */
static int log_open(runfile_log *l, const char *dir, sb_err *e)
{
    static atomic_uint counter;
    char host[64];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "host");
    host[sizeof host - 1] = '\0';
    for (char *c = host; *c; c++)
        if (*c == '/' || *c == ' ')
            *c = '_';
    if (runfile_lock(dir, false, &l->lock_fd, e) != 0)
        return -1;
    for (int tries = 0; tries < 1000; tries++) {
        snprintf(l->path, sizeof l->path, "%s/runs/%s-%ld-%u.runs", dir, host,
                 (long)getpid(), atomic_fetch_add(&counter, 1));
        l->fd = open(l->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0644);
        if (l->fd >= 0) {
            l->open = true;
            return 0;
        }
        if (errno != EEXIST)
            break;
    }
    int err = errno;
    l->fd = -1;
    close(l->lock_fd);
    return err_set(e, "%s: cannot write: %s", l->path, strerror(err));
}

int runfile_log_append(runfile_log *l, const char *dir, const runfile_buf *b,
                       sb_err *e)
{
    if (!l->open && log_open(l, dir, e) != 0)
        return -1;
    size_t done = 0;
    while (done < b->len) {
        ssize_t n = write(l->fd, b->p + done, b->len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return err_set(e, "%s: write failed: %s", l->path,
                           n < 0 ? strerror(errno) : "no room");
        done += (size_t)n;
    }
    return 0;
}

int runfile_log_close(runfile_log *l, sb_err *e)
{
    if (!l->open)
        return 0;
    int rc = close(l->fd);
    close(l->lock_fd); /* the lock goes with its last descriptor */
    l->open = false;
    if (rc != 0)
        return err_set(e, "%s: write failed: %s", l->path, strerror(errno));
    return 0;
}

/* Why a lock and not a check: a compaction reads every record file and
 * then removes them, so a record appended to one in between would go with
 * it.  The appender cannot see that coming (its descriptor still writes,
 * into a file no one lists any more), and the compactor cannot see the
 * append; only holding something across both can.  An appender holds the
 * lock shared for its file's life, not for each write: a job's thread
 * keeps one file open for its whole share of the runs, so a compaction
 * that would wait for it could wait for hours; it does not wait, but
 * leaves the stale records to the next one.  A lock per write instead
 * would cost two system calls a run and oblige the appender to check that
 * its file was not removed meanwhile. */
int runfile_lock(const char *dir, bool exclusive, int *fd, sb_err *e)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/runs/.lock", dir);
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0)
        return err_set(e, "%s: cannot open the lock: %s", path,
                       strerror(errno));
    int rc;
    do
        rc = flock(*fd, exclusive ? LOCK_EX | LOCK_NB : LOCK_SH);
    while (rc != 0 && errno == EINTR);
    if (rc == 0)
        return 0;
    int err = errno;
    close(*fd);
    *fd = -1;
    if (exclusive && err == EWOULDBLOCK)
        return 1;
    return err_set(e, "%s: cannot lock: %s", path, strerror(err));
}

/* ---- Reading -------------------------------------------------------------- */

/* A cursor over the file's text. */
typedef struct reader {
    const char *path;
    char *p;   /* the next line */
    char *end; /* of the part before the "end" line */
    int line;  /* of the file, of the line last read */
    sb_err *e;
} reader;

static int bad(reader *rd, const char *what)
{
    return err_set(rd->e, "%s:%d: %s", rd->path, rd->line, what);
}

/* The next line, NUL-terminated in place; NULL past the last. */
static char *next_line(reader *rd)
{
    if (rd->p >= rd->end)
        return NULL;
    char *line = rd->p;
    char *nl = memchr(line, '\n', (size_t)(rd->end - line));
    *nl = '\0'; /* every line ends in \n: the checksum line follows */
    rd->p = nl + 1;
    rd->line++;
    return line;
}

/* The next space-separated word of *s, NUL-terminated in place. */
static char *word(char **s)
{
    char *w = *s;
    if (*w == '\0')
        return NULL;
    char *sp = strchr(w, ' ');
    if (sp) {
        *sp = '\0';
        *s = sp + 1;
    } else {
        *s = w + strlen(w);
    }
    return w;
}

static bool parse_double(const char *t, double *v)
{
    char *end;
    if (*t == '\0')
        return false;
    *v = strtod(t, &end);
    return *end == '\0';
}

static bool parse_u64(const char *t, uint64_t *v)
{
    char *end;
    if (*t < '0' || *t > '9')
        return false;
    errno = 0;
    unsigned long long x = strtoull(t, &end, 10);
    *v = x;
    return *end == '\0' && errno == 0;
}

/* "name=value" with this name. */
static bool named(char **s, const char *name, const char **value)
{
    char *w = word(s);
    size_t n = strlen(name);
    if (w == NULL || strncmp(w, name, n) != 0 || w[n] != '=')
        return false;
    *value = w + n + 1;
    return true;
}

static bool named_u64(char **s, const char *name, uint64_t *v)
{
    const char *t;
    return named(s, name, &t) && parse_u64(t, v);
}

/* Field f of the struct at base, from its text t. */
static bool set_field(void *base, const runfile_field *f, const char *t)
{
    void *at = (char *)base + f->offset;
    uint64_t u;
    switch (f->type) {
    case RF_U64:
        if (!parse_u64(t, &u))
            return false;
        *(uint64_t *)at = u;
        return true;
    case RF_U32:
        if (!parse_u64(t, &u) || u > UINT32_MAX)
            return false;
        *(uint32_t *)at = (uint32_t)u;
        return true;
    case RF_BOOL:
        if (strcmp(t, "0") != 0 && strcmp(t, "1") != 0)
            return false;
        *(bool *)at = t[0] == '1';
        return true;
    default:
        return parse_double(t, (double *)at);
    }
}

/* A line "key REST": REST in *rest. */
static bool keyed(reader *rd, const char *key, char **rest)
{
    char *line = next_line(rd);
    size_t n = strlen(key);
    if (line == NULL || strncmp(line, key, n) != 0 || line[n] != ' ')
        return false;
    *rest = line + n + 1;
    return true;
}

static int read_head(reader *rd, const char *fingerprint, compare_run *r)
{
    char *rest;
    uint64_t version;
    if (!keyed(rd, RUNFILE_MAGIC, &rest) || !parse_u64(rest, &version) ||
        version != RUNFILE_VERSION)
        return bad(rd, "not a saved run of this version of stormbench");
    if (!keyed(rd, "fingerprint", &rest))
        return bad(rd, "expected the fingerprint");
    if (strcmp(rest, fingerprint) != 0)
        return err_set(rd->e,
                       "%s:%d: saved by another plan (fingerprint "
                       "%s, this one %s: the scenario, a policy, a sweep or "
                       "the program changed)",
                       rd->path, rd->line, rest, fingerprint);
    uint64_t pt, pol, sd;
    if (!keyed(rd, "run", &rest) || !named_u64(&rest, "point", &pt) ||
        !named_u64(&rest, "policy", &pol) || !named_u64(&rest, "seed", &sd) ||
        *rest || pt > UINT32_MAX || pol > UINT32_MAX)
        return bad(rd, "expected 'run point=P policy=I seed=S'");
    r->point = (uint32_t)pt;
    r->policy = (uint32_t)pol;
    r->seed = sd;
    if (!keyed(rd, "label", &rest))
        return bad(rd, "expected the policy's label");
    return 0;
}

/* The n fields of the struct at base from *rest, which must hold them
 * all and nothing more; the line's key (`what`) names it in errors. */
static int read_fields(reader *rd, const char *what, char **rest, void *base,
                       const runfile_field *fields, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const runfile_field *f = &fields[i];
        const char *t;
        if (!named(rest, f->name, &t) || !set_field(base, f, t)) {
            char msg[128];
            snprintf(msg, sizeof msg, "%s: expected %s=VALUE", what, f->name);
            return bad(rd, msg);
        }
    }
    if (**rest) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s: unexpected fields at the end", what);
        return bad(rd, msg);
    }
    return 0;
}

static int read_summary(reader *rd, sim_summary *s)
{
    char *rest;
    if (!keyed(rd, "summary", &rest))
        return bad(rd, "expected the summary");
    return read_fields(rd, "summary", &rest, s, runfile_summary_fields,
                       runfile_n_summary_fields);
}

/* The pipeline line and its steps' (put_pipeline). */
static int read_pipeline(reader *rd, sim_summary *s)
{
    sim_pipeline_summary *p = &s->pipeline;
    char *rest;
    const char *t;
    if (!keyed(rd, "pipeline", &rest))
        return bad(rd, "expected the pipeline ('pipeline -' without one)");
    if (strcmp(rest, "-") == 0)
        return 0;
    s->has_pipeline = true;
    if (!named(&rest, "strategy", &t) ||
        pipeline_strategy_parse(t, &p->strategy) != 0)
        return bad(rd, "pipeline: expected strategy=NAME");
    if (read_fields(rd, "pipeline", &rest, p, runfile_pipeline_fields,
                    runfile_n_pipeline_fields) != 0)
        return -1;
    if (p->steps > SIM_MAX_STEPS)
        return bad(rd, "pipeline: more steps than a pipeline can have");
    for (uint32_t i = 0; i < p->steps; i++) {
        if (!keyed(rd, "step", &rest))
            return bad(rd, "expected a step of the pipeline");
        if (read_fields(rd, "step", &rest, &p->step[i], step_fields,
                        N_STEP_FIELDS) != 0)
            return -1;
    }
    return 0;
}

static int read_phases(reader *rd, compare_phase *ph)
{
    for (int k = 0; k < PHASE_COUNT; k++) {
        char *rest, *name;
        char what[64];
        snprintf(what, sizeof what, "expected phase %s", phases_name(k));
        if (!keyed(rd, "phase", &rest) || (name = word(&rest)) == NULL ||
            strcmp(name, phases_name(k)) != 0)
            return bad(rd, what);
        if (strcmp(rest, "-") == 0)
            continue;
        ph[k].present = true;
        for (size_t i = 0; i < N_PHASE_FIELDS; i++) {
            const char *t;
            double *at =
                (double *)(void *)((char *)&ph[k] + phase_fields[i].offset);
            if (!named(&rest, phase_fields[i].name, &t) || !parse_double(t, at))
                return bad(rd, what);
        }
        if (*rest)
            return bad(rd, what);
    }
    return 0;
}

static bool parse_floats(char *rest, float *v, int n)
{
    for (int i = 0; i < n; i++) {
        char *w = word(&rest), *end;
        if (w == NULL)
            return false;
        v[i] = strtof(w, &end);
        if (*end || end == w)
            return false;
    }
    return *rest == '\0';
}

static int read_series(reader *rd, compare_series *s)
{
    char *rest;
    const char *t;
    uint64_t rows;
    double row_s;
    if (!keyed(rd, "series", &rest) || !named_u64(&rest, "rows", &rows) ||
        rows > COMPARE_ROWS || !named(&rest, "row_s", &t) ||
        !parse_double(t, &row_s) || *rest)
        return bad(rd, "expected 'series rows=N row_s=W'");
    float tmp[CC_COUNT];
    for (uint64_t i = 0; i < rows;) {
        char *line = next_line(rd);
        uint64_t same;
        if (line && line[0] == '=' && line[1] == ' ' && i > 0 &&
            parse_u64(line + 2, &same) && same >= 1 && same <= rows - i) {
            for (uint64_t k = 0; k < same; k++, i++)
                if (s)
                    memcpy(s->v[i], tmp, sizeof tmp);
            continue;
        }
        if (line == NULL || !parse_floats(line, tmp, CC_COUNT))
            return bad(rd, "expected a series row");
        if (s)
            memcpy(s->v[i], tmp, sizeof tmp);
        i++;
    }
    if (s) {
        s->n_rows = (uint32_t)rows;
        s->row_s = row_s;
    }
    return 0;
}

/* The text before the "end" line, once its checksum is right. */
static int check_sum(reader *rd, char *text, size_t len)
{
    static const size_t tail = 4 + 16 + 1; /* "end " hex "\n" */
    int line = rd->line + 1;
    if (len < tail || text[len - 1] != '\n')
        return err_set(rd->e, "%s:%d: truncated (no end line)", rd->path, line);
    char *endline = text + len - tail;
    if (endline != text && endline[-1] != '\n')
        return err_set(rd->e, "%s:%d: truncated (no end line)", rd->path, line);
    uint64_t want;
    char *stop;
    if (strncmp(endline, "end ", 4) != 0)
        return err_set(rd->e, "%s:%d: truncated (no end line)", rd->path, line);
    errno = 0;
    want = strtoull(endline + 4, &stop, 16);
    if (stop != text + len - 1 || errno)
        return err_set(rd->e, "%s:%d: truncated (no end line)", rd->path, line);
    if (runfile_hash(RUNFILE_FNV, text, (size_t)(endline - text)) != want)
        return err_set(rd->e, "%s:%d: corrupt (its checksum does not match)",
                       rd->path, line);
    rd->p = text;
    rd->end = endline;
    return 0;
}

/* The whole file into b; 1 when it does not exist. */
static int slurp(runfile_buf *b, const char *path, sb_err *e)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return errno == ENOENT ? 1
                               : err_set(e, "%s: %s", path, strerror(errno));
    b->len = 0;
    for (;;) {
        if (!reserve(b, 8192)) {
            fclose(f);
            return err_set(e, "%s: out of memory", path);
        }
        size_t got = fread(b->p + b->len, 1, b->cap - b->len - 1, f);
        b->len += got;
        if (got == 0)
            break;
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed)
        return err_set(e, "%s: read failed", path);
    b->p[b->len] = '\0';
    return 0;
}

int runfile_parse(char *text, size_t len, const char *path, int line,
                  const char *fingerprint, compare_run *r,
                  compare_series *series, sb_err *e)
{
    reader rd = {path, NULL, NULL, line, e};
    memset(r, 0, sizeof *r);
    if (check_sum(&rd, text, len) != 0 || read_head(&rd, fingerprint, r) != 0 ||
        read_summary(&rd, &r->sum) != 0 ||
        read_phases(&rd, r->sum.phase) != 0 || read_pipeline(&rd, &r->sum) != 0)
        return -1;
    char *rest;
    if (!keyed(&rd, "latency_ms", &rest) ||
        !parse_floats(rest, r->latency_ms, COMPARE_CDF_POINTS))
        return bad(&rd, "expected latency_ms and its quantiles");
    if (read_series(&rd, series) != 0)
        return -1;
    while (rd.p != rd.end && r->n_tiers < SIM_MAX_TIERS) {
        if (!keyed(&rd, "tier", &rest))
            return bad(&rd, "unexpected lines after the series");
        if (read_fields(&rd, "tier", &rest, &r->tier[r->n_tiers++], tier_fields,
                        N_TIER_FIELDS) != 0)
            return -1;
    }
    if (rd.p != rd.end)
        return bad(&rd, "unexpected lines after the series");
    return 0;
}

/* "run point=P policy=I seed=S" on the third line of a record that may be
 * damaged, read without changing it: whose record it was. */
bool runfile_whose(const char *text, size_t len, uint32_t *point,
                   uint32_t *policy, uint64_t *seed)
{
    const char *p = text, *end = text + len;
    for (int k = 0; k < 2; k++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            return false;
        p = nl + 1;
    }
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    char line[128];
    size_t n = nl ? (size_t)(nl - p) : 0;
    if (n == 0 || n >= sizeof line)
        return false;
    memcpy(line, p, n);
    line[n] = '\0';
    unsigned long long pt, pol, sd;
    int used = 0;
    if (sscanf(line, "run point=%llu policy=%llu seed=%llu%n", &pt, &pol, &sd,
               &used) != 3 ||
        line[used] != '\0' || pt > UINT32_MAX || pol > UINT32_MAX)
        return false;
    *point = (uint32_t)pt;
    *policy = (uint32_t)pol;
    *seed = sd;
    return true;
}

int runfile_slurp(runfile_buf *b, const char *path, sb_err *e)
{
    return slurp(b, path, e);
}

size_t runfile_next_record(const char *text, size_t len, size_t from)
{
    static const char magic[] = "\n" RUNFILE_MAGIC " ";
    size_t n = sizeof magic - 1;
    for (size_t i = from; i + n <= len; i++) {
        const char *at = memchr(text + i, '\n', len - i);
        if (at == NULL)
            break;
        i = (size_t)(at - text);
        if (i + n <= len && memcmp(at, magic, n) == 0)
            return i + 1;
    }
    return len;
}
