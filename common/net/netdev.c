#include "net/netdev.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procfs/procfile.h"

static const char HEAD1[] = "Inter-|", HEAD2[] = " face |";
#define COUNTERS 16

/* The line at *p (its end, the newline, at or before end): the pointer
 * past its newline, or NULL when the line has none (cut short). */
static const char *line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl + 1 : NULL;
}

static bool starts(const char *p, const char *end, const char *prefix, size_t n)
{
    return (size_t)(end - p) >= n && memcmp(p, prefix, n) == 0;
}

/* One decimal counter at *p, before end: no sign, within uint64. */
static bool counter(const char **p, const char *end, uint64_t *out)
{
    const char *q = *p;
    uint64_t v = 0;
    for (; q < end && *q >= '0' && *q <= '9'; q++) {
        unsigned d = (unsigned)(*q - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (q == *p)
        return false;
    *p = q;
    *out = v < PT_MAX_COUNT ? v : PT_MAX_COUNT;
    return true;
}

static const char *blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* One interface's line [p, end) (its newline excluded) into *out. */
static bool interface(const char *p, const char *end, struct pt_netdev_if *out)
{
    while (p < end && *p == ' ')
        p++;
    const char *colon = memchr(p, ':', (size_t)(end - p));
    if (!colon || colon == p || colon - p >= PT_NETDEV_NAME_MAX)
        return false;
    for (const char *q = p; q < colon; q++)
        if (*q == ' ' || *q == '\t' || *q == '\0' || *q == '/')
            return false; /* no name the kernel accepts holds one */
    memset(out->name, 0, sizeof(out->name));
    memcpy(out->name, p, (size_t)(colon - p));
    p = colon + 1;
    uint64_t v[COUNTERS];
    for (int k = 0; k < COUNTERS; k++) {
        const char *before = p;
        p = blanks(p, end);
        if ((k > 0 && p == before) || !counter(&p, end, &v[k]))
            return false; /* the first may follow the colon at once (a counter wider than its column) */
    }
    if (blanks(p, end) != end)
        return false;
    out->rx_bytes = v[0];
    out->rx_packets = v[1];
    out->tx_bytes = v[8];
    out->tx_packets = v[9];
    return true;
}

int pt_netdev_parse(const char *buf, size_t len, struct pt_netdev_if *out, size_t max, bool *cut)
{
    const char *p = buf, *end = buf + len;
    if (cut)
        *cut = false;
    const char *next = line_end(p, end);
    if (!next || !starts(p, next, HEAD1, sizeof(HEAD1) - 1))
        return -1;
    p = next;
    next = line_end(p, end);
    if (!next || !starts(p, next, HEAD2, sizeof(HEAD2) - 1))
        return -1;
    size_t n = 0;
    for (p = next; p < end; p = next) {
        next = line_end(p, end);
        if (!next) {
            if (cut)
                *cut = true;
            break;
        }
        if (n == max || !interface(p, next - 1, &out[n]))
            return -1;
        for (size_t k = 0; k < n; k++)
            if (strcmp(out[k].name, out[n].name) == 0)
                return -1;
        n++;
    }
    return (int)n;
}

ssize_t pt_netdev_read(int proc_root_fd, pid_t pid, char *buf, size_t cap)
{
    char path[32];
    snprintf(path, sizeof(path), "%d/net/dev", (int)pid);
    int fd = pt_procfs_open_at(proc_root_fd, path);
    if (fd < 0)
        return fd;
    size_t len = 0;
    ssize_t r;
    /* read, not pread: a seq_file read at an offset past 0 walks the
     * records again from the first */
    while (len < cap && (r = read(fd, buf + len, cap - len)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int err = errno;
            close(fd);
            return -err;
        }
        len += (size_t)r;
    }
    if (len == cap) {
        /* full: its end only if nothing follows */
        char more;
        while ((r = read(fd, &more, 1)) < 0 && errno == EINTR)
            ;
        if (r != 0) {
            close(fd);
            return r > 0 ? -E2BIG : -errno;
        }
    }
    close(fd);
    return (ssize_t)len;
}
