/*
 * loader.c -- scenario_load: a scenario file into a `scenario`.
 *
 * Two passes.  The first reads every `key = value` line into entries
 * that remember their file and line (ini_file.h), and merges --set in as
 * if it were lines.  The second hands the entries to each section's
 * module, which reads them through the one key table (keys.h), so a typo
 * is an error with a suggestion, not a silently ignored line.  Last come
 * the checks of the whole scenario, here: a run long enough for its
 * warm-up, buckets and faults, arrivals the engine's clock can resolve,
 * and warnings for what would run but not tell much.
 */
#include "scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini_file.h"
#include "keys.h"
#include "load.h"
#include "load_basic.h"
#include "load_chain.h"
#include "load_faults.h"
#include "load_pipeline.h"
#include "load_policy.h"
#include "summary.h"
#include "timeline.h"
#include "units.h"

/* ---- Whole-scenario checks ---------------------------------------------- */

static int check_times(load *ld)
{
    sim_config *c = &ld->sc->cfg;
    char msg[400];
    const entry *dur = load_find(ld, "scenario", "duration");
    const entry *name = load_find(ld, "scenario", "name");
    if (dur == NULL || name == NULL)
        return err_set(ld->e,
                       "%s: [scenario] needs a name and a duration "
                       "(how long to simulate), e.g. name = my-test and "
                       "duration = 300s",
                       ld->path);
    const entry *warm = load_find(ld, "scenario", "warmup");
    const entry *bucket = load_find(ld, "scenario", "bucket");
    char d[32], v[32];
    units_fmt_duration(c->duration_ns, d, sizeof d);
    /* A default the user never wrote is named, with the key to set:
     * "duration: must be longer" would blame the line they did write. */
    if (c->warmup_ns >= c->duration_ns && warm)
        return load_bad(ld->e, warm,
                        "must be shorter than the duration of the "
                        "run");
    if (c->warmup_ns >= c->duration_ns) {
        snprintf(msg, sizeof msg,
                 "warmup (default %s) must be shorter "
                 "than the duration (%s); set [scenario] warmup",
                 units_fmt_duration(c->warmup_ns, v, sizeof v), d);
        return load_bad(ld->e, dur, msg);
    }
    if (c->bucket_ns > c->duration_ns && bucket)
        return load_bad(ld->e, bucket,
                        "must not be longer than the duration "
                        "of the run");
    if (c->bucket_ns > c->duration_ns) {
        snprintf(msg, sizeof msg,
                 "bucket (default %s) must not be longer "
                 "than the duration (%s); set [scenario] bucket",
                 units_fmt_duration(c->bucket_ns, v, sizeof v), d);
        return load_bad(ld->e, dur, msg);
    }
    if (c->duration_ns / c->bucket_ns > 10000000)
        return load_bad(ld->e, bucket ? bucket : dur,
                        "more than 10 million "
                        "buckets in the run; make bucket longer");
    int64_t last = -1;
    for (uint32_t i = 0; i < c->n_faults; i++) {
        const fault_cfg *f = &c->faults[i];
        if (f->start_ns >= c->duration_ns) {
            snprintf(msg, sizeof msg, "fault '%s' starts after the run ends",
                     f->name);
            load_warn(ld->sc, msg);
        }
        /* Clients that send once (arrival = once: a herd, a batch)
         * have no steady goodput to recover to, with a fault or
         * without; their measure is completion_within, so a warning
         * that recovery cannot be judged says nothing to act on (the
         * summary still says "not judged").  thundering-herd.ini, whose
         * herd meets a server down from t = 0, warned on every run. */
        if (f->start_ns < c->warmup_ns + c->bucket_ns &&
            c->clients.arrival != ARRIVAL_ONCE) {
            snprintf(msg, sizeof msg,
                     "fault '%s' starts before warm-up and "
                     "one bucket have passed: there is no baseline, so "
                     "recovery cannot be judged",
                     f->name);
            load_warn(ld->sc, msg);
        }
        if (simtime_add(f->start_ns, f->duration_ns) > last)
            last = simtime_add(f->start_ns, f->duration_ns);
    }
    /* Goodput over a window of n requests has Poisson noise of about
     * 1/sqrt(n); below n = 1000 that is over 3 % and the 10 % recovery
     * band is under 3 sigma, so recovery times start to jitter. */
    double per_s = (double)c->clients.count * c->clients.rate_per_s;
    char where[160] = "";
    if (c->clients.profile && last >= 0 && last < c->duration_ns) {
        /* A profile's rate_per_s is its peak, which overstates n where
         * the rate is lower.  The windows recovery is judged in lie
         * between the last fault's end and the run's end: n is the
         * profile's mean rate there (its mass over the span), not the
         * peak -- nor the whole run's mean, which a busy hour before the
         * fault would raise just as wrongly. */
        const rate_profile *p = c->clients.profile;
        double span_s = (double)(c->duration_ns - last) / 1e9;
        double mean =
            (profile_mass(p, c->duration_ns) - profile_mass(p, last)) / span_s;
        per_s = profile_total(p) ? mean : mean * (double)c->clients.count;
        snprintf(where, sizeof where,
                 " (the profile's mean rate after the "
                 "last fault, %.4g/s in all)",
                 per_s);
    }
    double per_window = per_s * (double)c->recovery_window_ns / 1e9;
    if (last >= 0 && c->clients.arrival == ARRIVAL_OPEN && per_window < 1000) {
        snprintf(msg, sizeof msg,
                 "recovery_window holds about %.0f "
                 "requests%s: goodput noise of about %.0f%% is close to "
                 "the 10%% recovery band, so recovery times will jitter; "
                 "lengthen recovery_window",
                 per_window, where,
                 100.0 / sqrt(per_window > 1 ? per_window : 1));
        load_warn(ld->sc, msg);
    }
    if (last > c->duration_ns) {
        snprintf(msg, sizeof msg,
                 "the last fault runs past the end of the "
                 "run (it ends at %.0f s, the run at %.0f s): recovery cannot "
                 "be judged",
                 (double)last / 1e9, (double)c->duration_ns / 1e9);
        load_warn(ld->sc, msg);
    } else if (last >= 0 &&
               simtime_add(last, c->recovery_window_ns) > c->duration_ns) {
        snprintf(msg, sizeof msg,
                 "the run ends less than one "
                 "recovery_window after the last fault ends: recovery "
                 "cannot be judged");
        load_warn(ld->sc, msg);
    }
    return 0;
}

/* Recovery is judged against the baseline, the goodput from warm-up to
 * the first fault: goodput is back when it is within RECOVERY_BAND of
 * it.  A rate profile or a trace that offers a different rate after the
 * last fault than in the baseline's window moves the level goodput can
 * return to: past the band, a run that recovers fully is reported as
 * not recovered (a lower rate) or as recovered while still short (a
 * higher one).  The rates are the expected offered rates in all (a
 * profile's mass, a trace's requests x trace_scale), each over its own
 * window. */
static void check_level(load *ld)
{
    const sim_config *c = &ld->sc->cfg;
    const rate_profile *p = c->clients.profile;
    const trace *t =
        c->clients.arrival == ARRIVAL_TRACE ? c->clients.trace : NULL;
    if ((p == NULL && t == NULL) || c->n_faults == 0)
        return;
    int64_t first = c->duration_ns, last = -1;
    for (uint32_t i = 0; i < c->n_faults; i++) {
        const fault_cfg *f = &c->faults[i];
        if (f->start_ns < first)
            first = f->start_ns;
        if (simtime_add(f->start_ns, f->duration_ns) > last)
            last = simtime_add(f->start_ns, f->duration_ns);
    }
    if (first <= c->warmup_ns || last >= c->duration_ns)
        return; /* no baseline, or no after: warned of elsewhere */
    double base_s = (double)(first - c->warmup_ns) / 1e9;
    double after_s = (double)(c->duration_ns - last) / 1e9;
    double before, after;
    const entry *key;
    if (p) {
        double n = profile_total(p) ? 1.0 : (double)c->clients.count;
        before = n * (profile_mass(p, first) - profile_mass(p, c->warmup_ns)) /
                 base_s;
        after = n * (profile_mass(p, c->duration_ns) - profile_mass(p, last)) /
                after_s;
        key = load_find(ld, "clients", "rate");
    } else {
        const int64_t *at = trace_times(t);
        uint32_t n = trace_count(t), in_base = 0, in_after = 0;
        for (uint32_t i = 0; i < n; i++) {
            in_base += at[i] >= c->warmup_ns && at[i] < first;
            in_after += at[i] >= last && at[i] < c->duration_ns;
        }
        before = c->clients.trace_scale * in_base / base_s;
        after = c->clients.trace_scale * in_after / after_s;
        key = load_find(ld, "clients", "arrival");
    }
    if (before <= 0 || fabs(after - before) <= RECOVERY_BAND * before)
        return;
    char msg[2600]; /* the value may be as long as a line: 1999 bytes */
    snprintf(msg, sizeof msg,
             "[clients] %s = %s offers %.4g/s in all from warm-up to the "
             "first fault (the baseline recovery is judged against) but "
             "%.4g/s after the last fault: goodput back at the new level "
             "is %.0f%% %s the baseline, outside the %.0f%% recovery band, "
             "so recovery would be judged against the wrong level; make "
             "the rate after the faults match the baseline's, or judge "
             "this run by other [expect] checks",
             p ? "rate" : "arrival", key ? key->value : "?", before, after,
             100.0 * fabs(after - before) / before,
             after < before ? "below" : "above", 100.0 * RECOVERY_BAND);
    load_warn(ld->sc, msg);
}

/* A call that ends in zero time costs its client nothing when call_time
 * is 0: a closed-loop client without think time, or an immediate retry of
 * an answer that takes no time, can then run requests forever at one
 * instant.  The engine stops such a run with an error; say so first. */
static void check_progress(load *ld)
{
    const client_cfg *c = &ld->sc->cfg.clients;
    const server_cfg *sv = &ld->sc->cfg.server;
    if (c->call_time_ns > 0)
        return;
    bool zero_think = c->arrival == ARRIVAL_CLOSED && c->think.mean_ns == 0;
    bool zero_net = sv->network.mean_ns == 0;
    if (!zero_think && !zero_net)
        return;
    char msg[512];
    snprintf(msg, sizeof msg,
             "[clients] call_time = 0 with %s: a call that "
             "fails in zero time then costs its client nothing, and a %s "
             "can stop simulated time (the run stops with an error if it "
             "does); keep call_time above 0 (default 100us)",
             zero_think ? "closed-loop clients that do not think"
                        : "zero network delay",
             zero_think ? "client whose requests are refused locally"
                        : "retry at once of an answer that takes no time");
    load_warn(ld->sc, msg);
}

/* The largest arrival multiplier the load spikes reach: the product of
 * the spikes running together, at worst just after one of them starts. */
static double peak_spike(const sim_config *c)
{
    double peak = 1.0;
    for (uint32_t i = 0; i < c->n_faults; i++) {
        int64_t t = c->faults[i].start_ns;
        if (c->faults[i].type != FAULT_LOAD_SPIKE || t >= c->duration_ns)
            continue;
        double k = 1.0;
        for (uint32_t j = 0; j < c->n_faults; j++) {
            const fault_cfg *f = &c->faults[j];
            if (f->type == FAULT_LOAD_SPIKE && f->start_ns <= t &&
                t < simtime_add(f->start_ns, f->duration_ns))
                k *= f->multiplier;
        }
        if (k > peak)
            peak = k;
    }
    return peak;
}

/* The smallest mean gap between one client's arrivals, in ns, that the
 * engine's 1 ns resolution represents faithfully.  Gaps are exponential
 * with mean m ns, rounded to whole ns; the mean of the rounded gap is
 *     sum_{k>=1} P(X >= k - 1/2) = 1 / (2 sinh(1 / 2m)) ~ m (1 - 1/(24 m^2)),
 * so rounding slows the rate by 1/(24 m^2): 4 % at m = 1 ns, 0.04 % at
 * 10 ns, 4e-6 at 100 ns.  At 100 ns (10 million requests/s per client) the
 * error is below the Poisson noise of any run the engine can do (1e-5 at
 * 10^10 requests); at 1e10/s (0.1 ns) 99 % of gaps are 0 and events pile
 * up at one instant until memory runs out. */
#define MIN_MEAN_GAP_NS 100.0

static int check_rate(load *ld)
{
    const sim_config *c = &ld->sc->cfg;
    if (c->clients.arrival != ARRIVAL_OPEN)
        return 0;
    double spike = peak_spike(c);
    double gap_ns = 1e9 / (c->clients.rate_per_s * spike);
    if (gap_ns >= MIN_MEAN_GAP_NS)
        return 0;
    const entry *rate = load_find(ld, "clients", "rate");
    char times[64] = "", msg[600];
    if (spike > 1.0)
        snprintf(times, sizeof times, ", x %g during load spikes,", spike);
    snprintf(msg, sizeof msg,
             "%g/s per client%s is too fast for the "
             "engine's time resolution of 1 ns: the mean gap between a "
             "client's requests would be %.3g ns, and gaps are rounded to "
             "whole ns; at most %g/s per client (a mean gap of %g ns) is "
             "allowed; spread the load over more clients",
             c->clients.rate_per_s, times, gap_ns, 1e9 / MIN_MEAN_GAP_NS,
             MIN_MEAN_GAP_NS);
    if (rate)
        return load_bad(ld->e, rate, msg);
    return err_set(ld->e, "%s: [clients] rate: %s", ld->path, msg);
}

/* A trace is replayed as recorded: a load spike's multiplier is a
 * Poisson rate's, which a trace has not (trace_scale scales it), so the
 * pair is refused rather than ignored.  A trace longer than the run, or
 * one that ends well before it, is worth a warning: requests not
 * replayed, or a run whose load stops. */
static int check_trace(load *ld)
{
    const sim_config *c = &ld->sc->cfg;
    if (c->clients.arrival != ARRIVAL_TRACE)
        return 0;
    char msg[400], section[SIM_NAME_MAX + 8];
    for (uint32_t i = 0; i < c->n_faults; i++) {
        if (c->faults[i].type != FAULT_LOAD_SPIKE)
            continue;
        snprintf(section, sizeof section, "fault.%s", c->faults[i].name);
        const entry *type = load_find(ld, section, "type");
        const char *why = "a load spike multiplies a Poisson rate, and the "
                          "clients replay a trace (arrival = trace(FILE)) "
                          "as recorded; scale the trace with [clients] "
                          "trace_scale, or record the spike in it";
        if (type)
            return load_bad(ld->e, type, why);
        return err_set(ld->e, "%s: [%s] type: %s", ld->path, section, why);
    }
    const trace *t = c->clients.trace;
    uint32_t n = trace_count(t), late = 0;
    const int64_t *at = trace_times(t);
    while (late < n && at[n - 1 - late] >= c->duration_ns)
        late++;
    if (late > 0) {
        snprintf(msg, sizeof msg,
                 "the trace's last request comes at %.3f "
                 "s, after the run ends (%.0f s): %u of its %u requests "
                 "are not replayed",
                 (double)at[n - 1] / 1e9, (double)c->duration_ns / 1e9, late,
                 n);
        load_warn(ld->sc, msg);
    } else if (at[n - 1] < c->duration_ns - c->recovery_window_ns) {
        snprintf(msg, sizeof msg,
                 "the trace's last request comes at %.3f "
                 "s and the run lasts %.0f s: no work arrives after it",
                 (double)at[n - 1] / 1e9, (double)c->duration_ns / 1e9);
        load_warn(ld->sc, msg);
    }
    return 0;
}

int scenario_load(const char *path, const char *const *sets, int n_sets,
                  scenario *out, sb_err *e)
{
    memset(out, 0, sizeof *out);
    config_defaults(&out->cfg);
    snprintf(out->path, sizeof out->path, "%s", path);
    load ld = {.path = path, .e = e, .sc = out};
    ld.entries = calloc(LOAD_MAX_ENTRIES, sizeof *ld.entries);
    if (ld.entries == NULL)
        return err_set(e, "out of memory");
    int rc = -1;
    if (ini_file_read(&ld) != 0)
        goto done;
    /* The stack the file's [policy] parameters were written for, before
     * --set may choose another.  A name too long for this is refused by
     * load_policy below. */
    const entry *file_name = load_find(&ld, "policy", "name");
    if (snprintf(out->file_policy, sizeof out->file_policy, "%s",
                 file_name ? file_name->value
                           : keys_find(KS_POLICY, "name", 0)->def) >=
        (int)sizeof out->file_policy)
        out->file_policy[0] = '\0';
    for (int i = 0; i < n_sets; i++)
        if (ini_file_set(&ld, sets[i]) != 0)
            goto done;
    /* An imported configuration's keys, under what the file and --set
     * wrote, before any section reads them. */
    if (load_policy_from(&ld) != 0)
        goto done;
    /* Section by section, in the order their messages take precedence. */
    if (load_basic(&ld) != 0 || load_chain(&ld) != 0 || load_faults(&ld) != 0 ||
        load_policy(&ld) != 0 || load_expect(&ld) != 0 ||
        load_pipeline(&ld) != 0 || load_check_crashes(&ld) != 0 ||
        check_times(&ld) != 0 || check_rate(&ld) != 0 || check_trace(&ld) != 0)
        goto done;
    check_progress(&ld);
    check_level(&ld);
    rc = 0;
done:
    free(ld.entries);
    return rc;
}
