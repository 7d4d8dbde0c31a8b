/*
 * check_app.c -- the GUI's behaviour without its window (viz/app.h), in
 * process: a script drives the app as the window would, at full speed,
 * and what it saves is caught by the save callback (the CLI's writes a
 * file; here the config and the policy are kept to be looked at).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "testutil.h"

/* What the app asked to save, the last time. */
typedef struct saved {
    int calls;
    bool fail; /* refuse every save, as a full disk would */
    sim_config cfg;
    char policy[256];
} saved;

static int catch_save(void *ctx, const char *path, const sim_config *cfg,
                      const char *policy, const setting *params, int n_params,
                      const char *const *plugins, int n_plugins,
                      const setting *expect, int n_expect, sb_err *e)
{
    (void)path, (void)params, (void)n_params, (void)plugins;
    (void)n_plugins, (void)expect, (void)n_expect;
    saved *s = ctx;
    s->calls++;
    if (s->fail)
        return err_set(e, "%s: No space left on device", path);
    s->cfg = *cfg;
    snprintf(s->policy, sizeof s->policy, "%s", policy);
    return 0;
}

static scenario storm;

/* retry-storm, without its own outage: what the script does is all. */
static void load_storm(void)
{
    sb_err e;
    if (scenario_load(TU_SOURCE("scenarios/retry-storm.ini"), NULL, 0, &storm,
                      &e) != 0)
        ck_abort_msg("%s", e.msg);
    storm.cfg.n_faults = 0;
}

/* Create the app on retry-storm with script_text and run it, as fast as
 * it goes, until it quits or the run ends.  Returns the app (the caller
 * destroys it), or NULL with the error in *e when it would not start. */
static app *run_script(const char *script_text, saved *sv, sb_err *e)
{
    static const char *const cycle[] = {"immediate", "exponential"};
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("app.script", script_text));
    load_storm();
    app_options o;
    memset(&o, 0, sizeof o);
    o.cfg = &storm.cfg;
    o.policy = storm.policy;
    o.params = storm.settings;
    o.n_params = storm.n_settings;
    o.cycle = cycle;
    o.n_cycle = 2;
    o.speed = 0;
    o.script = path;
    o.save = catch_save;
    o.save_ctx = sv;
    o.recording = true;
    app *a;
    if (app_create(&o, &a, e) != 0)
        return NULL;
    for (int i = 0; i < 10000 && !app_quit(a); i++) {
        if (app_advance(a, 1.0, INFINITY) != 0)
            break;
        if (app_now(a) >= storm.cfg.duration_ns)
            break;
    }
    return a;
}

/* `p` and the script's `policy` give A another policy on the same run:
 * the outage injected at 40 s stays, the run stays at 60 s, and the
 * scenario saved there has the outage and the new policy.  (They used to
 * restart A at t = 0 with nothing injected, so saving at once failed:
 * the run was not past its warm-up.) */
START_TEST(new_policy_keeps_what_was_injected)
{
    saved sv = {0};
    sb_err e;
    app *a = run_script("at 40s inject outage blackhole 10s\n"
                        "at 60s policy exponential\n"
                        "at 60s save x.ini\n"
                        "at 60s quit\n",
                        &sv, &e);
    ck_assert_msg(a != NULL, "%s", e.msg);
    ck_assert_int_eq(app_status(a), 0);
    ck_assert_int_eq(app_now(a), 60 * NS_PER_S);
    ck_assert_int_eq(sv.calls, 1);
    ck_assert_str_eq(sv.policy, "exponential");
    ck_assert_uint_eq(sv.cfg.n_faults, 1);
    ck_assert_int_eq(sv.cfg.faults[0].type, FAULT_OUTAGE);
    ck_assert_int_eq(sv.cfg.faults[0].start_ns, 40 * NS_PER_S);
    ck_assert_int_eq(sv.cfg.faults[0].duration_ns, 10 * NS_PER_S);
    app_destroy(a);
}
END_TEST

/* The header's speed is the rate the user gets.  A window whose frames
 * take 0.4 s of wall time (a slow machine, a heavy run) hands the app at
 * most 0.25 s per frame, the cap that keeps one slow frame from jumping
 * the run ahead; at 100 x the run then moves 25 s per 0.4 s of wall
 * time: 62.5 x real time at most, whatever was asked.  The figure said
 * 100 x (25 s over the 0.25 s it was handed).  Sleeping can only make
 * the frames longer on a busy machine, so the bound is safe. */
START_TEST(speed_shown_is_the_real_rate)
{
    app_options o;
    sb_err e;
    load_storm();
    memset(&o, 0, sizeof o);
    o.cfg = &storm.cfg;
    o.policy = "none";
    o.speed = 100;
    app *a;
    ck_assert_msg(app_create(&o, &a, &e) == 0, "%s", e.msg);
    ck_assert_double_lt(app_real_speed(a), 0); /* not measured yet */
    struct timespec frame = {0, 400 * 1000 * 1000};
    for (int i = 0; i < 4; i++) {
        nanosleep(&frame, NULL);
        ck_assert_int_eq(app_advance(a, 0.25, INFINITY), 0);
    }
    /* 4 frames of 25 s each: the run did move at the cap. */
    ck_assert_int_eq(app_now(a), 100 * NS_PER_S);
    ck_assert_double_gt(app_real_speed(a), 0);
    ck_assert_double_le(app_real_speed(a), 62.5);
    app_destroy(a);
}
END_TEST

/* The script's error for script_text, read before the window opens:
 * NULL when it was accepted. */
static const char *script_error(const char *script_text)
{
    static sb_err e;
    saved sv = {0};
    char text[512];
    /* Only the reading is wanted: the first line quits at once. */
    snprintf(text, sizeof text, "at 0s quit\n%s", script_text);
    app *a = run_script(text, &sv, &e);
    if (a == NULL)
        return e.msg;
    app_destroy(a);
    return NULL;
}

/* A word the command does not take is refused, naming the line and what
 * was expected: 'inject outage 5 refuse' took 'refuse' for neither the
 * mode (words[1] was '5') nor the duration, and ran a 10 s black hole. */
START_TEST(inject_refuses_words_it_does_not_take)
{
    const char *m = script_error("at 10s inject outage 5 refuse\n");
    ck_assert_msg(m != NULL, "'inject outage 5 refuse' was accepted");
    ck_assert_msg(strstr(m, "app.script:2:") != NULL, "%s", m);
    ck_assert_msg(strstr(m, "'5'") != NULL, "%s", m);
    ck_assert_msg(strstr(m, "inject outage [refuse|blackhole] [DURATION]") !=
                      NULL,
                  "%s", m);
    /* One word too many after a whole command, and a bad status. */
    m = script_error("at 10s inject latency 200ms 10s 5s\n");
    ck_assert_msg(m != NULL && strstr(m, "'5s'") != NULL, "%s",
                  m ? m : "accepted");
    m = script_error("at 10s inject errors 5O3 0.5 10s\n");
    ck_assert_msg(m != NULL && strstr(m, "'5O3'") != NULL, "%s",
                  m ? m : "accepted");
    m = script_error("at 10s inject capacity 2.5 10s\n");
    ck_assert_msg(m != NULL && strstr(m, "'2.5'") != NULL, "%s",
                  m ? m : "accepted");
    /* What it does take still reads. */
    ck_assert_ptr_null(script_error("at 10s inject outage refuse 5s\n"
                                    "at 20s inject outage\n"
                                    "at 30s inject latency 200ms\n"
                                    "at 40s inject errors 503 0.5 10s\n"));
}
END_TEST

/* 'timeout 0ms' is refused when the script is read: the scenario saved
 * after it held 'timeout = 0ms', which run refuses ([clients] timeout
 * takes a positive duration).  Workers are whole. */
START_TEST(changes_are_checked_as_files_check_them)
{
    const char *m = script_error("at 10s timeout 0ms\n");
    ck_assert_msg(m != NULL && strstr(m, "app.script:2:") != NULL &&
                      strstr(m, "positive") != NULL,
                  "%s", m ? m : "accepted");
    m = script_error("at 10s workers 2.5\n");
    ck_assert_msg(m != NULL && strstr(m, "'2.5'") != NULL, "%s",
                  m ? m : "accepted");
}
END_TEST

/* A share reads as a fraction or a percentage, as [expect]'s shares do:
 * 50% is 0.5, and 150% is refused. */
START_TEST(percentages_read_as_shares)
{
    saved sv = {0};
    sb_err e;
    app *a = run_script("at 40s inject errors 503 50% 10s\n"
                        "at 40s inject lost_ack 30% 10s\n"
                        "at 60s save x.ini\n"
                        "at 60s quit\n",
                        &sv, &e);
    ck_assert_msg(a != NULL, "%s", e.msg);
    ck_assert_int_eq(sv.calls, 1);
    ck_assert_uint_eq(sv.cfg.n_faults, 2);
    ck_assert_int_eq(sv.cfg.faults[0].type, FAULT_ERRORS);
    ck_assert_int_eq(sv.cfg.faults[0].status, 503);
    ck_assert_double_eq(sv.cfg.faults[0].probability, 0.5);
    ck_assert_double_eq_tol(sv.cfg.faults[1].probability, 0.3, 1e-12);
    app_destroy(a);
    const char *m = script_error("at 10s inject errors 503 150% 10s\n");
    ck_assert_msg(m != NULL && strstr(m, "'150%'") != NULL, "%s",
                  m ? m : "accepted");
}
END_TEST

/* A save that fails ends the run with status 2 (the CLI's exit code),
 * naming the script's line: it used to say so and exit 0, so a CI job
 * went on without its file. */
START_TEST(failed_save_is_an_error)
{
    saved sv = {0};
    sv.fail = true;
    sb_err e;
    app *a = run_script("at 40s inject outage blackhole 10s\n"
                        "at 60s save /full/x.ini\n"
                        "at 60s quit\n",
                        &sv, &e);
    ck_assert_msg(a != NULL, "%s", e.msg);
    ck_assert_int_eq(sv.calls, 1);
    ck_assert_int_eq(app_status(a), 2);
    ck_assert_msg(strstr(app_message(a), "app.script:2:") != NULL &&
                      strstr(app_message(a), "No space left") != NULL,
                  "%s", app_message(a));
    app_destroy(a);
}
END_TEST

/* 'g' (the field by process) in a scenario without [clients] processes,
 * where each client is its own process, says why it changes nothing: it
 * used to do nothing without a word. */
START_TEST(by_process_says_why_not)
{
    saved sv = {0};
    sb_err e;
    app *a = run_script("at 5s key g\nat 5s quit\n", &sv, &e);
    ck_assert_msg(a != NULL, "%s", e.msg);
    ck_assert_msg(strstr(app_message(a), "its own process") != NULL, "%s",
                  app_message(a));
    ck_assert_int_eq(app_status(a), 0);
    app_destroy(a);
}
END_TEST

/* Frames (recording) at 30 a second and 1 x: the header's speed stays
 * 1 x through the frame a script's command cuts short.  150 frames of
 * llround(1e9 / 30) = 33 333 333 ns reach 4.99999995 s; the next stops
 * at the command's 5 s after 50 ns, and its speed read 50 ns / (1/30 s)
 * = 1.5e-06 x. */
START_TEST(speed_not_measured_on_a_cut_frame)
{
    app_options o;
    sb_err e;
    load_storm();
    memset(&o, 0, sizeof o);
    o.cfg = &storm.cfg;
    o.policy = "none";
    o.speed = 1;
    o.recording = true;
    char path[1024];
    snprintf(path, sizeof path, "%s",
             tu_write_temp("cut.script", "at 5s hover 10 10\n"));
    o.script = path;
    app *a;
    ck_assert_msg(app_create(&o, &a, &e) == 0, "%s", e.msg);
    while (app_now(a) < 5 * NS_PER_S)
        ck_assert_int_eq(app_advance(a, 1.0 / 30, INFINITY), 0);
    ck_assert_int_eq(app_now(a), 5 * NS_PER_S);
    ck_assert_double_eq_tol(app_real_speed(a), 1.0, 1e-6);
    app_destroy(a);
}
END_TEST

/* A policy imported with --policy-from or [policy] from: the header
 * names FILE#selector while run A runs it, and stops once run A is
 * switched to another policy (p): the file no longer describes it. */
START_TEST(header_names_the_imported_policy)
{
    app_options o;
    sb_err e;
    load_storm();
    memset(&o, 0, sizeof o);
    o.cfg = &storm.cfg;
    o.policy = "exponential";
    o.policy_from = "/etc/envoy/route.yaml#api";
    static const char *const cycle[] = {"exponential", "none"};
    o.cycle = cycle;
    o.n_cycle = 2;
    app *a;
    ck_assert_msg(app_create(&o, &a, &e) == 0, "%s", e.msg);
    char line[800];
    app_header_line(a, line, sizeof line);
    ck_assert_msg(strstr(line, "     policy from /etc/envoy/route.yaml#api"
                               "     t = ") != NULL,
                  "%s", line);
    app_key_down(a, 'p');
    app_header_line(a, line, sizeof line);
    ck_assert_msg(strstr(line, "policy from") == NULL, "%s", line);
    app_destroy(a);
}
END_TEST

/* The header while the run goes shows the engine's events per wall
 * second; paused (space, or the script's pause) it shows the events so
 * far and PAUSED: there is no rate to measure.  It read "0.00 M
 * events/s" paused, as if the engine had stalled.  The app as the
 * window runs it (not recording), at 10 x, paused at 2 s. */
START_TEST(paused_header_shows_no_rate)
{
    app_options o;
    sb_err e;
    load_storm();
    memset(&o, 0, sizeof o);
    o.cfg = &storm.cfg;
    o.policy = "none";
    o.speed = 10;
    o.script = tu_write_temp("pause.script", "at 2s pause\n");
    app *a;
    ck_assert_msg(app_create(&o, &a, &e) == 0, "%s", e.msg);
    char line[512];
    while (app_now(a) < NS_PER_S)
        ck_assert_int_eq(app_advance(a, 1.0 / 60, INFINITY), 0);
    app_header_line(a, line, sizeof line);
    ck_assert_msg(strstr(line, " M events/s") != NULL, "running: %s", line);
    for (int i = 0; i < 200; i++)
        ck_assert_int_eq(app_advance(a, 1.0 / 60, INFINITY), 0);
    ck_assert_int_eq(app_now(a), 2 * NS_PER_S);
    app_header_line(a, line, sizeof line);
    ck_assert_msg(strstr(line, "PAUSED") != NULL, "paused: %s", line);
    ck_assert_msg(strstr(line, "events/s") == NULL, "paused: %s", line);
    ck_assert_msg(strstr(line, " M events") != NULL, "paused: %s", line);
    app_destroy(a);
}
END_TEST

Suite *app_suite(void)
{
    Suite *s = suite_create("app");
    TCase *tc = tcase_create("script");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, new_policy_keeps_what_was_injected);
    tcase_add_test(tc, speed_shown_is_the_real_rate);
    tcase_add_test(tc, inject_refuses_words_it_does_not_take);
    tcase_add_test(tc, changes_are_checked_as_files_check_them);
    tcase_add_test(tc, percentages_read_as_shares);
    tcase_add_test(tc, failed_save_is_an_error);
    tcase_add_test(tc, by_process_says_why_not);
    tcase_add_test(tc, speed_not_measured_on_a_cut_frame);
    tcase_add_test(tc, paused_header_shows_no_rate);
    tcase_add_test(tc, header_names_the_imported_policy);
    suite_add_tcase(s, tc);
    return s;
}
