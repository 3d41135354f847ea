/* escape: text from outside (target names, comms, paths, regexes, user
 * names, commands) made safe for a log line or an error message.
 *
 * Anyone who can name a process or write a pid file chooses such text: a
 * comm "a\nE! forged" printed raw would add a forged line to Telegraf's
 * log. Every message that quotes outside text passes it through
 * pt_escape(), inside double quotes. */
#ifndef PROCTREE_ESCAPE_H
#define PROCTREE_ESCAPE_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s (at most avail bytes), or
 * 0 if there is none (stray continuation bytes, overlong forms,
 * surrogates, code points past U+10FFFF, sequences cut short). */
size_t pt_utf8_sequence_length(const unsigned char *s, size_t avail);

/* Escape text for a quoted log field: '"' and '\' get a backslash; newline
 * and tab become \n and \t, every other control character (C0, DEL, and
 * the C1 controls U+0080..U+009F, as their two bytes) \xHH; each byte that
 * does not start a well-formed UTF-8 sequence \xHH. Other UTF-8 is kept.
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

/* Room for outside text quoted in a one-line message (it is cut past it). */
#define PT_QUOTED_MAX 160

/* Room for an escaped name of up to n bytes, in full: 4 bytes per byte. */
#define PT_ESCAPED_SIZE(n) (4 * (n) + 1)

#endif
