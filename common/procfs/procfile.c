/* procfile: a /proc file read through a kept descriptor (or at a
 * directory's), and parsed: the per-process files of fixed layout (stat,
 * statm, schedstat, limits) here; the key-value files are kvparse.c's,
 * the lists of pids pidparse.c's, the cursor they share parsecursor.h's;
 * the walks of a proc root's numbered entries are pidwalk.c's. */
#include "procfs/procfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/base.h"
#include "util/parsecursor.h"

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

ssize_t pt_procfs_pread_all(int fd, struct pt_buf *buf)
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
ssize_t pt_procfs_pread_record(int fd, struct pt_buf *buf)
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

/* Mounts are not crossed below the proc root (pt_procfs_confine_mounts). */
static bool confine_mounts;

/* Whether the kernel has openat2 (Linux 5.6), asked once. */
static bool have_openat2(void)
{
    static int known; /* 1: it answers; -1: ENOSYS */
    if (!known) {
        struct open_how how = {.flags = O_RDONLY | O_CLOEXEC, .resolve = RESOLVE_BENEATH};
        long fd = syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof(how));
        known = fd >= 0 || errno != ENOSYS ? 1 : -1;
        if (fd >= 0)
            close((int)fd);
    }
    return known > 0;
}

/* path under dirfd, never above it, through no magic link (fd/N, exe,
 * root, cwd: each leads anywhere), and across no mount when xdev (a file
 * mounted over one of a proc filesystem's in a namespace its owner made).
 * Where the kernel has no openat2, the last component is not followed if
 * it is a link (the policy's caller gives up lent capabilities there:
 * pt_procfs_open_is_confined). AT_FDCWD takes an absolute path as it is. */
static int open_beneath(int dirfd, const char *path, int flags, bool xdev)
{
    if (dirfd == AT_FDCWD)
        return openat(dirfd, path, flags);
    if (!have_openat2())
        return openat(dirfd, path, flags | O_NOFOLLOW);
    struct open_how how = {
        .flags = (uint64_t)(unsigned)flags,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | (xdev ? RESOLVE_NO_XDEV : 0),
    };
    long fd;
    int tries = 0;
    do /* EAGAIN: a rename raced the walk; past a few, as a vanished file */
        fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
    while (fd < 0 && errno == EAGAIN && ++tries < 4);
    return (int)fd;
}

int pt_procfs_openat_confined(int dirfd, const char *path, int flags)
{
    return open_beneath(dirfd, path, flags, confine_mounts);
}

bool pt_procfs_open_is_confined(void)
{
    return have_openat2();
}

void pt_procfs_confine_mounts(void)
{
    confine_mounts = true;
}

ssize_t pt_procfs_read_and_close(int fd, struct pt_buf *buf, ssize_t (*reader)(int fd, struct pt_buf *buf))
{
    if (fd < 0) {
        pt_buf_reset(buf);
        return fd;
    }
    ssize_t n = reader(fd, buf);
    close(fd);
    return n;
}

ssize_t pt_procfs_read_file_at(int dirfd, const char *path, struct pt_buf *buf)
{
    return pt_procfs_read_and_close(pt_procfs_open_at(dirfd, path), buf, pt_procfs_pread_all);
}

int pt_procfs_open_at(int dirfd, const char *name)
{
    int fd = pt_procfs_openat_confined(dirfd, name, O_RDONLY | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

int pt_procfs_open_sysctl_at(int dirfd, const char *name)
{
    /* /proc/sys is a read-only mount of its own in a container, and its
     * values are numbers of the host's, no process's */
    int fd = open_beneath(dirfd, name, O_RDONLY | O_CLOEXEC, false);
    return fd >= 0 ? fd : -errno;
}

int pt_procfs_errno_is_gone(int err)
{
    return err == -ESRCH || err == -ENOENT;
}

/* ---- the parsers of fixed layout ---- */
/* ---- /proc/PID/stat ---- */

/* One stat field as the kernel writes it: exactly one space, the number,
 * then the next separator. */
static int stat_u64(struct cursor *c, uint64_t *out)
{
    return take_char(c, ' ') && !scan_u64(c, out) && number_ended(c) ? 0 : -1;
}

static int stat_i64(struct cursor *c, int64_t *out)
{
    return take_char(c, ' ') && !scan_i64(c, out) && number_ended(c) ? 0 : -1;
}

/* Copy comm bytes as they are, cut to fit, always NUL-terminated. */
static void copy_comm(char *dst, const char *src, size_t len)
{
    if (len > PT_COMM_MAX - 1)
        len = PT_COMM_MAX - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* Fields 1-3: "pid (comm) state". A process chooses its own comm and may
 * put ") " in it, but no field after comm can hold ')', so comm ends at
 * the last ')' in the buffer. */
static int scan_stat_head(struct cursor *c, struct pt_stat *st)
{
    if (scan_pid(c, &st->pid) || st->pid == 0)
        return -1;
    if (!take_char(c, ' ') || !take_char(c, '('))
        return -1;
    const char *last_paren = memrchr(c->p, ')', (size_t)(c->end - c->p));
    if (!last_paren)
        return -1;
    copy_comm(st->comm, c->p, (size_t)(last_paren - c->p));
    c->p = last_paren + 1;
    if (!take_char(c, ' ') || at_end(c) || is_space(*c->p))
        return -1;
    st->state = *c->p++;
    return 0;
}

/* Fields 4-24, ppid to rss. Fields we do not keep are still checked, so
 * that a malformed line cannot shift the ones we keep. */
static int scan_stat_fields(struct cursor *c, struct pt_stat *st)
{
    int64_t ppid, ignored_signed;

    if (stat_i64(c, &ppid) || ppid < 0 || ppid > INT_MAX)
        return -1; /* 4 */
    st->ppid = (pid_t)ppid;
    for (int field = 5; field <= 8; field++) /* pgrp session tty_nr tpgid */
        if (stat_i64(c, &ignored_signed))
            return -1;
    if (stat_u64(c, &st->flags))
        return -1; /* 9 */
    if (stat_u64(c, &st->minflt) || stat_u64(c, &st->cminflt) || stat_u64(c, &st->majflt) || stat_u64(c, &st->cmajflt))
        return -1; /* 10-13 */
    if (stat_u64(c, &st->utime) || stat_u64(c, &st->stime) || stat_u64(c, &st->cutime) || stat_u64(c, &st->cstime))
        return -1; /* 14-17 */
    if (stat_i64(c, &ignored_signed) || stat_i64(c, &ignored_signed))
        return -1; /* 18-19: priority nice */
    if (stat_i64(c, &st->num_threads))
        return -1; /* 20 */
    if (stat_i64(c, &ignored_signed))
        return -1; /* 21: itrealvalue */
    if (stat_u64(c, &st->starttime) || stat_u64(c, &st->vsize))
        return -1;                      /* 22-23 */
    return stat_i64(c, &st->rss_pages); /* 24 */
}

/* Clamp what proctree adds up; a negative thread count is none. */
static void clamp_stat(struct pt_stat *st)
{
    uint64_t *counts[] = {&st->minflt, &st->cminflt, &st->majflt, &st->cmajflt,
                          &st->utime,  &st->stime,   &st->cutime, &st->cstime};
    for (size_t i = 0; i < PT_ARRAY_LEN(counts); i++)
        *counts[i] = at_most(*counts[i], PT_MAX_COUNT);
    if (st->num_threads < 0)
        st->num_threads = 0;
    if (st->num_threads > PT_MAX_THREADS)
        st->num_threads = PT_MAX_THREADS;
}

/* One field of any number the kernel prints there, signed or not, which
 * is not kept (rsslim is 2^64 - 1 when unlimited, exit_signal may be -1). */
static int stat_skip(struct cursor *c)
{
    uint64_t ignored;
    if (!take_char(c, ' '))
        return -1;
    take_char(c, '-');
    return !scan_u64(c, &ignored) && number_ended(c) ? 0 : -1;
}

/* Fields 25-42, rsslim to delayacct_blkio_ticks. */
static int scan_stat_blkio(struct cursor *c, struct pt_stat *st)
{
    for (int field = 25; field <= 41; field++)
        if (stat_skip(c))
            return -1;
    if (stat_u64(c, &st->blkio_ticks))
        return -1;
    st->blkio_ticks = at_most(st->blkio_ticks, PT_MAX_COUNT);
    return 0;
}

static int parse_stat(const char *buf, size_t len, bool blkio, struct pt_stat *out)
{
    struct cursor c = {buf, buf + len};
    struct pt_stat st;
    if (scan_stat_head(&c, &st) || scan_stat_fields(&c, &st))
        return -1;
    st.has_blkio = blkio && scan_stat_blkio(&c, &st) == 0;
    if (!st.has_blkio)
        st.blkio_ticks = 0;
    clamp_stat(&st);
    *out = st;
    return 0;
}

int pt_procfs_parse_stat(const char *buf, size_t len, struct pt_stat *out)
{
    return parse_stat(buf, len, false, out);
}

int pt_procfs_parse_stat_with_blkio(const char *buf, size_t len, struct pt_stat *out)
{
    return parse_stat(buf, len, true, out);
}

/* ---- /proc/PID/statm ---- */

/* A field of a blank-separated line: blanks, then a number ended by whitespace. */
static int spaced_u64(struct cursor *c, uint64_t *out)
{
    skip_blanks(c);
    return !scan_u64(c, out) && number_ended(c) ? 0 : -1;
}

enum pt_task_state pt_procfs_task_state_of(char letter)
{
    switch (letter) {
    case 'R':
        return PT_TS_RUNNING;
    case 'S':
    case 'I':
        return PT_TS_SLEEPING;
    case 'D':
        return PT_TS_BLOCKED;
    case 'T':
    case 't':
        return PT_TS_STOPPED;
    case 'Z':
        return PT_TS_ZOMBIE;
    default:
        return PT_TS_OTHER;
    }
}

bool pt_procfs_task_has_exited(char letter)
{
    return letter == 'Z' || letter == 'X';
}

int pt_procfs_parse_statm(const char *buf, size_t len, struct pt_statm *out)
{
    struct cursor c = {buf, buf + len};
    struct pt_statm statm;
    if (spaced_u64(&c, &statm.size) || spaced_u64(&c, &statm.resident) || spaced_u64(&c, &statm.shared))
        return -1;
    statm.size = at_most(statm.size, PT_MAX_PAGES);
    statm.resident = at_most(statm.resident, PT_MAX_PAGES);
    statm.shared = at_most(statm.shared, PT_MAX_PAGES);
    *out = statm;
    return 0;
}

/* ---- /proc/PID/schedstat ---- */

int pt_procfs_parse_schedstat(const char *buf, size_t len, struct pt_schedstat *out)
{
    struct cursor c = {buf, buf + len};
    uint64_t run_ns, wait_ns, slices;
    if (spaced_u64(&c, &run_ns) || spaced_u64(&c, &wait_ns) || spaced_u64(&c, &slices))
        return -1;
    out->run_delay_ns = at_most(wait_ns, PT_MAX_COUNT);
    out->timeslices = slices;
    return 0;
}

/* Consume word when it comes next, followed by a blank or a newline. */
static bool take_word(struct cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) <= n || memcmp(c->p, word, n) != 0 || !is_space(c->p[n]))
        return false;
    c->p += n;
    return true;
}

/* ---- /proc/PID/limits: "Max open files" ---- */

/* One column of a limits line: blanks, then a number or "unlimited"
 * (*value untouched), then a blank. */
static int scan_limit(struct cursor *c, uint64_t *value, bool *unlimited)
{
    skip_blanks(c);
    *unlimited = take_word(c, "unlimited");
    if (!*unlimited && (scan_u64(c, value) || !number_ended(c)))
        return -1;
    return 0;
}

int pt_procfs_parse_nofile_limit(const char *buf, size_t len, uint64_t *soft)
{
    static const char key[] = "Max open files ";
    const char *line = find_line(buf, len, key, sizeof(key) - 1);
    if (!line)
        return -1;
    struct cursor c = {line + sizeof(key) - 1, buf + len};
    uint64_t soft_value = 0, hard_value;
    bool soft_unlimited, hard_unlimited;
    if (scan_limit(&c, &soft_value, &soft_unlimited) || scan_limit(&c, &hard_value, &hard_unlimited))
        return -1;
    /* the units end the line: a line cut short lost them, and maybe digits */
    skip_blanks(&c);
    if (!take_word(&c, "files"))
        return -1;
    skip_blanks(&c);
    if (!take_char(&c, '\n'))
        return -1;
    if (soft_unlimited)
        return 1;
    *soft = at_most(soft_value, PT_MAX_COUNT);
    return 0;
}
