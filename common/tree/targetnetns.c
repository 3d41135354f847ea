#include "tree/targetnetns.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/netdev.h"
#include "net/sockscan.h"

/* The lines said once per target. */
enum pt_said_netns { SAID_FOUND = 1, SAID_SEVERAL = 2, SAID_UNREAD = 4, SAID_LAYOUT = 8, SAID_BOUND = 16 };

void pt_targetnetns_begin(struct pt_target_netns *n)
{
    n->ns = n->other = 0;
    n->reader = n->other_pid = n->unread = 0;
    n->unread_err = 0;
}

/* Why pid's ns/net link cannot be read: errno of a second readlink (0
 * when it reads now: it changed between the two, as unknown as a denial). */
static int unreadable(const struct pt_target *t, pid_t pid)
{
    char path[32], link[64];
    snprintf(path, sizeof(path), "%d/ns/net", (int)pid);
    ssize_t r = readlinkat(t->proc_root_fd, path, link, sizeof(link));
    return r < 0 ? errno : 0;
}

void pt_targetnetns_member(const struct pt_target *t, struct pt_target_netns *n, pid_t pid, uint64_t ns, uint64_t own)
{
    if (!own)
        return;
    if (!ns) {
        int err = unreadable(t, pid);
        if (err == ENOENT || err == ESRCH)
            return; /* exiting (its namespaces go before it), or gone: nothing of it to measure */
        if (!n->unread) {
            n->unread = pid;
            n->unread_err = err;
        }
        return;
    }
    if (ns != own && !n->ns) {
        n->ns = ns;
        n->reader = pid;
    } else if (ns != n->ns && !n->other) {
        n->other = ns;
        n->other_pid = pid;
    }
}

static void say_once(const struct pt_target *t, struct pt_target_netns *n, unsigned what, enum pt_log_level level,
                     const char *text)
{
    if (n->said & what)
        return;
    n->said |= what;
    pt_targetstate_logf(t, level, "network: %s (said once)", text);
}

/* The reader's net/dev read and parsed into n->ifs: their number, or -1. */
static int read_reading(const struct pt_target *t, struct pt_target_netns *n)
{
    if (!n->buf) {
        n->buf = pt_xalloc(PT_NETDEV_READ_MAX);
        n->ifs = pt_xalloc(PT_NETDEV_MAX * sizeof(*n->ifs));
    }
    char text[240];
    ssize_t len = pt_netdev_read(t->proc_root_fd, n->reader, n->buf, PT_NETDEV_READ_MAX);
    if (len == -E2BIG) {
        snprintf(text, sizeof(text),
                 "pid %d's net/dev is longer than the %d KiB proctree reads: netns_* are left out of every "
                 "interval that finds it so",
                 (int)n->reader, PT_NETDEV_READ_MAX / 1024);
        say_once(t, n, SAID_BOUND, PT_LOG_WARNING, text);
    }
    if (len < 0)
        return -1; /* gone since the walk, or refused: the next end tries again */
    bool cut = false;
    int count = pt_netdev_parse(n->buf, (size_t)len, n->ifs, PT_NETDEV_MAX, &cut);
    if (count < 0 || cut) {
        snprintf(text, sizeof(text),
                 "pid %d's net/dev is not of the layout proctree reads (or lists more than %d interfaces): "
                 "netns_* are left out of every interval that finds it so",
                 (int)n->reader, PT_NETDEV_MAX);
        say_once(t, n, SAID_LAYOUT, PT_LOG_WARNING, text);
        return -1;
    }
    /* the namespace the file was of: the reader's still, unless it moved
     * (or its pid was given again) since the walk */
    uint64_t now = pt_sockscan_netns_of(t->proc_root_fd, n->reader);
    return now && now != n->ns ? -1 : count;
}

void pt_targetnetns_end(const struct pt_target *t, struct pt_target_netns *n, uint64_t own, bool whole)
{
    char text[320];
    int count = -1;
    if (!own || !n->ns || !whole) {
        /* in ours (or nowhere known): the TCP path's; a walk cut by its
         * bound has said so */
    } else if (n->other) {
        snprintf(text, sizeof(text),
                 "the tree's processes are in more than one network namespace (pid %d in net:[%llu], pid %d in "
                 "net:[%llu]%s): netns_* are left out of every interval that finds them so",
                 (int)n->reader, (unsigned long long)n->ns, (int)n->other_pid, (unsigned long long)n->other,
                 n->other == own ? ", proctree's" : "");
        say_once(t, n, SAID_SEVERAL, PT_LOG_INFO, text);
    } else if (n->unread) {
        snprintf(text, sizeof(text),
                 "the network namespace of pid %d cannot be read (%s), beside pid %d's net:[%llu]: netns_* are "
                 "left out of every interval that finds one so",
                 (int)n->unread, n->unread_err ? strerror(n->unread_err) : "it changed as it was read", (int)n->reader,
                 (unsigned long long)n->ns);
        say_once(t, n, SAID_UNREAD, PT_LOG_INFO, text);
    } else {
        count = read_reading(t, n);
    }
    if (count < 0) {
        pt_netnsbytes_forget(&n->counters);
        return;
    }
    pt_netnsbytes_take(&n->counters, n->ns, n->ifs, (size_t)count);
    snprintf(text, sizeof(text),
             "the tree is in network namespace net:[%llu], not proctree's: netns_* are that namespace's "
             "interface counters (all but lo), its whole traffic, the tree's own where nothing else lives there",
             (unsigned long long)n->ns);
    say_once(t, n, SAID_FOUND, PT_LOG_INFO, text);
}

void pt_targetnetns_put(const struct pt_target_netns *n, struct pt_line *line)
{
    const struct pt_netnsbytes *l = &n->counters;
    if (!l->known)
        return;
    /* exact below 2^53: 9 PB an interval */
    pt_lines_put(line, PT_A_NETNS_RECEIVED, (double)l->rx_bytes);
    pt_lines_put(line, PT_A_NETNS_SENT, (double)l->tx_bytes);
    pt_lines_put(line, PT_A_NETNS_RECEIVED_PACKETS, (double)l->rx_packets);
    pt_lines_put(line, PT_A_NETNS_SENT_PACKETS, (double)l->tx_packets);
}

void pt_targetnetns_free(struct pt_target_netns *n)
{
    pt_netnsbytes_free(&n->counters);
    free(n->buf);
    free(n->ifs);
    memset(n, 0, sizeof(*n));
}
