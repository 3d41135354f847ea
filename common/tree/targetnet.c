#include "tree/targetnet.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "bpf/taskiter.h"
#include "bpf/tasksockets.h"
#include "net/sockscan.h"
#include "tree/targetnetns.h"
#include "util/base.h"

static void start(const struct pt_target *t, struct pt_target_net *net)
{
    net->on = true;
    pt_tcpbytes_init(&net->sockets, PT_TCPBYTES_MAX);
    net->own_netns = pt_sockscan_netns_of(-1, 0);
    if (!pt_target_partitions(t))
        return;
    size_t n = (size_t)t->ledger.groups.limit + 1;
    net->groups = n;
    net->group_sent = pt_xalloc(n * sizeof(*net->group_sent));
    net->group_received = pt_xalloc(n * sizeof(*net->group_received));
    net->group_connections = pt_xalloc(n * sizeof(*net->group_connections));
}

static int32_t group_of(const struct pt_target_net *net, const struct pt_member *m)
{
    int32_t gi = m->acct.group;
    return net->groups && gi >= 0 && (size_t)gi < net->groups ? gi : -1;
}

struct walk {
    const struct pt_target *t;
    struct pt_target_net *net;
    const struct pt_member *m;
    bool whole;   /* the member's new sockets count whole */
    bool fresh;   /* a socket new to the ledger was found */
    bool full;    /* the ledger refused one */
    bool files;   /* a member's files were walked (the pass did not tell it) */
    bool unnamed; /* a socket of the pass has no cookie yet: only a kernel dump gives it */
};

/* Socket inode found: noted, its entry's index in *at (NULL: not wanted). */
static void note_at(struct walk *w, uint64_t inode, size_t *at)
{
    int r = pt_tcpbytes_note(&w->net->sockets, inode, w->whole, group_of(w->net, w->m), at);
    w->fresh |= r > 0;
    w->full |= r < 0;
}

static void note(uint64_t inode, void *arg)
{
    note_at(arg, inode, NULL);
}

/* The number of m's descriptors: the size of its fd/ (Linux 6.2 and
 * later; its kept descriptor's where it has one, else a stat by path,
 * never an open); 0 where that says nothing (an older kernel's 0). */
static int64_t fd_count(const struct pt_target *t, const struct pt_member *m)
{
    struct stat st;
    int kept = m->fd[PT_MF_FD_DIR];
    char path[32];
    snprintf(path, sizeof(path), "%d/fd", (int)m->pid);
    if (kept >= 0 ? fstat(kept, &st) : fstatat(t->proc_root_fd, path, &st, AT_SYMLINK_NOFOLLOW))
        return 0;
    return S_ISDIR(st.st_mode) && st.st_size > 0 ? (int64_t)st.st_size : 0;
}

static void add_holder(struct pt_target_net *net, pid_t pid, int64_t fds)
{
    if (net->n_holders == net->cap_holders) {
        net->cap_holders = net->cap_holders ? 2 * net->cap_holders : 16;
        net->holders = pt_xrealloc_array(net->holders, net->cap_holders, sizeof(*net->holders));
    }
    net->holders[net->n_holders++] = (struct pt_net_holder){.pid = pid, .fds = fds};
}

/* Whether the polls by the BPF source's list count the holders'
 * descriptors (on), or no longer (off, before the end's walk finds them
 * again): each poll then learns a holder's count with its memory, where
 * an fstat of its fd/ costs a path lookup (the source keeps no fd/ open).
 * Every target that follows sockets finds the same holders. */
static void count_fds(const struct pt_target *t, const struct pt_target_net *net, bool on)
{
    if (t->taskiter)
        for (size_t i = 0; i < net->n_holders; i++)
            pt_taskiter_count_fds(t->taskiter, net->holders[i].pid, on);
}

/* The walk is at m now: its new sockets count whole when it was born in
 * the tree or walked before (they appeared since). */
static void walk_at(struct walk *w, const struct pt_member *m)
{
    w->m = m;
    w->whole = m->born || (w->net->walked_at > 0 && m->since < w->net->walked_at);
}

static bool scan(struct walk *w, const struct pt_member *m, size_t *reads_left)
{
    walk_at(w, m);
    return pt_sockscan(w->t->proc_root_fd, m->pid, reads_left, note, w) > 0;
}

/* scan's twin from the BPF pass's records: the member's TCP sockets noted
 * (the others a dump would never take); a holder when it has a socket of
 * any kind, as the links would have found. */
static bool passed_sockets(struct walk *w, const struct pt_member *m, const struct pt_tasksockets *passed,
                           const struct pt_tasksockets_group *g)
{
    walk_at(w, m);
    const struct pt_taskrec_sock *r;
    size_t n = pt_tasksockets_of(passed, m->pid, &r, NULL);
    for (size_t k = 0; k < n; k++) {
        size_t at;
        note_at(w, r[k].inode, &at);
        w->net->noted[&r[k] - passed->recs] = at < UINT32_MAX ? (uint32_t)at : UINT32_MAX;
        /* a listener's cookie is made by no dump of ours: none needed */
        w->unnamed |= r[k].cookie == 0 && pt_sockdiag_dumps_state((uint8_t)r[k].state);
    }
    return g->any > 0;
}

static void said_bound(const struct pt_target *t, struct pt_target_net *net, const char *what)
{
    if (net->said_bound)
        return;
    net->said_bound = true;
    pt_targetstate_logf(
        t, PT_LOG_WARNING,
        "network: %s; the sockets found are counted, the others are not (proc_net_tcp_* short; said once)", what);
}

/* A member in another network namespace: sock_diag answers for ours, where
 * its sockets are not, so every sum would be short (0 for a tree all of
 * whose sockets are there): the interval's are left out, said once. */
static void foreign(const struct pt_target *t, struct pt_target_net *net, const struct pt_member *m)
{
    net->foreign = true;
    if (net->said_foreign)
        return;
    net->said_foreign = true;
    pt_targetstate_logf(
        t, PT_LOG_INFO,
        "network: a process of the tree (pid %d) is in another network namespace, whose TCP sockets "
        "sock_diag does not tell proctree's: proc_net_tcp_* are left out of every interval that finds one "
        "there (said once)",
        (int)m->pid);
}

bool pt_targetnet_walk(const struct pt_target *t, struct pt_target_net *net, bool whole)
{
    if (!net->on)
        start(t, net);
    struct walk w = {.t = t, .net = net};
    net->passed = false;
    size_t reads_left = whole ? PT_NET_END_READS : PT_NET_POLL_READS;
    pt_tcpbytes_walk(&net->sockets);
    if (whole) {
        double began = pt_now();
        /* the interval end's pass, where the BPF source made one: each
         * member's sockets as its fd/ links would name them, and its
         * namespace, with no file read */
        const struct pt_tasksockets *passed = t->taskiter ? pt_taskiter_sockets(t->taskiter) : NULL;
        count_fds(t, net, false);
        if (passed && net->cap_noted < passed->count) {
            net->cap_noted = passed->count;
            net->noted = pt_xrealloc_array(net->noted, net->cap_noted, sizeof(*net->noted));
        }
        net->n_holders = 0;
        net->foreign = false;
        pt_pidmap_clear(&net->elsewhere_next);
        pt_targetnetns_begin(&net->netns);
        for (size_t i = 0; i < t->membership.n_members && reads_left > 0; i++) {
            const struct pt_member *m = &t->membership.members[i];
            if (m->gone || m->zombie)
                continue;
            const struct pt_tasksockets_group *g = pt_tasksockets_group(passed, m->pid);
            if (g && (g->cut || !g->has_fds || !g->netns))
                g = NULL; /* its files say what the pass could not */
            uint64_t ns = g ? g->netns : net->own_netns ? pt_sockscan_netns_of(t->proc_root_fd, m->pid) : 0;
            if ((ns && net->own_netns && ns != net->own_netns) ||
                (!ns && pt_pidmap_get(&net->elsewhere, m->pid) >= 0)) {
                foreign(t, net, m);
                pt_pidmap_put(&net->elsewhere_next, m->pid, 1);
            }
            pt_targetnetns_member(t, &net->netns, m->pid, ns, net->own_netns);
            if (g) {
                if (passed_sockets(&w, m, passed, g))
                    add_holder(net, m->pid, (int64_t)g->fds);
                continue;
            }
            w.files = true;
            int64_t fds = fd_count(t, m); /* before the walk: a change after it is walked again */
            if (scan(&w, m, &reads_left))
                add_holder(net, m->pid, fds);
        }
        count_fds(t, net, true);
        net->passed = passed && !w.files && !w.unnamed && !w.full;
        struct pt_pidmap seen = net->elsewhere;
        net->elsewhere = net->elsewhere_next;
        net->elsewhere_next = seen;
        net->walked_at = began;
        pt_targetnetns_end(t, &net->netns, net->own_netns, reads_left > 0);
        if (reads_left == 0)
            said_bound(t, net, "the tree holds more descriptors than an interval's end reads (65,536)");
    } else {
        /* the holders whose number of descriptors changed since their
         * last walk (the count the poll's pass took, where the BPF source
         * took one, else one fstat each; a walk is an open, a getdents
         * and a link read per descriptor): a socket opened since is
         * there; a poll walk forgets nothing, only the end's sweep does */
        for (size_t i = 0; i < net->n_holders && reads_left > 0; i++) {
            struct pt_net_holder *h = &net->holders[i];
            const struct pt_member *m = pt_targetstate_live_member(t, h->pid);
            if (!m || m->zombie)
                continue;
            int64_t fds = m->polled_fds >= 0 ? m->polled_fds : fd_count(t, m);
            if (fds > 0 && fds == h->fds)
                continue;
            h->fds = fds;
            scan(&w, m, &reads_left);
        }
    }
    if (w.full)
        said_bound(t, net, "the tree holds more than 65,536 sockets, the most one target follows");
    return w.fresh;
}

static void add_group(struct pt_target_net *net, const struct pt_tcp_entry *e, uint64_t sent, uint64_t received)
{
    if (!e || e->group < 0 || (size_t)e->group >= net->groups)
        return;
    net->group_sent[e->group] += sent;
    net->group_received[e->group] += received;
}

void pt_targetnet_take_pass(const struct pt_target *t, struct pt_target_net *net)
{
    if (!net->passed)
        return;
    pt_targetnet_dump(net);
    const struct pt_tasksockets *passed = pt_taskiter_sockets(t->taskiter);
    for (size_t i = 0; i < t->membership.n_members; i++) {
        const struct pt_member *m = &t->membership.members[i];
        const struct pt_taskrec_sock *r;
        size_t n = m->gone || m->zombie ? 0 : pt_tasksockets_of(passed, m->pid, &r, NULL);
        for (size_t k = 0; k < n; k++) {
            if (!pt_sockdiag_dumps_state((uint8_t)r[k].state))
                continue; /* a listener: the kernel's dump would not tell it either */
            /* the fields sock_diag's tcp_info copies (tcp_get_info) */
            struct pt_tcpsock s = {.inode = r[k].inode,
                                   .cookie = r[k].cookie,
                                   .sent = r[k].bytes_acked,
                                   .received = r[k].bytes_received,
                                   .has_bytes = true,
                                   .family = (uint8_t)r[k].family,
                                   .state = (uint8_t)r[k].state};
            uint64_t sent = 0, received = 0;
            const struct pt_tcp_entry *e =
                pt_tcpbytes_take_at(&net->sockets, net->noted[&r[k] - passed->recs], &s, &sent, &received);
            add_group(net, e, sent, received);
        }
    }
}

bool pt_targetnet_holds(const struct pt_target_net *net)
{
    return net->on && net->sockets.n > 0;
}

void pt_targetnet_dump(struct pt_target_net *net)
{
    if (!net->on)
        return;
    pt_tcpbytes_dump(&net->sockets);
    net->dumped = true; /* a host with no TCP socket to tell is a dump too */
}

void pt_targetnet_take(struct pt_target_net *net, const struct pt_tcpsock *s)
{
    if (!net->on)
        return;
    uint64_t sent = 0, received = 0;
    const struct pt_tcp_entry *e = pt_tcpbytes_take(&net->sockets, s, &sent, &received);
    add_group(net, e, sent, received); /* after: an argument's order of evaluation is unspecified */
}

void pt_targetnet_destroyed(struct pt_target_net *net, const struct pt_tcpsock *s)
{
    if (!net->on)
        return;
    uint64_t sent = 0, received = 0;
    const struct pt_tcp_entry *e = pt_tcpbytes_destroyed(&net->sockets, s, &sent, &received);
    add_group(net, e, sent, received);
}

void pt_targetnet_sweep(struct pt_target_net *net)
{
    if (!net->on)
        return;
    struct pt_tcpbytes *l = &net->sockets;
    pt_tcpbytes_sweep(l);
    for (size_t k = 0; k < net->groups; k++)
        net->group_connections[k] = 0;
    if (net->groups)
        for (size_t i = 0; i < l->n; i++) {
            const struct pt_tcp_entry *e = &l->v[i];
            if (e->walk == l->walk && e->dump == l->dump && e->group >= 0 && (size_t)e->group < net->groups)
                net->group_connections[e->group]++;
        }
}

static double bytes(uint64_t v)
{
    return (double)v; /* exact below 2^53: 9 PB an interval */
}

void pt_targetnet_put(const struct pt_target_net *net, int32_t group, struct pt_line *line)
{
    if (!net->on || !net->dumped || net->foreign || (group >= 0 && (size_t)group >= net->groups))
        return;
    const struct pt_tcpbytes *l = &net->sockets;
    pt_lines_put(line, PT_A_NET_TCP_SENT, bytes(group >= 0 ? net->group_sent[group] : l->sent));
    pt_lines_put(line, PT_A_NET_TCP_RECEIVED, bytes(group >= 0 ? net->group_received[group] : l->received));
    pt_lines_put(line, PT_A_NET_TCP_CONNECTIONS, (double)(group >= 0 ? net->group_connections[group] : l->connections));
}

void pt_targetnet_end_interval(struct pt_target_net *net)
{
    if (!net->on)
        return;
    pt_tcpbytes_end(&net->sockets);
    net->dumped = false;
    for (size_t k = 0; k < net->groups; k++)
        net->group_sent[k] = net->group_received[k] = 0;
}

void pt_targetnet_free(struct pt_target_net *net)
{
    pt_tcpbytes_free(&net->sockets);
    free(net->holders);
    free(net->noted);
    free(net->group_sent);
    free(net->group_received);
    free(net->group_connections);
    pt_pidmap_free(&net->elsewhere);
    pt_pidmap_free(&net->elsewhere_next);
    pt_targetnetns_free(&net->netns);
    memset(net, 0, sizeof(*net));
}
