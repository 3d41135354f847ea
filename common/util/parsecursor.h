/* parsecursor: the cursor and number scanners the /proc parsers share
 * (procfile.c, kvparse.c, pidparse.c), and nothing else includes: a
 * buffer read from /proc is not NUL-terminated and may be cut short, so
 * every access goes through a cursor that checks p < end first. Static
 * inline, as they were when the parsers were one file: the stat parser
 * runs for every member at every poll. */
#ifndef PROCTREE_PARSECURSOR_H
#define PROCTREE_PARSECURSOR_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

_Static_assert(sizeof(pid_t) == sizeof(int), "pid ranges below assume pid_t is int");

struct cursor {
    const char *p;
    const char *end;
};

static inline bool at_end(const struct cursor *c)
{
    return c->p >= c->end;
}

static inline bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static inline bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

static inline bool is_space(char ch)
{
    return is_blank(ch) || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

static inline void skip_blanks(struct cursor *c)
{
    while (!at_end(c) && is_blank(*c->p))
        c->p++;
}

static inline void skip_spaces(struct cursor *c)
{
    while (!at_end(c) && is_space(*c->p))
        c->p++;
}

/* Consume ch when it comes next. */
static inline bool take_char(struct cursor *c, char ch)
{
    if (at_end(c) || *c->p != ch)
        return false;
    c->p++;
    return true;
}

/* ---- Numbers ---- */

/* One or more decimal digits, no sign, within uint64. */
static inline int scan_u64(struct cursor *c, uint64_t *out)
{
    if (at_end(c) || !is_digit(*c->p))
        return -1;
    uint64_t value = 0;
    while (!at_end(c) && is_digit(*c->p)) {
        unsigned digit = (unsigned)(*c->p - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return -1;
        value = value * 10 + digit;
        c->p++;
    }
    *out = value;
    return 0;
}

/* Optional '-', then decimal digits, within int64. */
static inline int scan_i64(struct cursor *c, int64_t *out)
{
    bool negative = take_char(c, '-');
    uint64_t magnitude;
    if (scan_u64(c, &magnitude))
        return -1;
    if (magnitude > (uint64_t)INT64_MAX + negative)
        return -1;
    /* Written so that INT64_MIN never passes through an overflowing negation. */
    *out = negative && magnitude ? -(int64_t)(magnitude - 1) - 1 : (int64_t)magnitude;
    return 0;
}

/* The maximum of its kind for a value no real process reaches (see
 * procmax.h). */
static inline uint64_t at_most(uint64_t value, uint64_t max)
{
    return value < max ? value : max;
}

/* A pid as /proc writes it: unsigned decimal that fits pid_t. 0 passes
 * (a ppid may be 0); callers that need a real process reject it. */
static inline int scan_pid(struct cursor *c, pid_t *out)
{
    uint64_t value;
    if (scan_u64(c, &value) || value > INT_MAX)
        return -1;
    *out = (pid_t)value;
    return 0;
}

/* True when the number just scanned is followed by whitespace. A number
 * that runs into the end of the buffer may have lost digits to a
 * truncated read, so it is not trusted. */
static inline bool number_ended(const struct cursor *c)
{
    return !at_end(c) && is_space(*c->p);
}

/* The first line of buf[0..len) that starts with key, or NULL. */
static inline const char *find_line(const char *buf, size_t len, const char *key, size_t key_len)
{
    for (const char *p = buf; p && p + key_len <= buf + len;) {
        if (memcmp(p, key, key_len) == 0)
            return p;
        const char *nl = memchr(p, '\n', (size_t)(buf + len - p));
        p = nl ? nl + 1 : NULL;
    }
    return NULL;
}

#endif
