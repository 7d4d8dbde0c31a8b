#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(sb_err *e, const char *fmt, ...)
{
    if (e == NULL)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int err_prefix(sb_err *e, const char *fmt, ...)
{
    if (e == NULL)
        return -1;
    char prefix[ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    char old[ERR_MSG_MAX];
    memcpy(old, e->msg, sizeof old);
    /* Truncation is acceptable: the message stays a valid string. */
    if (snprintf(e->msg, sizeof e->msg, "%s: %s", prefix, old) < 0)
        e->msg[0] = '\0';
    return -1;
}
