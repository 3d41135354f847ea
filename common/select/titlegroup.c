#include "select/titlegroup.h"

#include <string.h>

#include "util/escape.h"
#include "util/ere.h"

int pt_titlegroup_init(struct pt_titlegroup *tg, const char *pattern, char *err, size_t errlen)
{
    memset(tg, 0, sizeof(*tg));
    if (!pattern)
        return 0;
    if (pt_ere_compile(&tg->regex, pattern, 0, err, errlen) != 0)
        return -1;
    tg->has_pattern = true;
    return 0;
}

void pt_titlegroup_free(struct pt_titlegroup *tg)
{
    if (tg->has_pattern)
        regfree(&tg->regex);
    memset(tg, 0, sizeof(*tg));
}

/* len bytes of s into out, cut to what a group's name holds at a whole
 * UTF-8 sequence (a byte of none counts alone). */
static void put_name(char out[PT_GROUP_NAME_MAX], const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t at = 0;
    while (at < len) {
        size_t n = pt_escape_utf8_sequence_length(p + at, len - at);
        n = n ? n : 1;
        if (at + n > PT_GROUP_NAME_MAX - 1)
            break;
        at += n;
    }
    memcpy(out, s, at);
    out[at] = '\0';
}

/* The captures looked at: the first few groups cover any pattern of
 * alternatives one would write for a title. */
#define CAPTURES 10

void pt_titlegroup_name(const struct pt_titlegroup *tg, const char *title, char out[PT_GROUP_NAME_MAX])
{
    regmatch_t match[CAPTURES];
    if (tg->has_pattern && regexec(&tg->regex, title, CAPTURES, match, 0) == 0) {
        /* the first group that took part with some text, else the match */
        size_t n = tg->regex.re_nsub < CAPTURES - 1 ? tg->regex.re_nsub : CAPTURES - 1;
        for (size_t i = 1; i <= n; i++)
            if (match[i].rm_so >= 0 && match[i].rm_eo > match[i].rm_so) {
                put_name(out, title + match[i].rm_so, (size_t)(match[i].rm_eo - match[i].rm_so));
                return;
            }
        if (match[0].rm_eo > match[0].rm_so) {
            put_name(out, title + match[0].rm_so, (size_t)(match[0].rm_eo - match[0].rm_so));
            return;
        }
    }
    put_name(out, title, strlen(title));
}

void pt_titlegroup_follow(const struct pt_titlegroup *tg, const char *title, char name[PT_GROUP_NAME_MAX],
                          uint64_t *hash)
{
    uint64_t h = 14695981039346656037u;
    for (const unsigned char *p = (const unsigned char *)title; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    if (name[0] && h == *hash)
        return;
    pt_titlegroup_name(tg, title, name);
    *hash = h;
}
