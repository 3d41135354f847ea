/* targetstate: the lookups every part of a target shares, its log lines,
 * and the check of its invariants. */
#include "tree/targetstate.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs/caps.h"
#include "util/escape.h"
#include "accounting/ledgercheck.h"

/* One log line about t: 'target "NAME": ' and the message. The name is
 * escaped: whoever names a process or writes a pid file chooses it. */
void pt_targetstate_logf(const struct pt_target *t, enum pt_log_level level, const char *fmt, ...)
{
    char name[PT_QUOTED_MAX], what[PT_LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    pt_logf(level, "target \"%s\": %s", pt_escape(t->name, name, sizeof(name)), what);
}

struct pt_member *pt_targetstate_live_member(const struct pt_target *t, pid_t pid)
{
    return pt_memberlist_live(&t->membership, pid);
}

/* Permission denied on io, smaps_rollup or fd/ (another user's process):
 * the metrics they feed are left out for that process. Say so once per
 * target and kind, with the capabilities missing and why (caps.h): a
 * warning, or information where the start line named them already. Each
 * file needs its own: smaps_rollup ptrace access (CAP_SYS_PTRACE), fd/
 * (mode 0500) the file permission check (CAP_DAC_READ_SEARCH), io (0400)
 * both. */
void pt_targetstate_warn_denied(const struct pt_target *t, unsigned *warned, const struct pt_member *m)
{
    static const struct {
        enum pt_denied bit;
        const char *file, *metrics;
        unsigned needs;
    } kinds[] = {
        {PT_DENIED_IO, "io", "I/O", PT_CAP_BIT(PT_CAP_SYS_PTRACE) | PT_CAP_BIT(PT_CAP_DAC_READ_SEARCH)},
        {PT_DENIED_SMAPS, "smaps_rollup", "PSS, USS, shared and swap", PT_CAP_BIT(PT_CAP_SYS_PTRACE)},
        {PT_DENIED_FDS, "fd/", "fd", PT_CAP_BIT(PT_CAP_DAC_READ_SEARCH)},
    };
    for (size_t k = 0; k < PT_ARRAY_LEN(kinds); k++) {
        if (!(m->denied & kinds[k].bit) || (*warned & kinds[k].bit))
            continue;
        *warned |= kinds[k].bit;
        struct pt_buf why = {0};
        unsigned missing = pt_caps_describe_missing(pt_caps_current(), kinds[k].needs, &why);
        bool said = missing && !(missing & ~pt_caps_said());
        pt_targetstate_logf(t, said ? PT_LOG_INFO : PT_LOG_WARNING,
                            "permission denied on /proc/%d/%s; %s metrics leave out such processes (%s%s)", (int)m->pid,
                            kinds[k].file, kinds[k].metrics, missing ? "missing " : "",
                            missing
                                ? why.data
                                : "the capabilities it needs are held: a security module (AppArmor, SELinux, Yama's "
                                  "ptrace_scope) refuses it");
        pt_buf_free(&why);
    }
}

bool pt_targetstate_has_member(const struct pt_target *t, pid_t pid)
{
    return pt_targetstate_live_member(t, pid) != NULL;
}

size_t pt_targetstate_live_members(const struct pt_target *t)
{
    size_t live = 0;
    for (size_t i = 0; i < t->membership.n_members; i++)
        live += !t->membership.members[i].gone;
    return live;
}

/* ---- invariants ------------------------------------------------------- */

#ifdef PT_CHECK_INVARIANTS
/* Do the invariants hold, the ledger's over the live members too? 0, or
 * -1 with why. */
static int check(const struct pt_target *t, char *why, size_t whylen)
{
    const char *broken = pt_memberlist_check(&t->membership, why, whylen), *part = "members";
    if (!broken) {
        broken = pt_departures_check(&t->departures, why, whylen);
        part = "departures";
    }
    if (broken) { /* why has its details: the rule broken after them */
        size_t n = strlen(why);
        snprintf(why + n, whylen - n, " (the %s: %s)", part, broken);
        return -1;
    }
    const struct pt_account **live = pt_xrealloc_array(NULL, t->membership.n_members + 1, sizeof(*live));
    size_t n = 0;
    for (size_t i = 0; i < t->membership.n_members; i++)
        if (!t->membership.members[i].gone)
            live[n++] = &t->membership.members[i].acct;
    int rc = pt_ledgercheck(&t->ledger, live, n, why, whylen);
    free(live);
    if (rc == 0 && (broken = pt_interval_check(&t->interval)) != NULL) {
        snprintf(why, whylen, "the interval: %s", broken);
        rc = -1;
    }
    return rc;
}

#endif

void pt_targetstate_debug_check(const struct pt_target *t, const char *step)
{
#ifdef PT_CHECK_INVARIANTS
    char why[200];
    if (check(t, why, sizeof(why)) != 0) {
        pt_targetstate_logf(t, PT_LOG_ERROR, "invariant broken after %s: %s", step, why);
        abort();
    }
#else
    (void)t;
    (void)step;
#endif
}
