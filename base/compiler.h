/*
 * compiler.h -- the compiler hints the project uses, spelled once.
 *
 * GCC and clang (both built in CI) take them as written; any other
 * compiler gets none of them, which may change speed but never a result.
 * A hint on the engine's hot path says beside it why it is there; what it
 * measured when it was chosen is in bench/README.md.
 *
 *   SB_ALWAYS_INLINE   inline this function into every caller (put before
 *                      `static inline`, or `inline` for an external
 *                      inline definition)
 *   SB_NOINLINE        never inline it: keep a rare path out of its
 *                      caller, so that the common path saves no registers
 *                      for it
 *   SB_NOIPA           SB_NOINLINE, and no interprocedural change of its
 *                      calling convention either (GCC's noipa; clang has
 *                      no such change, and gets noinline)
 *   SB_PRINTF(f, a)    argument f is a printf format for the arguments
 *                      from a on: -Wformat checks every call
 */
#ifndef SB_COMPILER_H
#define SB_COMPILER_H

#if defined(__GNUC__) || defined(__clang__)
#define SB_ALWAYS_INLINE __attribute__((always_inline))
#define SB_NOINLINE __attribute__((noinline))
#define SB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#if defined(__has_attribute)
#if __has_attribute(noipa)
#define SB_NOIPA __attribute__((noipa))
#endif
#endif
#ifndef SB_NOIPA
#define SB_NOIPA SB_NOINLINE
#endif
#else
#define SB_ALWAYS_INLINE
#define SB_NOINLINE
#define SB_NOIPA
#define SB_PRINTF(f, a)
#endif

#endif
