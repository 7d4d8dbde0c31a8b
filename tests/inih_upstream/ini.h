/*
 * ini.h -- the interface of upstream inih (github.com/benhoyt/inih), as
 * every build of it offers it: the parse functions, and the options as
 * compile-time macros only.  Written for stormbench's tests, not copied:
 * the loader (scenarios/ini_file.c) is compiled against it as well as
 * against the system's inih (tests/CMakeLists.txt, inih_upstream_api),
 * so that it cannot come to depend on what only one build has -- such as
 * the ini_max_line, ini_allow_multiline ... variables of Debian's
 * libinih, which upstream does not have.
 */
#ifndef INI_H
#define INI_H

#include <stdio.h>

#ifndef INI_HANDLER_LINENO
#define INI_HANDLER_LINENO 0
#endif

#if INI_HANDLER_LINENO
typedef int (*ini_handler)(void *user, const char *section, const char *name,
                           const char *value, int lineno);
#else
typedef int (*ini_handler)(void *user, const char *section, const char *name,
                           const char *value);
#endif

typedef char *(*ini_reader)(char *str, int num, void *stream);

int ini_parse(const char *filename, ini_handler handler, void *user);
int ini_parse_file(FILE *file, ini_handler handler, void *user);
int ini_parse_stream(ini_reader reader, void *stream, ini_handler handler,
                     void *user);
int ini_parse_string(const char *string, ini_handler handler, void *user);

/* Upstream's defaults.  A build may change any of them with -D, and the
 * library then behaves accordingly; its header does not say. */
#ifndef INI_ALLOW_MULTILINE
#define INI_ALLOW_MULTILINE 1
#endif
#ifndef INI_ALLOW_BOM
#define INI_ALLOW_BOM 1
#endif
#ifndef INI_START_COMMENT_PREFIXES
#define INI_START_COMMENT_PREFIXES ";#"
#endif
#ifndef INI_ALLOW_INLINE_COMMENTS
#define INI_ALLOW_INLINE_COMMENTS 1
#endif
#ifndef INI_INLINE_COMMENT_PREFIXES
#define INI_INLINE_COMMENT_PREFIXES ";"
#endif
#ifndef INI_USE_STACK
#define INI_USE_STACK 1
#endif
#ifndef INI_MAX_LINE
#define INI_MAX_LINE 200
#endif
#ifndef INI_ALLOW_REALLOC
#define INI_ALLOW_REALLOC 0
#endif
#ifndef INI_INITIAL_ALLOC
#define INI_INITIAL_ALLOC 200
#endif
#ifndef INI_STOP_ON_FIRST_ERROR
#define INI_STOP_ON_FIRST_ERROR 0
#endif
#ifndef INI_CALL_HANDLER_ON_NEW_SECTION
#define INI_CALL_HANDLER_ON_NEW_SECTION 0
#endif
#ifndef INI_ALLOW_NO_VALUE
#define INI_ALLOW_NO_VALUE 0
#endif

#endif
