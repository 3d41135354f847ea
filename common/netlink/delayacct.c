#include "netlink/delayacct.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "util/base.h"
#include "procfs/procfile.h"

/* Up to size-1 bytes of the file at proc_root_fd, NUL-terminated; -1 when
 * it cannot be read. */
static ssize_t read_small(int proc_root_fd, const char *path, char *text, size_t size)
{
    ssize_t n = -1;
    int fd = pt_procfs_open_at(proc_root_fd, path);
    if (fd >= 0) {
        n = pread(fd, text, size - 1, 0);
        close(fd);
    }
    text[n > 0 ? n : 0] = '\0';
    return n;
}

static bool has_word(const char *text, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = text; (p = strstr(p, word)) != NULL; p += len) {
        bool starts = p == text || p[-1] == ' ', ends = p[len] == '\0' || p[len] == ' ' || p[len] == '\n';
        if (starts && ends)
            return true;
    }
    return false;
}

/* Read the sysctl at now: on, and since when the kernel counts. */
static bool read_state(struct pt_delayacct *d, double now, bool *known)
{
    char text[16];
    if (d->fd == -ENOENT) /* a kernel without it; or a proc root (HOST_PROC, a fixture) not filled yet */
        d->fd = pt_procfs_open_sysctl_at(d->proc_root_fd, "sys/kernel/task_delayacct");
    ssize_t n = d->fd >= 0 ? pread(d->fd, text, sizeof(text) - 1, 0) : -1;
    text[n > 0 ? n : 0] = '\0';
    *known = n > 0;
    bool on = *known && text[0] == '1';
    if (on && d->state != 1)
        d->since = d->from_boot ? -INFINITY : now;
    if (*known && !on)
        d->from_boot = false;
    d->state = on;
    return on;
}

void pt_delayacct_init(struct pt_delayacct *d, int proc_root_fd)
{
    char cmdline[4096]; /* the kernel's own, COMMAND_LINE_SIZE at most on most architectures */
    read_small(proc_root_fd, "cmdline", cmdline, sizeof(cmdline));
    *d = (struct pt_delayacct){.proc_root_fd = proc_root_fd,
                               .fd = pt_procfs_open_sysctl_at(proc_root_fd, "sys/kernel/task_delayacct"),
                               .state = -1,
                               .said = -1,
                               .from_boot = has_word(cmdline, "delayacct"),
                               .since = NAN};
    bool known;
    read_state(d, pt_now(), &known); /* a command launched next is forked after it */
}

void pt_delayacct_close(struct pt_delayacct *d)
{
    if (d->fd >= 0)
        close(d->fd);
    d->fd = -1;
}

bool pt_delayacct_on(struct pt_delayacct *d, double now)
{
    bool known, on = read_state(d, now, &known);
    if (d->said == (int)on)
        return on;
    const char *now_word = d->said < 0 ? "" : " now";
    if (!on)
        pt_log_absent("proc_blkio_delay_seconds");
    if (on && isinf(d->since))
        pt_logf(PT_LOG_INFO,
                "kernel.task_delayacct is 1%s, with delayacct on the kernel command line: "
                "proc_blkio_delay_seconds is reported",
                now_word);
    else if (on)
        pt_logf(PT_LOG_INFO,
                "kernel.task_delayacct is 1%s: the kernel counts the block-I/O waits only of tasks forked since "
                "it was switched on, so proc_blkio_delay_seconds is reported for a tree whose every process "
                "started after %s (boot with delayacct on the kernel command line to have it for every tree)",
                now_word, d->said < 0 ? "proctree did" : "this");
    else if (known)
        pt_logf(PT_LOG_INFO,
                "kernel.task_delayacct is 0%s: proc_blkio_delay_seconds is left out until it is 1 "
                "(sysctl kernel.task_delayacct=1; the kernel then times the block-I/O waits of the tasks forked "
                "after)",
                now_word);
    else if (d->said < 0)
        pt_logf(PT_LOG_INFO, "no kernel.task_delayacct (a kernel before 5.14, or without delay accounting): "
                             "proc_blkio_delay_seconds is left out");
    d->said = (int)on;
    return on;
}
