#include "report/groupkey.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"

/* len bytes of s as both frontends may write them, into out (as long at
 * most, NUL-terminated): what either writes as '_' is '_', a byte of no
 * UTF-8 sequence '?'. Two names that fold alike may be one series. */
static void fold(const char *s, size_t len, char *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = pt_escape_utf8_sequence_length(p + i, len - i);
        if (n == 0) {
            out[o++] = '?';
            i++;
        } else if (n == 1) {
            unsigned char c = p[i++];
            out[o++] = c == '/' || c == '\\' || c < 0x20 || c == 0x7f ? '_' : (char)c;
        } else if (p[i] == 0xc2 && p[i + 1] <= 0x9f) {
            out[o++] = '_'; /* a C1 control */
            i += n;
        } else {
            memcpy(out + o, p + i, n);
            o += n;
            i += n;
        }
    }
    out[o] = '\0';
}

/* The bytes of name that fit in max, a UTF-8 sequence never split. */
static size_t fitting(const char *name, size_t max)
{
    const unsigned char *p = (const unsigned char *)name;
    size_t len = strlen(name), at = 0;
    while (at < len) {
        size_t n = pt_escape_utf8_sequence_length(p + at, len - at);
        n = n ? n : 1;
        if (at + n > max)
            break;
        at += n;
    }
    return at;
}

/* FNV-1a, 32 bits: a stable tag of a whole raw name. */
static uint32_t hash_of(const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

/* Does line i's fold come after line j's (ties by index)? */
static bool after(char (*folds)[PT_GROUP_KEY_MAX], size_t i, size_t j)
{
    int c = strcmp(folds[i], folds[j]);
    return c ? c > 0 : i > j;
}

static void sift_down(size_t *order, size_t at, size_t n, char (*folds)[PT_GROUP_KEY_MAX])
{
    for (size_t child; (child = 2 * at + 1) < n; at = child) {
        if (child + 1 < n && after(folds, order[child + 1], order[child]))
            child++;
        if (!after(folds, order[child], order[at]))
            return;
        size_t swap = order[at];
        order[at] = order[child];
        order[child] = swap;
    }
}

/* order[] by fold: a heap sort, in place (qsort may allocate, and an
 * interval's end allocates nothing). */
static void sort_by_fold(size_t *order, size_t n, char (*folds)[PT_GROUP_KEY_MAX])
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(order, i, n, folds);
    for (size_t end = n; end-- > 1;) {
        size_t swap = order[0];
        order[0] = order[end];
        order[end] = swap;
        sift_down(order, 0, end, folds);
    }
}

void pt_groupkey_set(struct pt_group_report *r, size_t n, bool other_last, size_t cut, char (*keys)[PT_GROUP_KEY_MAX],
                     char (*folds)[PT_GROUP_KEY_MAX], size_t *order)
{
    size_t max = cut ? cut : PT_GROUP_KEY_MAX - 1;
    for (size_t i = 0; i < n; i++) {
        size_t len = fitting(r[i].name, max < PT_GROUP_KEY_MAX - 1 ? max : PT_GROUP_KEY_MAX - 1);
        memcpy(keys[i], r[i].name, len);
        keys[i][len] = '\0';
        fold(keys[i], len, folds[i]);
        r[i].key = keys[i];
        order[i] = i;
    }
    sort_by_fold(order, n, folds);
    for (size_t run = 0; run < n;) {
        size_t end = run + 1;
        while (end < n && strcmp(folds[order[run]], folds[order[end]]) == 0)
            end++;
        if (end - run > 1) {
            /* the keeper: the group past the limit, else the one whose name
             * is written as it is, whole */
            size_t keeper = n;
            for (size_t k = run; k < end; k++) {
                size_t i = order[k];
                bool whole = strcmp(keys[i], r[i].name) == 0 && strcmp(folds[i], r[i].name) == 0;
                if (other_last && i == n - 1)
                    keeper = i;
                else if (whole && keeper == n)
                    keeper = i;
            }
            for (size_t k = run; k < end; k++) {
                size_t i = order[k];
                if (i == keeper)
                    continue;
                size_t len = fitting(r[i].name, max - PT_GROUP_KEY_SUFFIX);
                snprintf(keys[i], PT_GROUP_KEY_MAX, "%.*s~%08x", (int)len, r[i].name, (unsigned)hash_of(r[i].name));
            }
        }
        run = end;
    }
}
