#include "util/buf.h"

#include <string.h>

#include "util/base.h"

/* Enough for any single-record /proc file and a batch of a few targets. */
#define PT_BUF_INITIAL 4096

void pt_buf_set_capacity(struct pt_buf *b, size_t cap)
{
    if (cap <= b->len)
        return;
    b->data = pt_xrealloc(b->data, cap);
    b->cap = cap;
    b->data[b->len] = '\0';
}

/* Room for at least more bytes after len, and the NUL after them; the
 * capacity at least doubles when it grows. */
static void reserve(struct pt_buf *b, size_t more)
{
    if (b->cap && b->cap - b->len > more)
        return;
    size_t cap = b->cap ? b->cap : PT_BUF_INITIAL;
    while (cap - b->len <= more)
        cap *= 2;
    pt_buf_set_capacity(b, cap);
}

void pt_buf_append(struct pt_buf *b, const void *bytes, size_t n)
{
    reserve(b, n);
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void pt_buf_putc(struct pt_buf *b, char c)
{
    pt_buf_append(b, &c, 1);
}

void pt_buf_puts(struct pt_buf *b, const char *s)
{
    pt_buf_append(b, s, strlen(s));
}

void pt_buf_truncate(struct pt_buf *b, size_t len)
{
    if (!b->data || len > b->len)
        return;
    b->len = len;
    b->data[len] = '\0';
}

void pt_buf_reset(struct pt_buf *b)
{
    pt_buf_truncate(b, 0);
}

void pt_buf_free(struct pt_buf *b)
{
    pt_xrealloc(b->data, 0);
    *b = (struct pt_buf){0};
}
