/* output: batches to stdout without ever stalling the loop.
 *
 * Telegraf never closes stdout while we run, but it may stop reading it
 * for a while (a blocked output, a paused agent). Writes to a pipe or
 * socket on stdout never block: what the reader does not take now is
 * queued and written when stdout is writable again, so polls go on and
 * min/max stay exact meanwhile. The queue holds the unwritten rest of one
 * batch (never dropped: a cut line would be a wrong metric) and whole
 * batches after it up to EXECD_OUTPUT_QUEUE_MAX bytes; later batches are
 * dropped while it is full, with one W! line when dropping starts and one
 * I! line with the count when the reader has caught up. A terminal or a
 * file is written as before (blocking).
 *
 * O_NONBLOCK belongs to the open file description, which stdout shares
 * with whoever else holds it: our stderr after 2>&1, a journal stream, the
 * launched command given our stderr. So it is never set there: a pipe is
 * opened again through /proc/self/fd (a description of our own, made
 * non-blocking), a socket is written with MSG_DONTWAIT. */
#ifndef PROCTREE_EXECD_OUTPUT_H
#define PROCTREE_EXECD_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "proctree/buf.h"

#define EXECD_OUTPUT_QUEUE_MAX (1024 * 1024)

struct execd_output {
    int fd;              /* what the batches are written to: ours, or the caller's */
    bool own_fd;         /* fd is a pipe's description of our own, closed at the end */
    bool socket;         /* fd is a socket: written with MSG_DONTWAIT */
    struct pt_buf queue; /* queue.data[done..queue.len) are unwritten */
    size_t done;
    size_t dropped; /* batches dropped since the queue last emptied */
};

void execd_output_init(struct execd_output *out, int fd);

/* Queue one batch (whole lines) and write what the reader takes now.
 * Returns -1 with errno set when stdout is gone (EPIPE) or failed. */
int execd_output_batch(struct execd_output *out, const char *data, size_t len);

/* Write more of the queue; call when fd polls writable. -1 as above. */
int execd_output_flush(struct execd_output *out);

/* True while queued bytes wait for the reader. */
bool execd_output_waiting(const struct execd_output *out);

/* Give the reader up to `seconds` to take the rest, then free the queue
 * (and close our own description). */
void execd_output_end(struct execd_output *out, double seconds);

#endif
