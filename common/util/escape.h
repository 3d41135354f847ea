/* escape, the library's part: the UTF-8 and terminal columns the escapes
 * of proctree/escape.h are made of. */
#ifndef PROCTREE_UTIL_ESCAPE_H
#define PROCTREE_UTIL_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proctree/escape.h"

/* Length of the well-formed UTF-8 sequence at s (at most avail bytes), or
 * 0 if there is none (stray continuation bytes, overlong forms,
 * surrogates, code points past U+10FFFF, sequences cut short). */
size_t pt_escape_utf8_sequence_length(const unsigned char *s, size_t avail);

/* Whether code point cp is of Unicode's general category Cf (format
 * characters): invisible, or reordering the text around it on a terminal
 * (U+200B..U+200F, U+202A..U+202E, U+2060..U+2064, U+2066..U+206F, U+FEFF,
 * U+00AD, U+061C, U+180E and the rest). */
bool pt_escape_is_format_char(uint32_t cp);

/* Columns a terminal gives code point cp: 2 for Unicode's East Asian Wide
 * and Fullwidth (CJK, Hangul, fullwidth forms, most emoji), else 1. From a
 * table of our own, not wcwidth(3), so it does not depend on the locale.
 * Combining marks are not told apart (counted 1). */
size_t pt_escape_codepoint_columns(uint32_t cp);

#endif
