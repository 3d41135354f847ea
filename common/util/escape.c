#include "util/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Unicode table 3-7. Narrowing the second byte's range is what excludes
 * the overlong forms (0xe0, 0xf0), the surrogates (0xed) and everything
 * past U+10FFFF (0xf4). */
size_t pt_escape_utf8_sequence_length(const unsigned char *s, size_t avail)
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

struct cp_range {
    uint32_t lo, hi;
};

/* Unicode 14.0's general category Cf (format characters: the bidi
 * controls that reorder what follows on a terminal, zero-width ones that
 * make two names look alike, the BOM, the soft hyphen, the tags), written
 * out from Python's unicodedata. */
static const struct cp_range format_chars[] = {
    {0xad, 0xad},       {0x600, 0x605},     {0x61c, 0x61c},     {0x6dd, 0x6dd},     {0x70f, 0x70f},
    {0x890, 0x891},     {0x8e2, 0x8e2},     {0x180e, 0x180e},   {0x200b, 0x200f},   {0x202a, 0x202e},
    {0x2060, 0x2064},   {0x2066, 0x206f},   {0xfeff, 0xfeff},   {0xfff9, 0xfffb},   {0x110bd, 0x110bd},
    {0x110cd, 0x110cd}, {0x13430, 0x13438}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0001, 0xe0001},
    {0xe0020, 0xe007f},
};

/* Unicode 14.0's East Asian Width W and F: two columns on a terminal.
 * Assigned W/F code points, runs joined across unassigned ones; planes 2
 * and 3 whole (their unassigned code points default to W). Written out
 * from Python's unicodedata; terminals differ on a few emoji, never on CJK. */
static const struct cp_range wide_chars[] = {
    {0x1100, 0x115f},   {0x231a, 0x231b},   {0x2329, 0x232a},   {0x23e9, 0x23ec},   {0x23f0, 0x23f0},
    {0x23f3, 0x23f3},   {0x25fd, 0x25fe},   {0x2614, 0x2615},   {0x2648, 0x2653},   {0x267f, 0x267f},
    {0x2693, 0x2693},   {0x26a1, 0x26a1},   {0x26aa, 0x26ab},   {0x26bd, 0x26be},   {0x26c4, 0x26c5},
    {0x26ce, 0x26ce},   {0x26d4, 0x26d4},   {0x26ea, 0x26ea},   {0x26f2, 0x26f3},   {0x26f5, 0x26f5},
    {0x26fa, 0x26fa},   {0x26fd, 0x26fd},   {0x2705, 0x2705},   {0x270a, 0x270b},   {0x2728, 0x2728},
    {0x274c, 0x274c},   {0x274e, 0x274e},   {0x2753, 0x2755},   {0x2757, 0x2757},   {0x2795, 0x2797},
    {0x27b0, 0x27b0},   {0x27bf, 0x27bf},   {0x2b1b, 0x2b1c},   {0x2b50, 0x2b50},   {0x2b55, 0x2b55},
    {0x2e80, 0x303e},   {0x3041, 0x3247},   {0x3250, 0x4dbf},   {0x4e00, 0xa4c6},   {0xa960, 0xa97c},
    {0xac00, 0xd7a3},   {0xf900, 0xfad9},   {0xfe10, 0xfe19},   {0xfe30, 0xfe6b},   {0xff01, 0xff60},
    {0xffe0, 0xffe6},   {0x16fe0, 0x1b2fb}, {0x1f004, 0x1f004}, {0x1f0cf, 0x1f0cf}, {0x1f18e, 0x1f18e},
    {0x1f191, 0x1f19a}, {0x1f200, 0x1f320}, {0x1f32d, 0x1f335}, {0x1f337, 0x1f37c}, {0x1f37e, 0x1f393},
    {0x1f3a0, 0x1f3ca}, {0x1f3cf, 0x1f3d3}, {0x1f3e0, 0x1f3f0}, {0x1f3f4, 0x1f3f4}, {0x1f3f8, 0x1f43e},
    {0x1f440, 0x1f440}, {0x1f442, 0x1f4fc}, {0x1f4ff, 0x1f53d}, {0x1f54b, 0x1f54e}, {0x1f550, 0x1f567},
    {0x1f57a, 0x1f57a}, {0x1f595, 0x1f596}, {0x1f5a4, 0x1f5a4}, {0x1f5fb, 0x1f64f}, {0x1f680, 0x1f6c5},
    {0x1f6cc, 0x1f6cc}, {0x1f6d0, 0x1f6d2}, {0x1f6d5, 0x1f6df}, {0x1f6eb, 0x1f6ec}, {0x1f6f4, 0x1f6fc},
    {0x1f7e0, 0x1f7f0}, {0x1f90c, 0x1f93a}, {0x1f93c, 0x1f945}, {0x1f947, 0x1f9ff}, {0x1fa70, 0x1faf6},
    {0x20000, 0x3fffd},
};

static bool in_ranges(const struct cp_range *r, size_t n, uint32_t cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < r[mid].lo)
            hi = mid;
        else if (cp > r[mid].hi)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

#define N_RANGES(r) (sizeof(r) / sizeof((r)[0]))

/* The code point of the well-formed sequence of n bytes at s. */
static uint32_t decode(const unsigned char *s, size_t n)
{
    static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
    uint32_t cp = s[0] & lead_mask[n];
    for (size_t k = 1; k < n; k++)
        cp = cp << 6 | (s[k] & 0x3f);
    return cp;
}

bool pt_escape_is_format_char(uint32_t cp)
{
    return in_ranges(format_chars, N_RANGES(format_chars), cp);
}

size_t pt_escape_codepoint_columns(uint32_t cp)
{
    return in_ranges(wide_chars, N_RANGES(wide_chars), cp) ? 2 : 1;
}

#define PIECE_MAX 12 /* "\u{e007f}" and its NUL, with room */

/* The escaped form of the character of n bytes at s (n == 0: one byte
 * that starts no sequence) into piece; returns its length. */
static size_t escape_one(const unsigned char *s, size_t n, char piece[PIECE_MAX])
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
    /* invisible, or reorders the text around it on a terminal */
    if (n >= 2 && pt_escape_is_format_char(decode(s, n)))
        return (size_t)snprintf(piece, PIECE_MAX, "\\u{%x}", (unsigned)decode(s, n));
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
        size_t n = pt_escape_utf8_sequence_length(s + i, len - i);
        char piece[PIECE_MAX];
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

const char *pt_escape(const char *text, char *out, size_t outlen)
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

/* Whole pieces of text's escaped form (a character or its escape) into
 * out while they fit in width columns and room bytes: a cut never splits
 * a UTF-8 sequence or an escape. Returns whether all of text went in. */
static bool column_into(char *out, size_t room, const char *text, size_t width, size_t *used, size_t *cols)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t len = strlen(text);

    *used = *cols = 0;
    for (size_t i = 0; i < len;) {
        size_t n = pt_escape_utf8_sequence_length(s + i, len - i);
        char piece[PIECE_MAX];
        size_t plen = escape_one(s + i, n, piece);
        /* an escape is ASCII, one column a byte; a kept character is one
         * code point */
        size_t w =
            n > 1 && plen == n && memcmp(piece, s + i, n) == 0 ? pt_escape_codepoint_columns(decode(s + i, n)) : plen;
        if (*cols + w > width || *used + plen > room)
            return false;
        memcpy(out + *used, piece, plen);
        *used += plen;
        *cols += w;
        i += n ? n : 1;
    }
    return true;
}

const char *pt_escape_column(const char *text, size_t width, char *out, size_t outlen)
{
    size_t used, cols;

    if (!column_into(out, outlen - 1, text, width, &used, &cols) && width >= 1 && outlen >= 2) {
        column_into(out, outlen - 2, text, width - 1, &used, &cols);
        out[used++] = '~';
        cols++;
    }
    while (cols < width && used + 1 < outlen) {
        out[used++] = ' ';
        cols++;
    }
    out[used] = '\0';
    return out;
}

void pt_escape_collectd(const char *name, char *out, size_t outlen)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t len = strlen(name), used = 0;

    for (size_t i = 0; i < len;) {
        size_t n = pt_escape_utf8_sequence_length(s + i, len - i);
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
