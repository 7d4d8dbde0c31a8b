#include "suggest.h"

#include <stdio.h>
#include <string.h>

int suggest_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 99;
    int d[41][41];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = c < del ? (c < ins ? c : ins) : (del < ins ? del : ins);
        }
    return d[la][lb];
}

const char *suggest_closest(const char *word, const char *const *names, int n)
{
    const char *best = NULL;
    int best_d = 3;
    for (int i = 0; i < n; i++) {
        int d = suggest_distance(word, names[i]);
        if (d > 0 && d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
}

const char *suggest_list(const char *const *names, int n, char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0)
        return buf;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        int w =
            snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}
