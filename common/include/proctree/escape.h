/* escape: text from outside (target names, comms, paths, regexes, user
 * names, commands) made safe for a log line or an error message.
 *
 * Anyone who can name a process or write a pid file chooses such text: a
 * comm "a\nE! forged" printed raw would add a forged line to Telegraf's
 * log. Every message that quotes outside text passes it through
 * pt_escape(), inside double quotes. */
#ifndef PROCTREE_ESCAPE_H
#define PROCTREE_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Length of the well-formed UTF-8 sequence at s (at most avail bytes), or
 * 0 if there is none (stray continuation bytes, overlong forms,
 * surrogates, code points past U+10FFFF, sequences cut short). */
size_t pt_utf8_sequence_length(const unsigned char *s, size_t avail);

/* Escape text for a quoted log field: '"' and '\' get a backslash; newline
 * and tab become \n and \t, every other control character (C0, DEL, and
 * the C1 controls U+0080..U+009F, as their two bytes) \xHH; each byte that
 * does not start a well-formed UTF-8 sequence \xHH; each format character
 * (pt_is_format_char: U+202E and the other bidi controls, U+200B, U+FEFF)
 * \u{HEX}, as "\u{202e}". Other UTF-8 is kept.
 * Writes at most outlen - 1 bytes and a NUL (outlen >= 4): text that does
 * not fit is cut at a whole character or escape and ends in "...".
 * Returns out, for use as a printf argument. */
const char *pt_escape(char *out, size_t outlen, const char *text);

/* A name (a process's comm, a cgroup's directory) as a part of collectd's
 * identifiers: '/' (a path separator for the csv and rrd writers), '\'
 * and every control character (C0, DEL, and a C1 control's two bytes)
 * become one '_' each, as docs/METRICS.md says; anything else is kept,
 * bytes of no UTF-8 sequence too (groupkey.c tells them apart). Writes at
 * most outlen - 1 bytes and a NUL (outlen >= 1), cut at a whole
 * character. */
void pt_escape_collectd(char *out, size_t outlen, const char *name);

/* Whether code point cp is of Unicode's general category Cf (format
 * characters): invisible, or reordering the text around it on a terminal
 * (U+200B..U+200F, U+202A..U+202E, U+2060..U+2064, U+2066..U+206F, U+FEFF,
 * U+00AD, U+061C, U+180E and the rest). */
bool pt_is_format_char(uint32_t cp);

/* Columns a terminal gives code point cp: 2 for Unicode's East Asian Wide
 * and Fullwidth (CJK, Hangul, fullwidth forms, most emoji), else 1. From a
 * table of our own, not wcwidth(3), so it does not depend on the locale.
 * Combining marks are not told apart (counted 1). */
size_t pt_codepoint_columns(uint32_t cp);

/* text as a column of a table: escaped as pt_escape() does, padded with
 * spaces to exactly width columns as a terminal counts them (a CJK
 * character is two), or cut at a whole character or escape to width - 1
 * columns and ended with "~" (then padded, if a wide character left one
 * column over). outlen >= 4 * width + 1 holds every column. Returns out. */
const char *pt_escape_column(char *out, size_t outlen, const char *text, size_t width);

/* Room for outside text quoted in a one-line message (it is cut past it). */
#define PT_QUOTED_MAX 160

/* Room for an escaped name of up to n bytes, in full: 4 bytes per byte. */
#define PT_ESCAPED_SIZE(n) (4 * (n) + 1)

#endif
