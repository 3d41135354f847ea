#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A broken fixture must stop the test on the spot: a test that went on
 * with half a fake /proc would fail later for a reason nobody can see. */
static void die(const char *what, const char *path)
{
    fprintf(stderr, "fixture: %s %s: %s\n", what, path, strerror(errno));
    abort();
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *text;
    va_start(ap, fmt);
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0)
        die("formatting", fmt);
    return text;
}

/* File content built with stdio, then written in one go by text_write(). */
struct text {
    FILE *stream;
    char *data;
    size_t len;
};

static void text_open(struct text *t)
{
    t->stream = open_memstream(&t->data, &t->len);
    if (!t->stream)
        die("open_memstream", "");
}

static void text_write(struct text *t, const char *root, const char *rel)
{
    if (fclose(t->stream) != 0)
        die("building", rel);
    fx_write(root, rel, t->data, (long)t->len);
    free(t->data);
}

char *fx_root_new(void)
{
    const char *tmp = getenv("TMPDIR");
    char *root = xasprintf("%s/proctree-fx-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        die("mkdtemp", root);
    return root;
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    if (remove(path) != 0)
        die("remove", path);
    return 0;
}

/* rm -rf, children before their directory, symlinks not followed. */
static void remove_tree(const char *path)
{
    if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        die("removing tree", path);
}

void fx_root_free(char *root)
{
    remove_tree(root);
    free(root);
}

/* mkdir -p for every directory above the last '/' of path. */
static void make_parents(char *path)
{
    for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        int rc = mkdir(path, 0755);
        if (rc != 0 && errno != EEXIST)
            die("mkdir", path);
        *slash = '/';
    }
}

static void write_all(int fd, const char *data, size_t len, const char *path)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            die("write", path);
        data += n;
        len -= (size_t)n;
    }
}

void fx_write(const char *root, const char *rel, const char *content, long len)
{
    char *path = xasprintf("%s/%s", root, rel);
    make_parents(path);
    /* O_TRUNC on the existing inode, never a rename: descriptors kept by
     * the code under test must see the new content, as on procfs. */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        die("open", path);
    write_all(fd, content, len < 0 ? strlen(content) : (size_t)len, path);
    if (close(fd) != 0)
        die("close", path);
    free(path);
}

/* The kernel's layout: 52 fields; the ones proctree does not read are 0.
 * rel: where, under root. */
static void put_stat_at(const char *root, const char *rel, const struct fx_proc *p)
{
    uint64_t page_size = (uint64_t)sysconf(_SC_PAGESIZE);
    struct text t;
    text_open(&t);
    fprintf(t.stream, "%d (%s) %c %d 0 0 0 0 %" PRIu64, p->pid, p->comm ? p->comm : "proc", p->state ? p->state : 'S',
            p->ppid, p->flags); /* 1-9: pid comm state ppid pgrp session tty_nr tpgid flags */
    fprintf(t.stream, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64, p->minflt, p->cminflt, p->majflt,
            p->cmajflt); /* 10-13 */
    fprintf(t.stream, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64, p->utime, p->stime, p->cutime,
            p->cstime);                                                           /* 14-17 */
    fprintf(t.stream, " 0 0 %" PRId64 " 0", p->num_threads ? p->num_threads : 1); /* 18-21 */
    fprintf(t.stream, " %" PRIu64 " %" PRIu64 " %" PRIu64, p->starttime, p->size_pages * page_size,
            p->resident_pages); /* 22-24: starttime vsize rss */
    for (int field = 25; field <= 41; field++)
        fputs(" 0", t.stream);
    fprintf(t.stream, " %" PRIu64, p->blkio_ticks); /* 42: delayacct_blkio_ticks */
    for (int field = 43; field <= 52; field++)
        fputs(" 0", t.stream);
    fputc('\n', t.stream);
    text_write(&t, root, rel);
}

static void put_stat(const char *root, const struct fx_proc *p)
{
    char *rel = xasprintf("%d/stat", p->pid);
    put_stat_at(root, rel, p);
    free(rel);
}

void fx_put_thread(const char *root, pid_t pid, const struct fx_proc *thread)
{
    char *rel = xasprintf("%d/task/%d/stat", pid, thread->pid);
    put_stat_at(root, rel, thread);
    free(rel);
}

static void put_statm(const char *root, const struct fx_proc *p)
{
    /* size resident shared text lib data dt */
    char *content =
        xasprintf("%" PRIu64 " %" PRIu64 " %" PRIu64 " 0 0 0 0\n", p->size_pages, p->resident_pages, p->shared_pages);
    char *rel = xasprintf("%d/statm", p->pid);
    fx_write(root, rel, content, -1);
    free(rel);
    free(content);
}

static void put_io(const char *root, const struct fx_proc *p)
{
    const struct pt_io *io = &p->io;
    char *content = xasprintf(
        "rchar: %" PRIu64 "\nwchar: %" PRIu64 "\nsyscr: %" PRIu64 "\nsyscw: %" PRIu64 "\nread_bytes: %" PRIu64
        "\nwrite_bytes: %" PRIu64 "\ncancelled_write_bytes: %" PRIu64 "\n",
        io->rchar, io->wchar, io->syscr, io->syscw, io->read_bytes, io->write_bytes, io->cancelled_write_bytes);
    char *rel = xasprintf("%d/io", p->pid);
    fx_write(root, rel, content, -1);
    free(rel);
    free(content);
}

/* A "Key:   value kB" line, padded the way the kernel pads smaps and meminfo. */
static void put_kb_line(struct text *t, const char *key, uint64_t kb)
{
    char *label = xasprintf("%s:", key);
    fprintf(t->stream, "%-16s%8" PRIu64 " kB\n", label, kb);
    free(label);
}

/* Pss_Anon/Pss_File and SwapPss get values of their own so that a parser
 * mistaking them for Pss or Swap shows up in a round trip. */
static void put_smaps_rollup(const char *root, const struct fx_proc *p)
{
    uint64_t rss = p->shared_kb + p->private_kb;
    struct text t;
    text_open(&t);
    fputs("561233de2000-7fffdc0e8000 ---p 00000000 00:00 0                          [rollup]\n", t.stream);
    put_kb_line(&t, "Rss", rss);
    put_kb_line(&t, "Pss", p->pss_kb);
    put_kb_line(&t, "Pss_Dirty", p->private_kb);
    put_kb_line(&t, "Pss_Anon", p->pss_kb / 2);
    put_kb_line(&t, "Pss_File", p->pss_kb - p->pss_kb / 2);
    put_kb_line(&t, "Pss_Shmem", 0);
    put_kb_line(&t, "Shared_Clean", p->shared_kb);
    put_kb_line(&t, "Shared_Dirty", 0);
    put_kb_line(&t, "Private_Clean", 0);
    put_kb_line(&t, "Private_Dirty", p->private_kb);
    put_kb_line(&t, "Referenced", rss);
    put_kb_line(&t, "Anonymous", p->private_kb);
    put_kb_line(&t, "Swap", p->swap_kb);
    put_kb_line(&t, "SwapPss", p->swap_kb / 2);
    char *rel = xasprintf("%d/smaps_rollup", p->pid);
    text_write(&t, root, rel);
    free(rel);
}

void fx_put_proc(const char *root, const struct fx_proc *p)
{
    put_stat(root, p);
    put_statm(root, p);
    put_io(root, p);
    put_smaps_rollup(root, p);
    char *rel = xasprintf("%d/task/%d/children", p->pid, p->pid);
    fx_write(root, rel, p->children ? p->children : "", -1);
    free(rel);
}

static int truncate_file(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)ftw;
    if (type == FTW_F && truncate(path, 0) != 0)
        die("truncate", path);
    return 0;
}

void fx_vanish(const char *root, pid_t pid)
{
    char *dir = xasprintf("%s/%d", root, pid);
    /* Truncate first: a kept descriptor outlives the unlink, and must then
     * read nothing rather than the last sample. */
    if (nftw(dir, truncate_file, 16, FTW_PHYS) != 0)
        die("truncating tree", dir);
    remove_tree(dir);
    free(dir);
}

/* Lines without a parameter get fixed, plausible values: Buffers is 2048 kB,
 * nothing is swapped out (SwapTotal = SwapFree), SwapCached is 0. */
void fx_put_meminfo(const char *root, uint64_t total_kb, uint64_t free_kb, uint64_t available_kb, uint64_t cached_kb,
                    uint64_t anon_kb, uint64_t swap_free_kb)
{
    const struct {
        const char *key;
        uint64_t kb;
    } lines[] = {
        {"MemTotal", total_kb},
        {"MemFree", free_kb},
        {"MemAvailable", available_kb},
        {"Buffers", 2048},
        {"Cached", cached_kb},
        {"SwapCached", 0},
        {"Active", anon_kb + cached_kb},
        {"Inactive", 0},
        {"Active(anon)", anon_kb},
        {"Inactive(anon)", 0},
        {"Active(file)", cached_kb},
        {"Inactive(file)", 0},
        {"Unevictable", 0},
        {"Mlocked", 0},
        {"SwapTotal", swap_free_kb},
        {"SwapFree", swap_free_kb},
        {"Zswap", 0},
        {"Zswapped", 0},
        {"Dirty", 96},
        {"Writeback", 0},
        {"AnonPages", anon_kb},
        {"Mapped", 11008},
        {"Shmem", 8952},
        {"KReclaimable", 57004},
        {"Slab", 78356},
        {"SReclaimable", 57004},
        {"SUnreclaim", 21352},
        {"KernelStack", 1364},
        {"PageTables", 1236},
        {"SecPageTables", 0},
        {"NFS_Unstable", 0},
        {"Bounce", 0},
        {"WritebackTmp", 0},
        {"CommitLimit", total_kb / 2},
        {"Committed_AS", 53980},
        {"VmallocTotal", 34359738367},
        {"VmallocUsed", 14172},
        {"VmallocChunk", 0},
        {"Percpu", 688},
        {"AnonHugePages", 0},
        {"ShmemHugePages", 0},
        {"ShmemPmdMapped", 0},
        {"FileHugePages", 0},
        {"FilePmdMapped", 0},
    };
    struct text t;
    text_open(&t);
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        put_kb_line(&t, lines[i].key, lines[i].kb);
    /* Counts, not sizes: these carry no unit. */
    fputs("HugePages_Total:       0\nHugePages_Free:        0\nHugePages_Rsvd:        0\n"
          "HugePages_Surp:        0\n",
          t.stream);
    put_kb_line(&t, "Hugepagesize", 2048);
    put_kb_line(&t, "Hugetlb", 0);
    put_kb_line(&t, "DirectMap4k", 28672);
    put_kb_line(&t, "DirectMap2M", 25137152);
    text_write(&t, root, "meminfo");
}

void fx_put_cgroup_v2(const char *root, const char *dir, unsigned user_usec, unsigned current, unsigned peak)
{
    char cpu[256], current_text[32], peak_text[32];
    snprintf(cpu, sizeof(cpu),
             "usage_usec %u\nuser_usec %u\nsystem_usec 100\nnr_periods 4\nnr_throttled 2\nthrottled_usec 300\n",
             user_usec + 100, user_usec);
    snprintf(current_text, sizeof(current_text), "%u\n", current);
    snprintf(peak_text, sizeof(peak_text), "%u\n", peak);
    const char *const files[][2] = {
        {"cgroup.procs", ""},
        {"cpu.stat", cpu},
        {"cpu.pressure",
         "some avg10=0.00 avg60=0.00 avg300=0.00 total=1000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=400\n"},
        {"memory.pressure",
         "some avg10=0.00 avg60=0.00 avg300=0.00 total=20\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=10\n"},
        {"io.pressure",
         "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"},
        {"memory.events", "low 0\nhigh 5\nmax 1\noom 1\noom_kill 1\noom_group_kill 0\n"},
        {"io.stat", "8:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n"},
        {"pids.current", "3\n"},
        {"memory.current", current_text},
        {"memory.peak", peak_text},
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char *rel = xasprintf("%s/%s", dir, files[i][0]);
        fx_write(root, rel, files[i][1], -1);
        free(rel);
    }
}
