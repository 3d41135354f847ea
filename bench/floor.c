/* floor ROOT [--poll-interval MS] [--no-pss] [--no-ctx-switches] [--no-fds]
 *
 * The procfs floor: the least that any collector of proctree's default metric set must ask the
 * kernel for, with kept fds and one pread each. bench/run measures proctree as a ratio to it.
 *
 * It finds ROOT's tree once through the children files, opens one fd per file per member and
 * then, until SIGTERM:
 *   every poll (default 100 ms)  statm of every member;
 *   once a second                stat, io, status, smaps_rollup and every task's children file
 *                                (read to EOF) of every member, and one fstat() of the fd/ dir.
 * Nothing else: no /proc scan, no rediscovery, no /proc/meminfo. Each file is parsed just enough
 * to find the fields a collector uses (one strtoull per field), so the comparison stays fair.
 * The --no-* options leave out smaps_rollup, status and fd/ as proctree's options of the same
 * names do (status is what proctree reads for context switches).
 *
 * stdout: "members N fds F" once the fds are open, then "members N" once a second (the members
 * whose stat answered), so the driver can check that the whole tree is read.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_MEMBERS 65536
#define MAX_TASKS 64
#define BUF_SIZE 8192

enum { F_STATM, F_STAT, F_IO, F_STATUS, F_SMAPS, F_FDDIR, F_COUNT };

struct member {
    pid_t pid;
    int fd[F_COUNT];
    int children[MAX_TASKS]; /* every task's children file */
    int n_children;
};

static struct member members[MAX_MEMBERS];
static int n_members;
static bool use_file[F_COUNT] = {true, true, true, true, true, true};
static char buf[BUF_SIZE];
static uint64_t sink; /* every parsed value lands here, so no read can be optimised away */
static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
    (void)sig;
    stopping = 1;
}

/* One pread at offset 0: single-record files fit one read (procfs-costs.md). */
static ssize_t read_once(int fd)
{
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

/* Multi-record files (children) return about 4 KiB per read: read until EOF. */
static size_t read_to_eof(int fd, char *out, size_t cap)
{
    size_t len = 0;
    ssize_t n;
    while (len < cap - 1 && (n = pread(fd, out + len, cap - 1 - len, (off_t)len)) > 0)
        len += (size_t)n;
    out[len] = '\0';
    return len;
}

/* "Key: value" lines: one strtoull for each line whose key is wanted. */
static void parse_kv(const char *const *keys, size_t n_keys)
{
    for (char *line = buf; *line;) {
        char *colon = strchr(line, ':');
        if (!colon)
            break;
        for (size_t k = 0; k < n_keys; k++) {
            size_t kl = strlen(keys[k]);
            if ((size_t)(colon - line) == kl && memcmp(line, keys[k], kl) == 0) {
                sink += strtoull(colon + 1, NULL, 10);
                break;
            }
        }
        char *nl = strchr(colon, '\n');
        if (!nl)
            break;
        line = nl + 1;
    }
}

static void parse_statm(void)
{
    char *p = buf;
    for (int i = 0; i < 3; i++) /* size resident shared */
        sink += strtoull(p, &p, 10);
}

/* stat: after the last ')', fields 3.. are numbers; a collector needs fields up to rss (24). */
static void parse_stat(void)
{
    char *p = strrchr(buf, ')');
    if (!p || !p[1])
        return;
    p += 4; /* ") S " */
    for (int field = 4; field <= 24; field++)
        sink += strtoull(p, &p, 10);
}

static void parse_children(char *text, void (*each)(pid_t))
{
    char *p = text, *end;
    for (unsigned long long pid; (pid = strtoull(p, &end, 10)), end != p; p = end) {
        if (each)
            each((pid_t)pid);
        sink += pid;
    }
}

static int open_file(pid_t pid, const char *name, int flags)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
    return open(path, flags | O_CLOEXEC);
}

static void add_member(pid_t pid)
{
    static const char *const names[F_COUNT] = {"statm", "stat", "io", "status", "smaps_rollup", "fd"};
    if (n_members == MAX_MEMBERS) {
        fprintf(stderr, "floor: more than %d members\n", MAX_MEMBERS);
        exit(1);
    }
    struct member *m = &members[n_members++];
    m->pid = pid;
    for (int f = 0; f < F_COUNT; f++)
        m->fd[f] = use_file[f] ? open_file(pid, names[f], f == F_FDDIR ? O_RDONLY | O_DIRECTORY : O_RDONLY) : -1;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(path);
    for (struct dirent *d; tasks && (d = readdir(tasks)) && m->n_children < MAX_TASKS;) {
        if (d->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/%d/task/%.20s/children", (int)pid, d->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0)
            m->children[m->n_children++] = fd;
    }
    if (tasks)
        closedir(tasks);
}

/* The tree, once, breadth first: members found so far are read for their children. */
static void discover(pid_t root)
{
    static char list[1 << 20];
    add_member(root);
    for (int i = 0; i < n_members; i++)
        for (int t = 0; t < members[i].n_children; t++) {
            read_to_eof(members[i].children[t], list, sizeof(list));
            parse_children(list, add_member);
        }
}

static void poll_memory(void)
{
    for (int i = 0; i < n_members; i++)
        if (read_once(members[i].fd[F_STATM]) > 0)
            parse_statm();
}

static int full_read(void)
{
    static const char *const io_keys[] = {
        "rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes", "cancelled_write_bytes"};
    static const char *const status_keys[] = {"voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"};
    static const char *const smaps_keys[] = {"Rss",           "Pss",           "Shared_Clean", "Shared_Dirty",
                                             "Private_Clean", "Private_Dirty", "Swap"};
    static char list[1 << 20];
    int alive = 0;
    for (int i = 0; i < n_members; i++) {
        struct member *m = &members[i];
        if (read_once(m->fd[F_STAT]) > 0) {
            parse_stat();
            alive++;
        }
        if (read_once(m->fd[F_IO]) > 0)
            parse_kv(io_keys, sizeof(io_keys) / sizeof(*io_keys));
        if (m->fd[F_STATUS] >= 0 && read_once(m->fd[F_STATUS]) > 0)
            parse_kv(status_keys, 2);
        if (m->fd[F_SMAPS] >= 0 && read_once(m->fd[F_SMAPS]) > 0)
            parse_kv(smaps_keys, sizeof(smaps_keys) / sizeof(*smaps_keys));
        for (int t = 0; t < m->n_children; t++) {
            read_to_eof(m->children[t], list, sizeof(list));
            parse_children(list, NULL);
        }
        struct stat st;
        if (m->fd[F_FDDIR] >= 0 && fstat(m->fd[F_FDDIR], &st) == 0)
            sink += (uint64_t)st.st_size;
    }
    return alive;
}

static void usage(void)
{
    fprintf(stderr, "usage: floor ROOT [--poll-interval MS] [--no-pss] [--no-ctx-switches] [--no-fds]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    long poll_ms = 100;
    pid_t root = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--poll-interval") == 0 && i + 1 < argc)
            poll_ms = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--no-pss") == 0)
            use_file[F_SMAPS] = false;
        else if (strcmp(argv[i], "--no-ctx-switches") == 0)
            use_file[F_STATUS] = false;
        else if (strcmp(argv[i], "--no-fds") == 0)
            use_file[F_FDDIR] = false;
        else if (!root && argv[i][0] != '-')
            root = (pid_t)strtol(argv[i], NULL, 10);
        else
            usage();
    }
    if (root <= 0 || poll_ms < 1 || poll_ms > 1000 || 1000 % poll_ms != 0) {
        fprintf(stderr, "floor: need a root pid and a poll interval that divides 1000 ms\n");
        usage();
    }
    struct rlimit nofile;
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
        nofile.rlim_cur = nofile.rlim_max;
        setrlimit(RLIMIT_NOFILE, &nofile);
    }
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);

    discover(root);
    int fds = 0;
    for (int i = 0; i < n_members; i++) {
        fds += members[i].n_children;
        for (int f = 0; f < F_COUNT; f++)
            fds += members[i].fd[f] >= 0;
    }
    printf("members %d fds %d\n", n_members, fds);
    fflush(stdout);

    long polls_per_second = 1000 / poll_ms, tick = 0;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!stopping) {
        poll_memory();
        if (++tick % polls_per_second == 0) {
            printf("members %d\n", full_read());
            fflush(stdout);
        }
        next.tv_nsec += poll_ms * 1000000L;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_sec++;
            next.tv_nsec -= 1000000000L;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR && !stopping)
            ;
    }
    return sink == 42; /* keep sink observable */
}
