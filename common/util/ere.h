/* ere: a POSIX extended regular expression a user gave (--match, a
 * breakdown's title pattern), compiled, or refused in one line that
 * quotes it escaped (escape.h) and says why. */
#ifndef PROCTREE_ERE_H
#define PROCTREE_ERE_H

#include <regex.h>
#include <stddef.h>

/* regcomp(re, pattern, REG_EXTENDED | cflags): 0, or -1 with err set to
 * 'bad regular expression "PATTERN": WHY' (re is then not to be freed). */
int pt_ere_compile(regex_t *re, const char *pattern, int cflags, char *err, size_t errlen);

#endif
