#include "util/ere.h"

#include <stdio.h>

#include "util/escape.h"

int pt_ere_compile(regex_t *re, const char *pattern, int cflags, char *err, size_t errlen)
{
    int r = regcomp(re, pattern, REG_EXTENDED | cflags);
    if (r == 0)
        return 0;
    char why[128], q[PT_QUOTED_MAX];
    regerror(r, re, why, sizeof(why));
    snprintf(err, errlen, "bad regular expression \"%s\": %s", pt_escape(pattern, q, sizeof(q)), why);
    return -1;
}
