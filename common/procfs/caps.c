#include "procfs/caps.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "util/base.h"
#include "procfs/pidns.h"

static const struct {
    int number;
    const char *name;  /* as the kernel's headers and the lines spell it */
    const char *feeds; /* what is left out without it */
} caps_used[PT_CAP_COUNT] = {
    [PT_CAP_SYS_PTRACE] = {CAP_SYS_PTRACE, "CAP_SYS_PTRACE", "other users' PSS, USS, shared, swap and I/O"},
    [PT_CAP_DAC_READ_SEARCH] = {CAP_DAC_READ_SEARCH, "CAP_DAC_READ_SEARCH", "other users' fds and I/O"},
    [PT_CAP_NET_ADMIN] = {CAP_NET_ADMIN, "CAP_NET_ADMIN",
                          "the exit records (proc_processes_failed/killed, proc_exited_rss_peak_max)"},
};
_Static_assert(CAP_SYS_PTRACE < 32 && CAP_DAC_READ_SEARCH < 32 && CAP_NET_ADMIN < 32,
               "the capabilities used are in the first 32-bit word of each set");

/* The file capabilities to give the binary: every one proctree uses,
 * permitted only. */
#define PT_SETCAP "setcap cap_sys_ptrace,cap_dac_read_search,cap_net_admin,cap_bpf,cap_perfmon=p"

static struct {
    bool read;
    struct pt_caps caps;
    unsigned said; /* PT_CAP_BIT()s the start line named */
    bool said_any;
    uint32_t raised;  /* the capability bits pt_caps_raise made effective */
    uint32_t lent;    /* every bit it ever raised: the binary's, not the caller's */
    uint32_t dropped; /* lent bits given up for good (pt_caps_drop_lent) */
} process;

/* The capability sets, first word: capget has no glibc wrapper. */
static bool get_sets(struct __user_cap_data_struct data[2])
{
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    return syscall(SYS_capget, &header, data) == 0;
}

/* The permitted set of the binary's file capabilities (security.capability,
 * any revision), first word; 0 when it carries none. */
static uint32_t file_permitted(void)
{
    struct vfs_ns_cap_data data;
    memset(&data, 0, sizeof(data));
    ssize_t n = getxattr("/proc/self/exe", "security.capability", &data, sizeof(data));
    if (n < (ssize_t)(sizeof(uint32_t) * 3))
        return 0;
    uint32_t revision = data.magic_etc & VFS_CAP_REVISION_MASK;
    if (revision != VFS_CAP_REVISION_1 && revision != VFS_CAP_REVISION_2 && revision != VFS_CAP_REVISION_3)
        return 0;
    return data.data[0].permitted;
}

static bool on_nosuid_mount(void)
{
    struct statvfs vfs;
    return statvfs("/proc/self/exe", &vfs) == 0 && (vfs.f_flag & ST_NOSUID);
}

static void read_caps(struct pt_caps *caps)
{
    memset(caps, 0, sizeof(*caps));
    struct __user_cap_data_struct sets[2];
    memset(sets, 0, sizeof(sets));
    if (!get_sets(sets)) { /* cannot be told: nothing said */
        caps->uid = (unsigned)geteuid();
        return;
    }
    uint32_t on_file = file_permitted();
    bool no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
    bool nosuid = on_file && on_nosuid_mount();
    /* CAP_DAC_OVERRIDE passes the file permission checks too (Docker
     * gives it to root by default) */
    uint32_t effective = sets[0].effective;
    if (effective & (UINT32_C(1) << CAP_DAC_OVERRIDE))
        effective |= UINT32_C(1) << CAP_DAC_READ_SEARCH;
    for (int c = 0; c < PT_CAP_COUNT; c++) {
        uint32_t bit = UINT32_C(1) << caps_used[c].number;
        caps->on_file[c] = on_file & bit;
        if (process.dropped & bit)
            caps->state[c] = PT_CAP_DROPPED;
        else if (effective & bit)
            caps->state[c] = PT_CAP_EFFECTIVE;
        else if (prctl(PR_CAPBSET_READ, caps_used[c].number, 0, 0, 0) == 0)
            caps->state[c] = PT_CAP_NOT_BOUNDED;
        else if (!caps->on_file[c])
            caps->state[c] = PT_CAP_NOT_GIVEN;
        else
            caps->state[c] = no_new_privs ? PT_CAP_NO_NEW_PRIVS : nosuid ? PT_CAP_NOSUID : PT_CAP_NOT_GRANTED;
    }
    caps->own_user_ns = !pt_pidns_user_is_hosts(-1);
    caps->uid = (unsigned)geteuid();
}

const struct pt_caps *pt_caps_current(void)
{
    if (!process.read) {
        read_caps(&process.caps);
        process.read = true;
    }
    return &process.caps;
}

/* The first word's effective set made effective, the rest kept. */
static bool set_effective(struct __user_cap_data_struct sets[2], uint32_t effective)
{
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    sets[0].effective = effective;
    return syscall(SYS_capset, &header, sets) == 0;
}

void pt_caps_raise(void)
{
    struct __user_cap_data_struct sets[2];
    memset(sets, 0, sizeof(sets));
    if (get_sets(sets)) {
        uint32_t wanted = 0;
        for (int c = 0; c < PT_CAP_COUNT; c++)
            wanted |= UINT32_C(1) << caps_used[c].number;
        uint32_t raise = sets[0].permitted & wanted & ~sets[0].effective;
        if (raise && set_effective(sets, sets[0].effective | raise)) {
            process.raised |= raise;
            process.lent |= raise;
        }
    }
    process.read = false;
    pt_caps_current();
}

bool pt_caps_lower(void)
{
    return pt_caps_pause() != PT_CAPS_PAUSE_FAILED;
}

uint32_t pt_caps_pause(void)
{
    uint32_t raised = process.raised;
    if (!raised) /* collectd, root, a binary without file capabilities: no system call */
        return 0;
    struct __user_cap_data_struct sets[2];
    memset(sets, 0, sizeof(sets));
    if (!get_sets(sets) || !set_effective(sets, sets[0].effective & ~raised))
        return PT_CAPS_PAUSE_FAILED;
    process.raised = 0; /* the snapshot is left as it was: the collector's state, raised again */
    return raised;
}

void pt_caps_resume(uint32_t paused)
{
    if (!paused || paused == PT_CAPS_PAUSE_FAILED)
        return;
    struct __user_cap_data_struct sets[2];
    memset(sets, 0, sizeof(sets));
    if (get_sets(sets) && set_effective(sets, sets[0].effective | (paused & sets[0].permitted)))
        process.raised |= paused & sets[0].permitted;
}

/* CAP_BPF and CAP_PERFMON (Linux 5.8), in each set's second word. */
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif
#define PT_BPF_CAPS ((UINT32_C(1) << (CAP_BPF - 32)) | (UINT32_C(1) << (CAP_PERFMON - 32)))

uint32_t pt_caps_raise_bpf(void)
{
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct sets[2];
    memset(sets, 0, sizeof(sets));
    if (!get_sets(sets))
        return 0;
    uint32_t raise = sets[1].permitted & PT_BPF_CAPS & ~sets[1].effective;
    if (!raise) /* held (root, collectd) or not permitted: no system call */
        return 0;
    sets[1].effective |= raise;
    return syscall(SYS_capset, &header, sets) == 0 ? raise : 0;
}

void pt_caps_drop_bpf(uint32_t raised)
{
    if (!raised)
        return;
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct sets[2];
    memset(sets, 0, sizeof(sets));
    if (!get_sets(sets))
        return;
    sets[1].effective &= ~raised;
    sets[1].permitted &= ~raised;
    sets[1].inheritable &= ~raised;
    if (syscall(SYS_capset, &header, sets) != 0)
        pt_logf(PT_LOG_WARNING, "CAP_BPF and CAP_PERFMON could not be given up after the load: %s", strerror(errno));
}

bool pt_caps_lent(void)
{
    return process.lent != 0;
}

bool pt_caps_drop_lent(void)
{
    if (!process.lent)
        return true;
    struct __user_cap_data_struct sets[2];
    memset(sets, 0, sizeof(sets));
    if (!get_sets(sets))
        return false;
    sets[0].permitted &= ~process.lent;
    sets[0].inheritable &= ~process.lent;
    if (!set_effective(sets, sets[0].effective & ~process.lent))
        return false;
    process.dropped |= process.lent;
    process.lent = process.raised = 0;
    process.read = false;
    pt_caps_current();
    return true;
}

const char *pt_caps_why_missing(const struct pt_caps *caps, enum pt_cap cap, char *out, size_t outlen)
{
    switch (caps->state[cap]) {
    case PT_CAP_EFFECTIVE:
        if (!caps->own_user_ns)
            return NULL;
        snprintf(out, outlen,
                 "held in a user namespace of its own (a rootless container), where capabilities do not reach the "
                 "host's processes");
        break;
    case PT_CAP_NOT_BOUNDED:
        snprintf(out, outlen,
                 "not in the bounding set its container or service gave it (--cap-add in Docker, "
                 "securityContext.capabilities.add in Kubernetes, CapabilityBoundingSet= in systemd)");
        break;
    case PT_CAP_NO_NEW_PRIVS:
        snprintf(out, outlen,
                 "no-new-privileges is set (NoNewPrivs: 1; Docker's --security-opt no-new-privileges, Kubernetes' "
                 "allowPrivilegeEscalation: false): the kernel ignores the binary's file capabilities");
        break;
    case PT_CAP_NOSUID:
        snprintf(out, outlen, "the binary lies on a nosuid mount, where the kernel ignores its file capabilities");
        break;
    case PT_CAP_NOT_GRANTED:
        snprintf(out, outlen, "the kernel did not grant the binary's file capability");
        break;
    case PT_CAP_DROPPED:
        snprintf(out, outlen,
                 "given up for good at start: a root the caller chose is read with the caller's own permissions");
        break;
    case PT_CAP_NOT_GIVEN:
        if (caps->uid == 0)
            snprintf(out, outlen, "this process runs as root without it: whoever started it left it out");
        else
            snprintf(out, outlen,
                     "uid %u holds none (a change of user clears them, as an entrypoint dropping root does): give "
                     "them to the binary, " PT_SETCAP,
                     caps->uid);
        break;
    }
    return out;
}

/* Should the start line name cap? Where the binary carries file
 * capabilities, those it carries: someone meant this process to have
 * them. As root, every one: root is meant to read everything. */
static bool expected(const struct pt_caps *caps, enum pt_cap cap)
{
    bool carries_any = false;
    for (int c = 0; c < PT_CAP_COUNT; c++)
        carries_any |= caps->on_file[c];
    return carries_any ? caps->on_file[cap] : caps->uid == 0;
}

unsigned pt_caps_describe_missing(const struct pt_caps *caps, unsigned set, struct pt_buf *out)
{
    char why[PT_CAP_COUNT][256];
    unsigned missing = 0, described = 0;
    for (int c = 0; c < PT_CAP_COUNT; c++)
        if ((set & PT_CAP_BIT(c)) && pt_caps_why_missing(caps, (enum pt_cap)c, why[c], sizeof(why[c])))
            missing |= PT_CAP_BIT(c);
    for (int c = 0; c < PT_CAP_COUNT; c++) {
        if (!(missing & PT_CAP_BIT(c)) || (described & PT_CAP_BIT(c)))
            continue;
        pt_buf_puts(out, described ? "; " : "");
        /* with the others missing for the same reason: "A, B and C" */
        unsigned group = 0;
        for (int o = c; o < PT_CAP_COUNT; o++)
            if ((missing & PT_CAP_BIT(o)) && strcmp(why[o], why[c]) == 0)
                group |= PT_CAP_BIT(o);
        described |= group;
        for (int o = c; o < PT_CAP_COUNT; o++) {
            if (!(group & PT_CAP_BIT(o)))
                continue;
            group &= ~PT_CAP_BIT(o);
            pt_buf_puts(out, caps_used[o].name);
            pt_buf_puts(out, !group ? "" : group & (group - 1) ? ", " : " and ");
        }
        pt_buf_puts(out, ": ");
        pt_buf_puts(out, why[c]);
    }
    return missing;
}

void pt_caps_say_missing(void)
{
    if (process.said_any)
        return;
    process.said_any = true;
    const struct pt_caps *caps = pt_caps_current();
    unsigned expected_set = 0;
    for (int c = 0; c < PT_CAP_COUNT; c++)
        if (expected(caps, (enum pt_cap)c) && caps->state[c] != PT_CAP_DROPPED) /* its own line said so */
            expected_set |= PT_CAP_BIT(c);
    struct pt_buf line = {0};
    process.said = pt_caps_describe_missing(caps, expected_set, &line);
    if (process.said) {
        pt_buf_puts(&line, "; left out: ");
        for (int c = 0, first = 1; c < PT_CAP_COUNT; c++)
            if (process.said & PT_CAP_BIT(c)) {
                pt_buf_puts(&line, first ? "" : "; ");
                pt_buf_puts(&line, caps_used[c].feeds);
                first = 0;
            }
        pt_logf(PT_LOG_WARNING, "capabilities not obtained: %s", line.data);
    }
    pt_buf_free(&line);
}

unsigned pt_caps_said(void)
{
    return process.said;
}
