#include "setting.h"

#include <stdio.h>
#include <string.h>

#include "err.h"

int setting_parse(const char *arg, const char *flag, setting *s, sb_err *e)
{
    const char *eq = strchr(arg, '=');
    if (eq == NULL || eq == arg)
        return err_set(e, "%s %s: expected name=value (or layer.name=value)",
                       flag, arg);
    size_t kn = (size_t)(eq - arg);
    if (kn >= sizeof s->key || strlen(eq + 1) >= sizeof s->value)
        return err_set(e, "%s %s: too long", flag, arg);
    memcpy(s->key, arg, kn);
    s->key[kn] = '\0';
    snprintf(s->value, sizeof s->value, "%s", eq + 1);
    snprintf(s->origin, sizeof s->origin, "%s", flag);
    return 0;
}
