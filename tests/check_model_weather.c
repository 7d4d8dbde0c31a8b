/*
 * check_model_weather.c -- faults that recur (fault_cfg.every) and whose
 * length is drawn (fault_cfg.length): a scenario that describes the
 * weather rather than one storm (issue 19).  Each expected figure is
 * worked out from the schedule's rule: occurrence k starts a gap drawn
 * from `every` after occurrence k - 1 started (the first, after `start`),
 * and never before occurrence k - 1 has ended.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scenario.h"
#include "sim.h"
#include "testutil.h"
#include "units.h"

/* 20 clients at 5/s each against a fast server: about 100 requests a
 * second, every second has answers.  One errors fault, probability 1:
 * while it runs every attempt fails with 503, and with `none` every
 * request that sends one fails. */
static const char weather_fmt[] =
    "[scenario]\nname = weather\nduration = %s\nwarmup = 10s\n"
    "seed = 5\nbucket = 1s\n"
    "[clients]\ncount = 20\nrate = 5/s\ntimeout = 1s\n"
    "[server]\nworkers = 50\nservice = const(1ms)\n"
    "network_delay = const(0ms)\n"
    "[policy]\nname = none\n"
    "[fault.blip]\ntype = errors\nstart = 50s\nduration = %s\n"
    "status = 503\nprobability = 1\n";

/* The scenario above, run for `run`, each occurrence `len` long unless
 * drawn. */
static const char *weather_ini(const char *run, const char *len)
{
    static char ini[sizeof weather_fmt + 64];
    snprintf(ini, sizeof ini, weather_fmt, run, len);
    return ini;
}

typedef struct weather {
    dist every, length;
} weather;

static void set_weather(sim_config *c, void *ctx)
{
    const weather *w = ctx;
    c->faults[0].every = w->every;
    c->faults[0].length = w->length;
}

/* every = const(100s), fixed 5 s: occurrences at 50 + 100 = 150 s, 250 s
 * and 350 s (the first a gap after `start`), 5 s each.  So the seconds
 * with injected errors are exactly 150-154, 250-254, 350-354: 15 buckets,
 * and none before 150 s although start = 50 s. */
START_TEST(const_gap_schedule)
{
    weather w = {{.kind = DIST_CONST, .mean_ns = 100 * NS_PER_S},
                 {.kind = DIST_CONST, .mean_ns = 0}};
    tu_sim *t =
        tu_sim_run_edited(weather_ini("400s", "5s"), NULL, set_weather, &w);
    const metrics *m = sim_metrics(t->sim);
    int hit = 0;
    for (size_t i = 0; i < m->n_buckets; i++) {
        bool struck = m->buckets[i].errors > 0;
        int64_t sec = m->buckets[i].start_ns / NS_PER_S;
        bool inside = (sec >= 150 && sec < 155) || (sec >= 250 && sec < 255) ||
                      (sec >= 350 && sec < 355);
        ck_assert_msg(struck == inside, "second %lld: struck %d",
                      (long long)sec, struck);
        hit += struck;
    }
    ck_assert_int_eq(hit, 15);
    ck_assert_uint_eq(sim_fault_occurrences(t->sim, 0), 3);
    /* the summary's fault window: first start 150 s, last end 355 s */
    ck_assert_int_eq(sim_first_fault_start(t->sim), 150 * NS_PER_S);
    ck_assert_int_eq(sim_last_fault_end(t->sim), 355 * NS_PER_S);
    tu_sim_free(t);
}
END_TEST

/* every = exp(10s), fixed 1 s, over 20 000 s: the time from one start to
 * the next is max(G, 1 s) with G ~ exp(mean 10 s), whose mean is
 * 1 + E[(G - 1)+] = 1 + 10 e^-0.1 = 10.048 s, so about 20 000 / 10.048 =
 * 1990 occurrences (a renewal count: sd about sqrt(1990 x Var/mean^2) =
 * sqrt(1990 x 0.985) = 44); 3 sd either side is 1858 to 2122. */
START_TEST(exp_gap_count)
{
    weather w = {{.kind = DIST_EXP, .mean_ns = 10 * NS_PER_S},
                 {.kind = DIST_CONST, .mean_ns = 0}};
    tu_sim *t =
        tu_sim_run_edited(weather_ini("20000s", "1s"), NULL, set_weather, &w);
    uint32_t n = sim_fault_occurrences(t->sim, 0);
    ck_assert_msg(n >= 1858 && n <= 2122, "%u occurrences", n);
    tu_sim_free(t);
}
END_TEST

/* Lengths drawn from uniform(1s, 3s), an occurrence every const(10s)
 * from 60 s (start 50 s + 10 s) to 3050 s: 300 of them in a run of
 * 3060 s, each starting on a whole second (no length reaches the next
 * start).  An occurrence of length L strikes the ceil(L) seconds it
 * covers: 2 when L <= 2 s, else 3, each with probability 1/2, so the
 * seconds struck are 300 x 2.5 = 750, sd sqrt(300 x 0.25) = 8.7: 715 to
 * 785 holds 4 sd.  A length fixed at the mean, 2 s, would strike 600.
 * The injected errors count what the lengths add up to: 100 requests/s
 * x 300 x 2 s = 60 000, with sd sqrt(60 000 + 100^2 x 300 x 1/3) = 1030
 * (Poisson arrivals, and the sum of the lengths, variance 300 x 4/12);
 * 55 900 to 64 100 holds 4 sd. */
START_TEST(drawn_lengths)
{
    weather w = {{.kind = DIST_CONST, .mean_ns = 10 * NS_PER_S},
                 {.kind = DIST_UNIFORM,
                  .mean_ns = 2 * NS_PER_S,
                  .lo_ns = 1 * NS_PER_S,
                  .hi_ns = 3 * NS_PER_S}};
    tu_sim *t =
        tu_sim_run_edited(weather_ini("3060s", "1s"), NULL, set_weather, &w);
    const metrics *m = sim_metrics(t->sim);
    int struck = 0;
    uint64_t errors = 0;
    for (size_t i = 0; i < m->n_buckets; i++) {
        struck += m->buckets[i].errors > 0;
        errors += m->buckets[i].errors;
    }
    ck_assert_uint_eq(sim_fault_occurrences(t->sim, 0), 300);
    ck_assert_msg(struck >= 715 && struck <= 785, "%d seconds struck", struck);
    ck_assert_msg(errors >= 55900 && errors <= 64100, "%llu errors",
                  (unsigned long long)errors);
    tu_sim_free(t);
}
END_TEST

/* Ended by hand between two occurrences (the GUI's "end fault"), a
 * recurring fault recurs no more: at 200 s it has run once (150-155 s;
 * 250 s would be next), and at 400 s it still has. */
START_TEST(ended_by_hand_recurs_no_more)
{
    weather w = {{.kind = DIST_CONST, .mean_ns = 100 * NS_PER_S},
                 {.kind = DIST_CONST, .mean_ns = 0}};
    tu_sim *t =
        tu_sim_prepare_edited(weather_ini("400s", "5s"), NULL, set_weather, &w);
    ck_assert_int_eq(sim_run_until(t->sim, 200 * NS_PER_S), 0);
    ck_assert_uint_eq(sim_fault_occurrences(t->sim, 0), 1);
    ck_assert(sim_end_fault(t->sim, 0));
    ck_assert_int_eq(sim_run_until(t->sim, 400 * NS_PER_S), 0);
    ck_assert_uint_eq(sim_fault_occurrences(t->sim, 0), 1);
    ck_assert(!sim_fault_active(t->sim, 0));
    tu_sim_free(t);
}
END_TEST

/* The same weather written in the file: every = const(100s) and
 * duration = 5s read into the fields the tests above set by hand, and
 * the run strikes the same 15 seconds. */
START_TEST(weather_in_the_file)
{
    static char ini[sizeof weather_fmt + 64];
    snprintf(ini, sizeof ini, "%severy = const(100s)\n",
             weather_ini("400s", "5s"));
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    ck_assert_int_eq(t->sc.cfg.faults[0].every.kind, DIST_CONST);
    ck_assert_int_eq(t->sc.cfg.faults[0].every.mean_ns, 100 * NS_PER_S);
    ck_assert_int_eq(t->sc.cfg.faults[0].length.mean_ns, 0);
    const metrics *m = sim_metrics(t->sim);
    int hit = 0;
    for (size_t i = 0; i < m->n_buckets; i++)
        hit += m->buckets[i].errors > 0;
    ck_assert_int_eq(hit, 15);
    tu_sim_free(t);
}
END_TEST

/* duration = uniform(1s, 3s) reads as a drawn length whose mean, 2 s,
 * stands in duration until the first occurrence draws its own. */
START_TEST(drawn_duration_in_the_file)
{
    static char ini[sizeof weather_fmt + 64];
    snprintf(ini, sizeof ini, "%severy = exp(10s)\n",
             weather_ini("60s", "uniform(1s, 3s)"));
    tu_sim *t = tu_sim_prepare(ini, NULL, NULL, 0);
    const fault_cfg *f = &t->sc.cfg.faults[0];
    ck_assert_int_eq(f->length.kind, DIST_UNIFORM);
    ck_assert_int_eq(f->length.lo_ns, 1 * NS_PER_S);
    ck_assert_int_eq(f->length.hi_ns, 3 * NS_PER_S);
    ck_assert_int_eq(f->duration_ns, 2 * NS_PER_S);
    ck_assert_int_eq(f->every.kind, DIST_EXP);
    tu_sim_free(t);
}
END_TEST

/* What a file may not say, each with the file, line, section, key and
 * what was expected. */
START_TEST(bad_weather_is_refused)
{
    static const struct {
        const char *every, *says;
    } bad[] = {
        {"0s", "every: expected a gap of at least 1ms between occurrences"},
        {"sometimes", "every"},
        {"exp(-1s)", "every"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        static char ini[sizeof weather_fmt + 64];
        snprintf(ini, sizeof ini, "%severy = %s\n", weather_ini("60s", "1s"),
                 bad[i].every);
        const char *path = tu_write_temp("bad-weather.ini", ini);
        static scenario sc;
        sb_err e;
        ck_assert_int_ne(scenario_load(path, NULL, 0, &sc, &e), 0);
        ck_assert_msg(strstr(e.msg, "bad-weather.ini:") &&
                          strstr(e.msg, "[fault.blip]") &&
                          strstr(e.msg, bad[i].says),
                      "every = %s: %s", bad[i].every, e.msg);
    }
}
END_TEST

Suite *model_weather_suite(void)
{
    Suite *s = suite_create("model_weather");
    TCase *tc = tcase_create("weather");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, const_gap_schedule);
    tcase_add_test(tc, exp_gap_count);
    tcase_add_test(tc, drawn_lengths);
    tcase_add_test(tc, ended_by_hand_recurs_no_more);
    tcase_add_test(tc, weather_in_the_file);
    tcase_add_test(tc, drawn_duration_in_the_file);
    tcase_add_test(tc, bad_weather_is_refused);
    suite_add_tcase(s, tc);
    return s;
}
