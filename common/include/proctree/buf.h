/* buf: a growable byte buffer, the one proctree uses for everything it
 * reads (a /proc file) and writes (a batch of line protocol). The idea of
 * git's strbuf.
 *
 * Invariants:
 *   - a zeroed struct pt_buf is an empty buffer, ready to use;
 *   - data is NULL exactly when cap is 0;
 *   - otherwise len < cap and data[len] == '\0': the contents may be
 *     parsed as a string after any operation (they may also hold NULs);
 *   - growth goes through pt_xrealloc (base.h), so it never fails.
 * Ownership: the struct owns data. pt_buf_reset keeps the memory for the
 * next use (a poll or a batch about as large as the last one), so steady
 * state allocates nothing; pt_buf_free gives it back.
 *
 * This is the frontends' part; util/buf.h, which includes it, the
 * library's rest. */
#ifndef PROCTREE_BUF_H
#define PROCTREE_BUF_H

#include <stddef.h>

struct pt_buf {
    char *data;
    size_t len;
    size_t cap;
};

void pt_buf_append(struct pt_buf *b, const void *bytes, size_t n);
void pt_buf_puts(struct pt_buf *b, const char *s);
/* Cut the contents back to len bytes (len <= b->len). */
void pt_buf_truncate(struct pt_buf *b, size_t len);
/* Empty, keeping the memory. */
void pt_buf_reset(struct pt_buf *b);
void pt_buf_free(struct pt_buf *b);

#endif
