/*
 * syntax.c -- the line rules of syntax.h.
 */
#include "syntax.h"
#include "textfile.h"

#include <ctype.h>
#include <string.h>

#include "config.h"
#include "scenario.h"

_Static_assert(SIM_NAME_MAX == 64, "SYNTAX_NAME_RULE says 'at most 63'");
_Static_assert(SCENARIO_KEY_MAX == 95, "messages say 95 characters");

bool syntax_name_ok(const char *name)
{
    if (name[0] == '\0')
        return false;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
            return false;
    return strlen(name) < SIM_NAME_MAX;
}

char *syntax_trim(char *s)
{
    return textfile_trim(s);
}

const char *syntax_comment(const char *s)
{
    bool was_space = false;
    for (; *s; s++) {
        if (was_space && *s == ';')
            break;
        was_space = isspace((unsigned char)*s);
    }
    return s;
}

/* What key and value share: a line break ends the line, blanks around
 * are dropped, and a comment cuts the rest. */
static const char *text_problem(const char *s)
{
    size_t n = strlen(s);
    if (strchr(s, '\n'))
        return "holds a line break";
    if (n > 0 &&
        (isspace((unsigned char)s[0]) || isspace((unsigned char)s[n - 1])))
        return "starts or ends with a blank, which the loader drops";
    if (*syntax_comment(s) != '\0')
        return "holds ';' after a blank, which starts a comment";
    return NULL;
}

const char *syntax_key_problem(const char *key)
{
    if (key[0] == '\0')
        return "is empty";
    if (strlen(key) > SCENARIO_KEY_MAX)
        return "is longer than a key may be (95 characters)";
    if (strchr(";#[", key[0]))
        return "starts as a comment or a section header does";
    if (key[strcspn(key, "=:")] != '\0')
        return "holds '=' or ':', which end a key";
    return text_problem(key);
}

const char *syntax_value_problem(const char *value)
{
    return text_problem(value);
}
