#include "cgroup/cgstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/cgparse.h"
#include "procfs/callerfiles.h"
#include "procfs/procfile.h"

/* The files read at each interval's end, each from its hierarchy's
 * directory (PT_V2, or a v1 controller). A v2 file comes before
 * its v1 twins: the first that gives a quantity gives it. */
enum file {
    F_CPU_STAT,
    F_CPU_PRESSURE,
    F_MEMORY_PRESSURE,
    F_IO_PRESSURE,
    F_MEMORY_EVENTS,
    F_IO_STAT,
    F_PIDS_CURRENT,
    F_V1_CPUACCT_USER,
    F_V1_CPUACCT_SYS,
    F_V1_CPU_STAT,
    F_V1_MEMORY_MAX_USAGE,
    F_V1_OOM_CONTROL,
    F_V1_PIDS_CURRENT,
    F_V1_BLKIO,
    F_COUNT
};

_Static_assert(F_COUNT == PT_CGSTAT_FILES, "cgstat.h's descriptors, one per file");

/* The hierarchy of a file: a v1 controller's, or v2's. */
#define PT_V2 (-1)

static const struct {
    const char *name;
    int hierarchy;
} files[F_COUNT] = {
    [F_CPU_STAT] = {"cpu.stat", PT_V2},
    [F_CPU_PRESSURE] = {"cpu.pressure", PT_V2},
    [F_MEMORY_PRESSURE] = {"memory.pressure", PT_V2},
    [F_IO_PRESSURE] = {"io.pressure", PT_V2},
    [F_MEMORY_EVENTS] = {"memory.events", PT_V2},
    [F_IO_STAT] = {"io.stat", PT_V2},
    [F_PIDS_CURRENT] = {"pids.current", PT_V2},
    [F_V1_CPUACCT_USER] = {"cpuacct.usage_user", PT_V1_CPUACCT},
    [F_V1_CPUACCT_SYS] = {"cpuacct.usage_sys", PT_V1_CPUACCT},
    [F_V1_CPU_STAT] = {"cpu.stat", PT_V1_CPU},
    [F_V1_MEMORY_MAX_USAGE] = {"memory.max_usage_in_bytes", PT_V1_MEMORY},
    [F_V1_OOM_CONTROL] = {"memory.oom_control", PT_V1_MEMORY},
    [F_V1_PIDS_CURRENT] = {"pids.current", PT_V1_PIDS},
    [F_V1_BLKIO] = {"blkio.throttle.io_service_bytes", PT_V1_BLKIO},
};

static const char *dir_of(const struct pt_cgroup_dirs *dirs, int hierarchy)
{
    return hierarchy == PT_V2 ? dirs->v2 : dirs->v1[hierarchy];
}

/* dir/name opened with flags, or -1 (no such directory: ""; no regular
 * file: a FIFO bound over a cgroup file never blocks a read). */
static int open_in(const char *dir, const char *name, int flags)
{
    if (!dir[0])
        return -1;
    char path[PT_CGROUPFS_PATH_MAX + 64];
    int n = snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof(path))
        return -1;
    int fd = pt_callerfiles_open_regular_at(AT_FDCWD, path, flags);
    return fd >= 0 ? fd : -1;
}

/* One read's values, as they are found. */
struct found {
    uint64_t value[PT_CGQ_COUNT];
    uint32_t got;
};

static void put(struct found *f, enum pt_cgq q, uint64_t v)
{
    if (f->got & (1u << q))
        return; /* a v2 file gave it first */
    f->value[q] = v;
    f->got |= 1u << q;
}

static void put_key(struct found *f, enum pt_cgq q, const struct pt_buf *buf, size_t len, const char *key,
                    uint64_t divisor)
{
    uint64_t v;
    if (pt_cgparse_keyed(buf->data, len, key, &v) == 0)
        put(f, q, v / divisor);
}

static void put_single(struct found *f, enum pt_cgq q, const struct pt_buf *buf, size_t len, uint64_t divisor)
{
    uint64_t v;
    if (pt_cgparse_single(buf->data, len, &v) == 0)
        put(f, q, v / divisor);
}

static void put_pressure(struct found *f, enum pt_cgq some, const struct pt_buf *buf, size_t len)
{
    uint64_t some_us, full_us;
    bool has_full;
    if (pt_cgparse_pressure(buf->data, len, &some_us, &full_us, &has_full) != 0)
        return;
    put(f, some, some_us);
    if (has_full)
        put(f, some + 1, full_us);
}

/* What file i's content, len bytes in buf, gives. */
static void parse_file(struct found *f, enum file i, const struct pt_buf *buf, size_t len)
{
    uint64_t r, w;
    switch (i) {
    case F_CPU_STAT:
        put_key(f, PT_CGQ_CPU_USER_US, buf, len, "user_usec", 1);
        put_key(f, PT_CGQ_CPU_SYSTEM_US, buf, len, "system_usec", 1);
        put_key(f, PT_CGQ_THROTTLED_US, buf, len, "throttled_usec", 1);
        put_key(f, PT_CGQ_THROTTLED_PERIODS, buf, len, "nr_throttled", 1);
        break;
    case F_CPU_PRESSURE:
        put_pressure(f, PT_CGQ_CPU_SOME_US, buf, len);
        break;
    case F_MEMORY_PRESSURE:
        put_pressure(f, PT_CGQ_MEMORY_SOME_US, buf, len);
        break;
    case F_IO_PRESSURE:
        put_pressure(f, PT_CGQ_IO_SOME_US, buf, len);
        break;
    case F_MEMORY_EVENTS:
        put_key(f, PT_CGQ_OOMS, buf, len, "oom", 1);
        put_key(f, PT_CGQ_OOM_KILLS, buf, len, "oom_kill", 1);
        put_key(f, PT_CGQ_HIGH_EVENTS, buf, len, "high", 1);
        put_key(f, PT_CGQ_MAX_EVENTS, buf, len, "max", 1);
        break;
    case F_IO_STAT:
        if (pt_cgparse_io_stat(buf->data, len, &r, &w) == 0)
            put(f, PT_CGQ_IO_READ_BYTES, r), put(f, PT_CGQ_IO_WRITE_BYTES, w);
        break;
    case F_PIDS_CURRENT:
    case F_V1_PIDS_CURRENT:
        put_single(f, PT_CGQ_PIDS, buf, len, 1);
        break;
    case F_V1_CPUACCT_USER:
        put_single(f, PT_CGQ_CPU_USER_US, buf, len, 1000); /* ns */
        break;
    case F_V1_CPUACCT_SYS:
        put_single(f, PT_CGQ_CPU_SYSTEM_US, buf, len, 1000);
        break;
    case F_V1_CPU_STAT:
        put_key(f, PT_CGQ_THROTTLED_US, buf, len, "throttled_time", 1000); /* ns */
        put_key(f, PT_CGQ_THROTTLED_PERIODS, buf, len, "nr_throttled", 1);
        break;
    case F_V1_MEMORY_MAX_USAGE:
        put_single(f, PT_CGQ_MEMORY_PEAK_LIFETIME, buf, len, 1);
        break;
    case F_V1_OOM_CONTROL: /* v1 counts kills only, no "oom" events */
        put_key(f, PT_CGQ_OOM_KILLS, buf, len, "oom_kill", 1);
        break;
    case F_V1_BLKIO:
        if (pt_cgparse_blkio_bytes(buf->data, len, &r, &w) == 0)
            put(f, PT_CGQ_IO_READ_BYTES, r), put(f, PT_CGQ_IO_WRITE_BYTES, w);
        break;
    case F_COUNT:
        break;
    }
}

/* The files of memory in use, the first there giving it. */
static const struct {
    const char *name;
    int hierarchy;
} current_files[] = {{"memory.current", PT_V2}, {"memory.usage_in_bytes", PT_V1_MEMORY}};

/* May one more descriptor be kept (hot: read at every poll)? */
static bool take(struct pt_cgstat *s, bool hot)
{
    return !s->budget || pt_fdbudget_take(s->budget, hot);
}

/* fd into *kept when the budget allows, else closed. */
static void keep(struct pt_cgstat *s, int *kept, int fd, bool hot)
{
    if (take(s, hot))
        *kept = fd;
    else
        close(fd);
}

static void give_back(struct pt_cgstat *s, int *fd, bool hot)
{
    if (*fd < 0)
        return;
    close(*fd);
    *fd = -1;
    if (s->budget)
        pt_fdbudget_give(s->budget, hot);
}

/* dir/name read with one pread through *kept, its descriptor kept open.
 * One not kept (past the budget, or whose read failed: a file removed
 * with its controller, or the cgroup removed) is opened by its path,
 * kept when the budget allows now, else closed after the read. Its
 * length, or -1. */
static ssize_t read_through(struct pt_cgstat *s, int *kept, const char *dir, const char *name, bool hot,
                            struct pt_buf *buf)
{
    if (*kept < 0) {
        int fd = open_in(dir, name, O_RDONLY);
        if (fd < 0 || !take(s, hot)) /* none, or read and closed */
            return pt_procfs_read_and_close(fd, buf, pt_procfs_pread_record);
        *kept = fd;
    }
    ssize_t n = pt_procfs_pread_record(*kept, buf);
    if (n < 0)
        give_back(s, kept, hot); /* opened again by its path at the next read */
    return n;
}

static int parse_single(const struct pt_buf *buf, ssize_t n, uint64_t *out)
{
    return n > 0 && pt_cgparse_single(buf->data, (size_t)n, out) == 0 ? 0 : -1;
}

/* The peak through its own descriptor (one we may have reset), or past
 * the budget by its path (never reset: the lifetime's). */
static int read_peak(struct pt_cgstat *s, struct pt_buf *buf, uint64_t *out)
{
    if (s->peak_fd >= 0)
        return parse_single(buf, pt_procfs_pread_record(s->peak_fd, buf), out);
    int fd = s->peak_unkept ? open_in(s->dirs.v2, "memory.peak", O_RDONLY) : -1;
    return parse_single(buf, pt_procfs_read_and_close(fd, buf, pt_procfs_pread_record), out);
}

/* A write to our own descriptor of memory.peak resets its peak to the
 * usage now, for reads through that descriptor only (Linux >= 6.12; the
 * string written is not parsed). Earlier kernels refuse the write. */
static bool reset_peak(int fd)
{
    static const char reset[] = "reset\n";
    errno = EIO; /* a short write sets none */
    return write(fd, reset, sizeof(reset) - 1) == (ssize_t)(sizeof(reset) - 1);
}

/* The peak offered (if any) now offered as kind, the other peak not:
 * the interval's (reset per descriptor) or the lifetime's. */
static void offer_peak_as(struct pt_cgstat *s, enum pt_cgq kind)
{
    if (!(s->offered & PT_CGQ_PEAKS))
        return;
    s->offered &= ~PT_CGQ_PEAKS;
    s->offered |= 1u << kind;
}

/* Resets are taken when our descriptor of memory.peak, opened writable,
 * takes one: the peak offered is then the interval's. */
static void start_resets(struct pt_cgstat *s, bool writable)
{
    s->peak_resets = writable && s->peak_fd >= 0 && reset_peak(s->peak_fd);
    if (s->peak_resets)
        offer_peak_as(s, PT_CGQ_MEMORY_PEAK);
}

/* A reset refused after one was taken: the peak our descriptor reads
 * would now span more than the interval, and say nothing of how much
 * more. From now the peak is the lifetime's, through a descriptor never
 * written (which reads the cgroup's own peak since it was made). */
static void stop_resets(struct pt_cgstat *s)
{
    s->reset_error = errno;
    s->peak_resets = false;
    close(s->peak_fd);
    s->peak_fd = open_in(s->dirs.v2, "memory.peak", O_RDONLY);
    if (s->peak_fd < 0) { /* its budget given back; it is looked for by its path */
        if (s->budget)
            pt_fdbudget_give(s->budget, false);
        s->peak_unkept = true;
    }
    offer_peak_as(s, PT_CGQ_MEMORY_PEAK_LIFETIME);
}

int pt_cgstat_read(struct pt_cgstat *s, struct pt_buf *buf)
{
    struct found f = {0};
    bool any = false;
    for (int i = 0; i < F_COUNT; i++) {
        if (!(s->present & (1u << i)))
            continue;
        ssize_t n = read_through(s, &s->fd[i], dir_of(&s->dirs, files[i].hierarchy), files[i].name, false, buf);
        if (n < 0)
            continue;
        any = true;
        parse_file(&f, (enum file)i, buf, (size_t)n);
    }
    uint64_t v;
    if (pt_cgstat_read_current(s, buf, &v) == 0)
        put(&f, PT_CGQ_MEMORY_CURRENT, v), any = true;
    if (read_peak(s, buf, &v) == 0) {
        put(&f, s->peak_resets ? PT_CGQ_MEMORY_PEAK : PT_CGQ_MEMORY_PEAK_LIFETIME, v);
        if (s->peak_resets && !reset_peak(s->peak_fd))
            stop_resets(s);
    }
    memcpy(s->value, f.value, sizeof(s->value));
    s->read = f.got;
    return any ? 0 : -1;
}

int pt_cgstat_read_current(struct pt_cgstat *s, struct pt_buf *buf, uint64_t *bytes)
{
    if (s->current_file < 0)
        return -1;
    int i = s->current_file;
    ssize_t n =
        read_through(s, &s->current_fd, dir_of(&s->dirs, current_files[i].hierarchy), current_files[i].name, true, buf);
    return parse_single(buf, n, bytes);
}

/* dir/name opened with flags into *fd, kept when the budget allows:
 * whether it is there. */
static bool probe(struct pt_cgstat *s, int *fd, const char *dir, const char *name, int flags, bool hot)
{
    int opened = open_in(dir, name, flags);
    if (opened >= 0)
        keep(s, fd, opened, hot);
    return opened >= 0;
}

/* memory.peak, read-write where we may (the reset is tried, not
 * assumed), into peak_fd or, past the budget, peak_unkept: whether it
 * was opened writable. */
static bool probe_peak(struct pt_cgstat *s)
{
    bool writable = probe(s, &s->peak_fd, s->dirs.v2, "memory.peak", O_RDWR, false);
    bool peak = writable || probe(s, &s->peak_fd, s->dirs.v2, "memory.peak", O_RDONLY, false);
    s->peak_unkept = peak && s->peak_fd < 0;
    return writable;
}

int pt_cgstat_open(struct pt_cgstat *s, const struct pt_cgroup_dirs *dirs, struct pt_fd_budget *budget,
                   struct pt_buf *buf)
{
    memset(s, 0, sizeof(*s));
    s->dirs = *dirs;
    s->budget = budget;
    s->current_file = -1;
    s->current_fd = -1;
    s->peak_fd = -1;
    for (int i = 0; i < F_COUNT; i++) {
        s->fd[i] = -1;
        if (probe(s, &s->fd[i], dir_of(dirs, files[i].hierarchy), files[i].name, O_RDONLY, false))
            s->present |= 1u << i;
    }
    for (int i = 0; i < (int)(sizeof(current_files) / sizeof(current_files[0])) && s->current_file < 0; i++)
        if (probe(s, &s->current_fd, dir_of(dirs, current_files[i].hierarchy), current_files[i].name, O_RDONLY, true))
            s->current_file = i;
    bool writable = probe_peak(s);
    if (pt_cgstat_read(s, buf) != 0) { /* the lifetime peak, before any reset */
        pt_cgstat_close(s);
        return -1;
    }
    s->offered = s->read;
    start_resets(s, writable);
    return 0;
}

void pt_cgstat_close(struct pt_cgstat *s)
{
    for (int i = 0; i < F_COUNT; i++)
        give_back(s, &s->fd[i], false);
    give_back(s, &s->current_fd, true);
    give_back(s, &s->peak_fd, false);
}

/* Where a look opens a file of hierarchy h: the cgroup's directory
 * there, or where's when the open found none (adopted once a file of
 * it is taken). */
static const char *look_dir(const struct pt_cgstat *s, const struct pt_cgroup_dirs *where, int h)
{
    const char *dir = dir_of(&s->dirs, h);
    return dir[0] ? dir : dir_of(where, h);
}

static void adopt_dir(struct pt_cgstat *s, int h, const char *at)
{
    char *dir = h == PT_V2 ? s->dirs.v2 : s->dirs.v1[h];
    if (dir != at)
        snprintf(dir, PT_CGROUPFS_PATH_MAX, "%s", at); /* a directory made since the open */
}

/* File i, not there at the open: opened and read where it would be;
 * taken (present from now, kept as the budget allows, its values into
 * f) when it gives what no file of the cgroup gives yet, else closed,
 * to be looked for again. */
static void look_for_file(struct pt_cgstat *s, enum file i, const struct pt_cgroup_dirs *where, struct found *f,
                          struct pt_buf *buf)
{
    const char *at = look_dir(s, where, files[i].hierarchy);
    int fd = open_in(at, files[i].name, O_RDONLY);
    if (fd < 0)
        return;
    ssize_t n = pt_procfs_pread_record(fd, buf);
    struct found g = {0};
    if (n >= 0)
        parse_file(&g, i, buf, (size_t)n);
    uint32_t more = g.got & ~(s->offered | s->read | f->got);
    if (!more) {
        close(fd);
        return;
    }
    adopt_dir(s, files[i].hierarchy, at);
    s->present |= 1u << i;
    keep(s, &s->fd[i], fd, false);
    for (int q = 0; q < PT_CGQ_COUNT; q++)
        if (more & (1u << q))
            put(f, (enum pt_cgq)q, g.value[q]);
}

/* Memory in use, when the open found no file of it. */
static void look_for_current(struct pt_cgstat *s, const struct pt_cgroup_dirs *where, struct pt_buf *buf)
{
    for (int i = 0; i < (int)(sizeof(current_files) / sizeof(current_files[0])); i++) {
        const char *at = look_dir(s, where, current_files[i].hierarchy);
        int fd = open_in(at, current_files[i].name, O_RDONLY);
        uint64_t bytes;
        if (fd >= 0 && parse_single(buf, pt_procfs_pread_record(fd, buf), &bytes) == 0) {
            adopt_dir(s, current_files[i].hierarchy, at);
            s->current_file = i;
            keep(s, &s->current_fd, fd, true);
            s->offered |= 1u << PT_CGQ_MEMORY_CURRENT;
            return;
        }
        if (fd >= 0)
            close(fd);
    }
}

/* memory.peak, when the cgroup offers no peak: taken as at the open
 * (reset from now where the kernel lets us) when it reads. */
static void look_for_peak(struct pt_cgstat *s, struct pt_buf *buf)
{
    bool writable = probe_peak(s);
    uint64_t peak;
    if (read_peak(s, buf, &peak) != 0) {
        give_back(s, &s->peak_fd, false);
        s->peak_unkept = false;
        return;
    }
    s->offered |= 1u << PT_CGQ_MEMORY_PEAK_LIFETIME;
    start_resets(s, writable);
}

uint32_t pt_cgstat_look_again(struct pt_cgstat *s, const struct pt_cgroup_dirs *where, struct pt_buf *buf)
{
    uint32_t was = s->offered;
    /* keys a kept file gained since the open (cpu.stat's throttling once
     * the cpu controller is enabled): read already, counted since */
    s->offered |= s->read & ~PT_CGQ_PEAKS;
    struct found f = {0};
    for (int i = 0; i < F_COUNT; i++)
        if (!(s->present & (1u << i)))
            look_for_file(s, (enum file)i, where, &f, buf);
    for (int q = 0; q < PT_CGQ_COUNT; q++)
        if (f.got & (1u << q))
            s->value[q] = f.value[q];
    s->read |= f.got;
    s->offered |= f.got;
    if (s->current_file < 0)
        look_for_current(s, where, buf);
    if (!(s->offered & PT_CGQ_PEAKS) && s->peak_fd < 0 && !s->peak_unkept)
        look_for_peak(s, buf); /* in the v2 directory, found by now if at all */
    return s->offered & ~was;
}
