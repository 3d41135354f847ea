/* escape: text from outside (target names, comms, paths, regexes, user
 * names, commands) made safe for a log line or an error message.
 *
 * Anyone who can name a process or write a pid file chooses such text: a
 * comm "a\nE! forged" printed raw would add a forged line to Telegraf's
 * log. Every message that quotes outside text passes it through
 * pt_escape(), inside double quotes.
 *
 * This is the frontends' part; util/escape.h, which includes it, the
 * library's rest (UTF-8 and the columns of a terminal). */
#ifndef PROCTREE_ESCAPE_H
#define PROCTREE_ESCAPE_H

#include <stddef.h>

/* Escape text for a quoted log field: '"' and '\' get a backslash; newline
 * and tab become \n and \t, every other control character (C0, DEL, and
 * the C1 controls U+0080..U+009F, as their two bytes) \xHH; each byte that
 * does not start a well-formed UTF-8 sequence \xHH; each format character
 * (pt_escape_is_format_char: U+202E and the other bidi controls, U+200B, U+FEFF)
 * \u{HEX}, as "\u{202e}". Other UTF-8 is kept.
 * Writes at most outlen - 1 bytes and a NUL (outlen >= 4): text that does
 * not fit is cut at a whole character or escape and ends in "...".
 * Returns out, for use as a printf argument. */
const char *pt_escape(const char *text, char *out, size_t outlen);

/* A name (a process's comm, a cgroup's directory) as a part of collectd's
 * identifiers: '/' (a path separator for the csv and rrd writers), '\'
 * and every control character (C0, DEL, and a C1 control's two bytes)
 * become one '_' each, as docs/METRICS.md says; anything else is kept,
 * bytes of no UTF-8 sequence too (groupkey.c tells them apart). Writes at
 * most outlen - 1 bytes and a NUL (outlen >= 1), cut at a whole
 * character. */
void pt_escape_collectd(const char *name, char *out, size_t outlen);

/* text as a column of a table: escaped as pt_escape() does, padded with
 * spaces to exactly width columns as a terminal counts them (a CJK
 * character is two), or cut at a whole character or escape to width - 1
 * columns and ended with "~" (then padded, if a wide character left one
 * column over). outlen >= 4 * width + 1 holds every column. Returns out. */
const char *pt_escape_column(const char *text, size_t width, char *out, size_t outlen);

/* Room for outside text quoted in a one-line message (it is cut past it). */
#define PT_QUOTED_MAX 160

/* Room for an escaped name of up to n bytes, in full: 4 bytes per byte. */
#define PT_ESCAPED_SIZE(n) (4 * (n) + 1)

#endif
