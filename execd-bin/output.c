#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proctree/collector.h"

/* A pipe's description of our own, non-blocking: -1 where it cannot be
 * had (no reader left: O_NONBLOCK's open of a FIFO fails with ENXIO). */
static int reopen_pipe(int fd)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    return open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
}

void execd_output_init(struct execd_output *out, int fd)
{
    memset(out, 0, sizeof(*out));
    out->fd = fd;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return;
    if (S_ISSOCK(st.st_mode)) {
        out->socket = true;
    } else if (S_ISFIFO(st.st_mode)) {
        int own = reopen_pipe(fd);
        if (own >= 0) {
            out->fd = own;
            out->own_fd = true;
        } /* else blocking writes, as to a file: never the shared description's mode */
    }
}

/* One write that never blocks on a socket or our own pipe description. */
static ssize_t write_some(const struct execd_output *out, const char *data, size_t len)
{
    if (out->socket)
        return send(out->fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    return write(out->fd, data, len);
}

bool execd_output_waiting(const struct execd_output *out)
{
    return out->done < out->queue.len;
}

int execd_output_flush(struct execd_output *out)
{
    while (out->done < out->queue.len) {
        ssize_t n = write_some(out, out->queue.data + out->done, out->queue.len - out->done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0)
            return -1;
        out->done += (size_t)n;
    }
    out->done = 0;
    pt_buf_reset(&out->queue);
    if (out->dropped) {
        pt_logf(PT_LOG_INFO, "stdout is read again; %zu batches were dropped meanwhile", out->dropped);
        out->dropped = 0;
    }
    return 0;
}

/* Keep only the unwritten bytes, at the start of the buffer. Nothing
 * written: nothing to move (and before the first batch data is NULL,
 * which memmove must not be given even for 0 bytes). */
static void compact(struct execd_output *out)
{
    if (out->done == 0)
        return;
    size_t left = out->queue.len - out->done;
    memmove(out->queue.data, out->queue.data + out->done, left);
    pt_buf_truncate(&out->queue, left);
    out->done = 0;
}

int execd_output_batch(struct execd_output *out, const char *data, size_t len)
{
    if (execd_output_waiting(out) && out->queue.len - out->done + len > EXECD_OUTPUT_QUEUE_MAX) {
        if (out->dropped++ == 0)
            pt_logf(PT_LOG_WARNING, "stdout is not read: %zu bytes wait; dropping batches until it is",
                    out->queue.len - out->done);
        return execd_output_flush(out);
    }
    compact(out);
    pt_buf_append(&out->queue, data, len); /* grows by base.h's policy */
    return execd_output_flush(out);
}

void execd_output_end(struct execd_output *out, double seconds)
{
    double give_up = pt_now() + seconds;
    while (execd_output_waiting(out) && execd_output_flush(out) == 0 && execd_output_waiting(out)) {
        double left = give_up - pt_now();
        struct pollfd p = {.fd = out->fd, .events = POLLOUT};
        if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
            break;
    }
    if (out->own_fd)
        close(out->fd);
    pt_buf_free(&out->queue);
    memset(out, 0, sizeof(*out));
}
