#include "procfs/procfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/dirents.h"

/* Most bytes of file content we accept: far above any real /proc file, low
 * enough that a runaway file cannot eat the collector's memory. */
#define PT_READ_LIMIT ((size_t)16 << 20)

/* pread that retries when a signal interrupts it. Returns bytes or -errno. */
static ssize_t pread_retry(int fd, void *dst, size_t count, size_t offset)
{
    for (;;) {
        ssize_t n = pread(fd, dst, count, (off_t)offset);
        if (n >= 0)
            return n;
        if (errno != EINTR)
            return -errno;
    }
}

/* Twice the room, never past PT_READ_LIMIT bytes and their NUL. */
static void grow_for_read(struct pt_buf *buf)
{
    size_t cap = buf->cap ? buf->cap * 2 : 4096;
    pt_buf_set_capacity(buf, cap < PT_READ_LIMIT + 1 ? cap : PT_READ_LIMIT + 1);
}

/* Bytes the next read may put after buf->len: what the buffer has free,
 * grown when it is full, never past PT_READ_LIMIT in all. */
static size_t room_for_read(struct pt_buf *buf)
{
    if (buf->len >= PT_READ_LIMIT)
        return 0;
    if (buf->cap == 0 || buf->cap - buf->len == 1)
        grow_for_read(buf);
    return buf->cap - buf->len - 1;
}

/* The buffer holds PT_READ_LIMIT bytes: the file fits only if nothing
 * follows. One throwaway byte tells, without growing the buffer further. */
static ssize_t finish_at_limit(int fd, const struct pt_buf *buf)
{
    char next;
    ssize_t n = pread_retry(fd, &next, 1, buf->len);
    if (n < 0)
        return n;
    return n == 0 ? (ssize_t)buf->len : -EFBIG;
}

/* Read everything from offset 0. A zero-byte read is the only end of file
 * we trust: multi-record procfs files return short reads (one page each)
 * long before they end. */
static ssize_t read_to_eof(int fd, struct pt_buf *buf)
{
    for (;;) {
        size_t room = room_for_read(buf);
        if (room == 0)
            return finish_at_limit(fd, buf);
        ssize_t n = pread_retry(fd, buf->data + buf->len, room, buf->len);
        if (n < 0)
            return n;
        buf->len += (size_t)n;
        buf->data[buf->len] = '\0';
        if (n == 0)
            return (ssize_t)buf->len;
    }
}

ssize_t pt_pread_all(int fd, struct pt_buf *buf)
{
    pt_buf_reset(buf);
    ssize_t rc = read_to_eof(fd, buf);
    if (rc < 0)
        pt_buf_reset(buf); /* never half a file for a caller that ignores rc */
    return rc;
}

/* A single-record file is generated whole at offset 0, so a read that
 * leaves room in the buffer got all of it: one syscall, where reading to
 * EOF needs a second one to see the end. A read that fills the buffer may
 * have been cut: grow and read again. */
ssize_t pt_pread_record(int fd, struct pt_buf *buf)
{
    pt_buf_reset(buf);
    for (;;) {
        size_t room = room_for_read(buf);
        ssize_t n = pread_retry(fd, buf->data, room, 0);
        if (n >= 0 && (size_t)n < room) {
            buf->len = (size_t)n;
            buf->data[n] = '\0';
            return n;
        }
        if (n >= 0 && room >= PT_READ_LIMIT)
            n = -EFBIG;
        if (n < 0) {
            pt_buf_reset(buf);
            return n;
        }
        grow_for_read(buf); /* cut: twice the room, then again */
    }
}

ssize_t pt_read_and_close(int fd, struct pt_buf *buf, ssize_t (*reader)(int fd, struct pt_buf *buf))
{
    if (fd < 0) {
        pt_buf_reset(buf);
        return fd;
    }
    ssize_t n = reader(fd, buf);
    close(fd);
    return n;
}

ssize_t pt_read_file_at(int dirfd, const char *path, struct pt_buf *buf)
{
    return pt_read_and_close(pt_open_at(dirfd, path), buf, pt_pread_all);
}

int pt_open_regular_at(int dirfd, const char *name, int flags)
{
    int fd = openat(dirfd, name, flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    return fd;
}

ssize_t pt_read_regular_at(int dirfd, const char *name, struct pt_buf *buf)
{
    return pt_read_and_close(pt_open_regular_at(dirfd, name, O_RDONLY), buf, pt_pread_all);
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

/* The walk of a proc root is a discovery's: no opendir (dirents.h). */
int pt_for_each_pid_in(int dirfd, const char *path, void (*fn)(pid_t pid, void *arg), void *arg)
{
    int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    _Alignas(struct dirent64) char entries[8192];
    struct pt_dirents d;
    pt_dirents_init(&d, fd, entries, sizeof(entries));
    for (const struct dirent64 *e; (e = pt_dirents_next(&d));) {
        pid_t pid = 0;
        const char *p = e->d_name;
        for (; *p >= '0' && *p <= '9' && pid < 100000000; p++)
            pid = pid * 10 + (*p - '0');
        if (*p == '\0' && p != e->d_name) /* 0 is a descriptor number, never a pid */
            fn(pid, arg);
    }
    close(fd);
    return d.error;
}

/* In one mountinfo line ("ID PARENT MAJ:MIN ROOT POINT OPTS ... - TYPE
 * SOURCE SUPEROPTS"), a proc mount of device dev with a hidepid option
 * other than 0 (off): that option into out. */
static bool line_hides(const char *line, dev_t dev, char *out, size_t outlen)
{
    unsigned maj, min;
    const char *sep = strstr(line, " - ");
    if (!sep || sscanf(line, "%*s %*s %u:%u", &maj, &min) != 2 || makedev(maj, min) != dev ||
        strncmp(sep + 3, "proc ", 5) != 0)
        return false;
    const char *opt = strstr(sep, "hidepid=");
    if (!opt || strncmp(opt, "hidepid=0", 9) == 0 || strncmp(opt, "hidepid=off", 11) == 0)
        return false;
    size_t len = strcspn(opt, ", \n");
    snprintf(out, outlen, "%.*s", (int)len, opt);
    return true;
}

bool pt_proc_root_hidepid(int proc_root_fd, struct pt_buf *buf, char *out, size_t outlen)
{
    struct stat st;
    if (fstat(proc_root_fd, &st) != 0)
        return false;
    if (pt_read_file_at(AT_FDCWD, "/proc/self/mountinfo", buf) <= 0)
        return false; /* the buffer is NUL-terminated */
    for (char *line = buf->data; *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        if (line_hides(line, st.st_dev, out, outlen))
            return true;
        if (!end)
            break;
        line = end + 1;
    }
    return false;
}
