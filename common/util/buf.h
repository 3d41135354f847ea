/* buf, the library's part (proctree/buf.h: the buffer, its invariants and
 * what the frontends use of it). */
#ifndef PROCTREE_UTIL_BUF_H
#define PROCTREE_UTIL_BUF_H

#include <stddef.h>

#include "proctree/buf.h"

/* The capacity set to exactly cap (> len), for a reader that bounds what
 * it holds (procfile.c: no /proc file may make it hold more than 16 MiB). */
void pt_buf_set_capacity(struct pt_buf *b, size_t cap);
void pt_buf_putc(struct pt_buf *b, char c);

#endif
