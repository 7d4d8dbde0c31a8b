/*
 * broken.c -- one small policy plug-in, compiled once per way a plug-in
 * can break the ABI contract.  tests/check_plugins.c loads each through
 * the real loader and the real `stormbench` binary and checks the message.
 *
 * BREAK selects the defect (see CMakeLists.txt); BREAK_NONE builds the same
 * policy intact, so a test that passes with it and fails with a variant
 * shows the failure comes from the defect and not from the shell around it.
 * Every variant's policy name is PLUGIN_NAME, so messages can be checked.
 *
 * The intact policy: retry after 10 ms, at most 3 attempts.
 */
#include <math.h>
#include <stdint.h>

#include "stormbench/policy.h"

#define BREAK_NONE 0
#define BREAK_ABI 1           /* abi_major 1: an old plug-in's header */
#define BREAK_SHORT 2         /* struct_size below SB_POLICY_MIN_SIZE */
#define BREAK_NO_ENTRY 3      /* exports no sb_policy_plugin */
#define BREAK_NEG_DELAY 4     /* on_failure asks for -1 s */
#define BREAK_NAN_DELAY 5     /* on_failure asks for NaN s */
#define BREAK_HUGE_DELAY 6    /* on_failure asks for 2 days */
#define BREAK_ACTION 7        /* on_failure returns action 42 */
#define BREAK_SEND 8          /* before_send returns action 7 */
#define BREAK_NULL 9          /* the entry point returns NULL */
#define BREAK_BUILTIN_NAME 10 /* calls itself "exponential" */
#define BREAK_NEWER_MINOR 11  /* ABI 2.7, a longer struct: must load */
#define BREAK_DATA_ENTRY 12   /* sb_policy_plugin is the table, not code */
#define BREAK_REFUSAL 13      /* before_send refuses for reason 9 */
#define BREAK_LOUD                                                             \
    14 /* intact, but its code runs when it is loaded:
                                it creates the file $SBT_LOUD_FILE */
/* Crashes and a hang in on_failure, at its first call for the client
 * $SBT_CRASH_CLIENT (default 0: `run` probes the policy's worst case as
 * client 0 before the simulation; 1 is a client only the simulation has).
 * Built without the sanitizers: see CMakeLists.txt. */
#define BREAK_SEGV 15        /* writes through a null pointer */
#define BREAK_FPE 16         /* integer division by zero */
#define BREAK_ABORT 17       /* calls abort() */
#define BREAK_ILL 18         /* an illegal instruction (__builtin_trap) */
#define BREAK_STACK 19       /* recurses until the stack overflows */
#define BREAK_HANG 20        /* never returns */
#define BREAK_CREATE_SEGV 21 /* create() writes through a null pointer */
#define BREAK_ENTRY_SEGV 22  /* so does the entry point */
#define BREAK_LOAD_ABORT 23  /* a constructor calls abort() */
#define BREAK_BUS                                                              \
    24 /* reads a mapped page past the end of its
                                file: a real bus error */

#ifndef BREAK
#error "compile with -DBREAK=BREAK_..."
#endif

#if BREAK == BREAK_LOUD
#include <stdio.h>
#include <stdlib.h>
/* What any shared library may do: run code the moment it is loaded. */
__attribute__((constructor)) static void loud(void)
{
    const char *path = getenv("SBT_LOUD_FILE");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f)
        fclose(f);
}
#endif

#if BREAK >= BREAK_SEGV
#include <stdlib.h>
#if BREAK == BREAK_BUS
#include <stdio.h>
#include <sys/mman.h>
#endif
/* volatile: the compiler may neither see the fault coming nor drop it.
 * Not static: each variant uses only some of them. */
int *volatile nowhere;
volatile int zero, seven = 7;

#if BREAK == BREAK_STACK
static unsigned recurse(volatile unsigned depth)
{
    volatile char frame[512];
    frame[depth % sizeof frame] = (char)depth;
    return recurse(depth + 1) + frame[0];
}
#endif

static void misbehave(void)
{
#if BREAK == BREAK_SEGV || BREAK == BREAK_CREATE_SEGV ||                       \
    BREAK == BREAK_ENTRY_SEGV
    *nowhere = 1;
#elif BREAK == BREAK_FPE
    zero = seven / zero; /* 1 / x would be folded into a comparison */
#elif BREAK == BREAK_ABORT || BREAK == BREAK_LOAD_ABORT
    abort();
#elif BREAK == BREAK_ILL
    __builtin_trap();
#elif BREAK == BREAK_STACK
    zero = (int)recurse(0);
#elif BREAK == BREAK_HANG
    for (volatile unsigned long spin = 0;; spin++)
        ;
#elif BREAK == BREAK_BUS
    /* An empty file mapped for a page: touching the page is past its end. */
    FILE *f = tmpfile();
    const volatile char *page =
        f ? mmap(NULL, 4096, PROT_READ, MAP_SHARED, fileno(f), 0) : NULL;
    if (page == NULL || page == MAP_FAILED)
        abort(); /* no bus error to be had: fail loudly, not quietly */
    zero = page[0];
#endif
}
#endif

#if BREAK == BREAK_LOAD_ABORT
__attribute__((constructor)) static void crash_on_load(void)
{
    misbehave();
}
#endif

#if BREAK == BREAK_CREATE_SEGV
static int32_t crash_create(const sb_value *values, void **shared, char *err,
                            size_t errlen)
{
    (void)values;
    (void)shared;
    (void)err;
    (void)errlen;
    misbehave();
    return 0;
}
#endif

static void ok_before_send(const sb_ctx *ctx, const sb_attempt *a,
                           sb_verdict *out)
{
    (void)ctx;
    (void)a;
#if BREAK == BREAK_SEND
    out->action = 7;
    out->reason = "broken";
#elif BREAK == BREAK_REFUSAL
    if (a->attempt > 1)
        sb_refuse(out, 9, "broken");
#else
    (void)out;
#endif
}

static void ok_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                          sb_decision *out)
{
    (void)ctx;
#if (BREAK >= BREAK_SEGV && BREAK <= BREAK_HANG) || BREAK == BREAK_BUS
    const char *who = getenv("SBT_CRASH_CLIENT");
    if (ctx->client == (who ? strtoul(who, NULL, 10) : 0))
        misbehave();
#endif
    if (a->attempt >= 3) {
        sb_give_up(out, "three attempts");
        return;
    }
#if BREAK == BREAK_NEG_DELAY
    sb_retry(out, -1.0, "broken");
#elif BREAK == BREAK_NAN_DELAY
    sb_retry(out, NAN, "broken");
#elif BREAK == BREAK_HUGE_DELAY
    sb_retry(out, 2 * 86400.0, "broken");
#elif BREAK == BREAK_ACTION
    out->action = 42;
    out->delay_s = 0.01;
    out->reason = "broken";
#else
    sb_retry(out, 0.01, "ten milliseconds");
#endif
}

static const sb_param no_params[] = {{0}};

#define TABLE_INIT                                                             \
    {                                                                          \
        .abi_major = SB_POLICY_ABI_MAJOR, .abi_minor = SB_POLICY_ABI_MINOR,    \
        .struct_size = sizeof(sb_policy), .name = PLUGIN_NAME,                 \
        .doc = "test plug-in", .params = no_params,                            \
        .before_send = ok_before_send, .on_failure = ok_on_failure,            \
        CREATE_INIT                                                            \
    }

#if BREAK == BREAK_CREATE_SEGV
#define CREATE_INIT .create = crash_create,
#else
#define CREATE_INIT
#endif

static const sb_policy table = TABLE_INIT;

#if BREAK == BREAK_ABI || BREAK == BREAK_SHORT
/* A table that ends after its header, as a future (or ancient) ABI's
 * might: the host must not read a byte past it, not even the name,
 * before it has accepted the version and the size. */
static const struct {
    uint32_t abi_major, abi_minor, struct_size, flags;
} header = {
#if BREAK == BREAK_ABI
    1, 0, 16, 0
#else
    SB_POLICY_ABI_MAJOR, SB_POLICY_ABI_MINOR, 16, 0
#endif
};
#elif BREAK == BREAK_NEWER_MINOR
/* A plug-in built against a later 2.x header: one field appended. */
static struct {
    sb_policy base;
    void *appended;
} newer;
#endif

#if BREAK == BREAK_DATA_ENTRY
/* The mistake of exporting the table itself under the entry point's name:
 * calling it would jump into data. */
SB_EXPORT extern const sb_policy sb_policy_plugin;
SB_EXPORT const sb_policy sb_policy_plugin = TABLE_INIT;
#endif

#if BREAK == BREAK_NO_ENTRY || BREAK == BREAK_DATA_ENTRY
/* Exported, but under another name than SB_PLUGIN_ENTRY_NAME. */
#define ENTRY sb_policy_plug_in
#else
#define ENTRY sb_policy_plugin
#endif

SB_EXPORT const sb_policy *ENTRY(void);
SB_EXPORT const sb_policy *ENTRY(void)
{
    const sb_policy *p = &table;
#if BREAK == BREAK_ENTRY_SEGV
    misbehave();
#endif
#if BREAK == BREAK_ABI || BREAK == BREAK_SHORT
    p = (const sb_policy *)(const void *)&header;
#elif BREAK == BREAK_NULL
    p = 0;
#elif BREAK == BREAK_NEWER_MINOR
    newer.base = table;
    newer.base.abi_minor = 7;
    newer.base.struct_size = sizeof newer;
    p = &newer.base;
#endif
    return p;
}
