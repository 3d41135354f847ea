#include "proctree/escape.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Unicode table 3-7. Narrowing the second byte's range is what excludes
 * the overlong forms (0xe0, 0xf0), the surrogates (0xed) and everything
 * past U+10FFFF (0xf4). */
size_t pt_utf8_sequence_length(const unsigned char *s, size_t avail)
{
    unsigned char lo = 0x80, hi = 0xbf;
    size_t n;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        n = 2;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        n = 3;
        if (s[0] == 0xe0)
            lo = 0xa0;
        if (s[0] == 0xed)
            hi = 0x9f;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        n = 4;
        if (s[0] == 0xf0)
            lo = 0x90;
        if (s[0] == 0xf4)
            hi = 0x8f;
    } else {
        return 0;
    }
    if (avail < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < n; k++) {
        if (s[k] < 0x80 || s[k] > 0xbf)
            return 0;
    }
    return n;
}

/* The escaped form of the character of n bytes at s (n == 0: one byte
 * that starts no sequence) into piece; returns its length. */
static size_t escape_one(const unsigned char *s, size_t n, char piece[9])
{
    if (n == 1 && (s[0] == '"' || s[0] == '\\'))
        return (size_t)snprintf(piece, 9, "\\%c", s[0]);
    if (n == 1 && s[0] == '\n')
        return (size_t)snprintf(piece, 9, "\\n");
    if (n == 1 && s[0] == '\t')
        return (size_t)snprintf(piece, 9, "\\t");
    if (n == 0 || (n == 1 && (s[0] < 0x20 || s[0] == 0x7f)))
        return (size_t)snprintf(piece, 9, "\\x%02x", s[0]);
    if (n == 2 && s[0] == 0xc2 && s[1] <= 0x9f) /* C1 control */
        return (size_t)snprintf(piece, 9, "\\x%02x\\x%02x", s[0], s[1]);
    memcpy(piece, s, n);
    return n;
}

/* Escape text into out, while room (bytes, the NUL excluded) allows;
 * returns the length the whole escaped text needs. */
static size_t escape_into(char *out, size_t room, const char *text, size_t *used)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t len = strlen(text), need = 0;

    *used = 0;
    for (size_t i = 0; i < len;) {
        size_t n = pt_utf8_sequence_length(s + i, len - i);
        char piece[9];
        size_t plen = escape_one(s + i, n, piece);
        if (need == *used && *used + plen <= room) {
            memcpy(out + *used, piece, plen);
            *used += plen;
        }
        need += plen;
        i += n ? n : 1;
    }
    return need;
}

const char *pt_escape(char *out, size_t outlen, const char *text)
{
    static const char cut[] = "...";
    size_t used;

    if (escape_into(out, outlen - 1, text, &used) > used) {
        escape_into(out, outlen - sizeof(cut), text, &used);
        memcpy(out + used, cut, sizeof(cut) - 1);
        used += sizeof(cut) - 1;
    }
    out[used] = '\0';
    return out;
}

void pt_escape_collectd(char *out, size_t outlen, const char *name)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t len = strlen(name), used = 0;

    for (size_t i = 0; i < len;) {
        size_t n = pt_utf8_sequence_length(s + i, len - i);
        bool underscore = (n == 1 && (s[i] < 0x20 || s[i] == 0x7f || s[i] == '/' || s[i] == '\\')) ||
                          (n == 2 && s[i] == 0xc2 && s[i + 1] <= 0x9f); /* C1 control */
        size_t take = n ? n : 1, put = underscore ? 1 : take;
        if (used + put > outlen - 1)
            break;
        if (underscore)
            out[used] = '_';
        else
            memcpy(out + used, s + i, take);
        used += put;
        i += take;
    }
    out[used] = '\0';
}
