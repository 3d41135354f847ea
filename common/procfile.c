#include "procfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* The first allocation fits any single-record /proc file in one read. */
#define PT_BUF_INITIAL 4096
/* Most bytes of file content we accept: far above any real /proc file, low
 * enough that a runaway file cannot eat the collector's memory. */
#define PT_READ_LIMIT ((size_t)16 << 20)

void pt_buf_free(struct pt_buf *buf)
{
    free(buf->data);
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
}

/* pread that retries when a signal interrupts it. Returns bytes or -errno. */
static ssize_t pread_retry(int fd, void *dst, size_t count, size_t offset)
{
    for (;;) {
        ssize_t n = pread(fd, dst, count, (off_t)offset);
        if (n >= 0) return n;
        if (errno != EINTR) return -errno;
    }
}

/* Double the buffer (PT_BUF_INITIAL when empty), never past room for
 * PT_READ_LIMIT bytes plus the NUL. Returns 0 or -ENOMEM. */
static int buf_grow(struct pt_buf *buf)
{
    size_t cap = buf->cap ? buf->cap * 2 : PT_BUF_INITIAL;
    if (cap > PT_READ_LIMIT + 1) cap = PT_READ_LIMIT + 1;
    char *data = realloc(buf->data, cap);
    if (!data) return -ENOMEM;
    buf->data = data;
    buf->cap = cap;
    return 0;
}

/* The buffer holds PT_READ_LIMIT bytes: the file fits only if nothing
 * follows. One throwaway byte tells, without growing the buffer further. */
static ssize_t finish_at_limit(int fd, const struct pt_buf *buf)
{
    char next;
    ssize_t n = pread_retry(fd, &next, 1, buf->len);
    if (n < 0) return n;
    return n == 0 ? (ssize_t)buf->len : -EFBIG;
}

/* Read everything into buf->data, keeping one byte free for the NUL.
 * A zero-byte read is the only end of file we trust: multi-record procfs
 * files return short reads (one page each) long before they end. */
static ssize_t read_to_eof(int fd, struct pt_buf *buf)
{
    for (;;) {
        if (buf->cap - buf->len < 2) {
            if (buf->len == PT_READ_LIMIT) return finish_at_limit(fd, buf);
            int err = buf_grow(buf);
            if (err) return err;
        }
        ssize_t n = pread_retry(fd, buf->data + buf->len, buf->cap - buf->len - 1, buf->len);
        if (n < 0) return n;
        buf->len += (size_t)n;
        buf->data[buf->len] = '\0';
        if (n == 0) return (ssize_t)buf->len;
    }
}

ssize_t pt_pread_all(int fd, struct pt_buf *buf)
{
    buf->len = 0;
    ssize_t rc = read_to_eof(fd, buf);
    if (rc < 0) {
        /* Never leave half a file behind for a caller that ignores rc. */
        buf->len = 0;
        if (buf->data) buf->data[0] = '\0';
    }
    return rc;
}

/* A single-record file is generated whole at offset 0, so a read that
 * leaves room in the buffer got all of it: one syscall, where reading to
 * EOF needs a second one to see the end. A read that fills the buffer may
 * have been cut: grow and read again. */
ssize_t pt_pread_record(int fd, struct pt_buf *buf)
{
    buf->len = 0;
    for (;;) {
        if (buf->cap < PT_BUF_INITIAL || buf->len == buf->cap - 1) {
            int err = buf->cap > PT_READ_LIMIT ? -EFBIG : buf_grow(buf);
            if (err) {
                buf->len = 0;
                if (buf->data) buf->data[0] = '\0';
                return err;
            }
        }
        ssize_t n = pread_retry(fd, buf->data, buf->cap - 1, 0);
        if (n < 0) {
            buf->len = 0;
            buf->data[0] = '\0';
            return n;
        }
        buf->len = (size_t)n;
        buf->data[n] = '\0';
        if (buf->len < buf->cap - 1)
            return n;
    }
}

int pt_open_at(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

int pt_errno_is_gone(int err)
{
    return err == -ESRCH || err == -ENOENT;
}

/* getdents64 into a buffer on the stack rather than opendir(), which
 * allocates: a discovery walk must not touch the heap. */
int pt_for_each_pid_in(int dirfd, const char *path, void (*fn)(pid_t pid, void *arg), void *arg)
{
    int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    _Alignas(struct dirent64) char entries[8192];
    int err = 0;
    for (;;) {
        ssize_t n = getdents64(fd, entries, sizeof(entries));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err = n < 0 ? -errno : 0;
            break;
        }
        for (ssize_t off = 0; off < n;) {
            const struct dirent64 *e = (const struct dirent64 *)(entries + off);
            off += e->d_reclen;
            pid_t pid = 0;
            const char *p = e->d_name;
            for (; *p >= '0' && *p <= '9' && pid < 100000000; p++)
                pid = pid * 10 + (*p - '0');
            if (*p == '\0' && p != e->d_name) /* 0 is a descriptor number, never a pid */
                fn(pid, arg);
        }
    }
    close(fd);
    return err;
}
