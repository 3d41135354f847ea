/* collector: building the collector and adding its targets; its other
 * jobs are in the files collectorstate.h names. */
#include "proctree/collector.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/collectornames.h"
#include "collector/collectorns.h"
#include "collector/collectorsource.h"
#include "collector/collectorstate.h"
#include "collector/collectorudp.h"
#include "util/escape.h"
#include "procfs/pidns.h"

struct pt_collector *pt_collector_new(const struct pt_collector_config *config, char *err, size_t errlen)
{
    const char *root = config->proc_root ? config->proc_root : "/proc";
    if (!(config->poll_interval > 0) || !isfinite(config->poll_interval)) {
        snprintf(err, errlen, "poll interval must be > 0");
        return NULL;
    }
    if (!(config->discovery_interval > 0) || !isfinite(config->discovery_interval)) {
        snprintf(err, errlen, "discovery interval must be > 0");
        return NULL;
    }
    if (!(config->pss_interval >= 0) || !isfinite(config->pss_interval)) {
        snprintf(err, errlen, "PSS interval must be >= 0");
        return NULL;
    }
    int fd = pt_collector_open_proc_root(root, err, errlen);
    if (fd < 0)
        return NULL;
    if (pt_collector_lend_nothing(fd, root, config->proc_root != NULL, err, errlen) != 0) {
        close(fd);
        return NULL;
    }
    struct pt_collector *c = pt_xalloc(sizeof(*c));
    c->proc_root = pt_xstrdup(root);
    c->config = *config;
    if (config->counters == PT_COUNTERS_TOTAL)
        pt_totals_init(&c->global_totals, 0);
    c->config.proc_root = c->proc_root;
    c->sys_root = pt_xstrdup(config->sys_root ? config->sys_root : "/sys");
    c->config.sys_root = c->sys_root;
    c->proc_root_fd = fd;
    c->proc_root_chosen = config->proc_root != NULL;
    c->self = pt_pidns_self(fd);
    pt_delayacct_init(&c->delayacct, fd);
    c->fd_budget.limit = config->fd_budget;
    pt_procscan_init(&c->scan, fd, c->self);
    c->events.fd = -1;
    c->exits.fd = -1;
    c->global.fd = -1;
    if (config->collect_global) {
        int r = pt_sysmem_init(&c->global, fd);
        if (r < 0) {
            char q[PT_QUOTED_MAX];
            snprintf(err, errlen, "\"%s/meminfo\": %s", pt_escape(root, q, sizeof(q)), strerror(-r));
            pt_collector_free(c);
            return NULL;
        }
        c->have_global = true;
    }
    if (pt_collector_choose_source(c, err, errlen) != 0) {
        pt_collector_free(c);
        return NULL;
    }
    return c;
}

void pt_collector_free(struct pt_collector *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_free(&c->targets[i]);
    free(c->targets);
    free(c->results);
    for (size_t i = 0; c->totals && i < c->n_targets; i++)
        pt_totals_free(&c->totals[i]);
    free(c->totals);
    pt_totals_free(&c->global_totals);
    pt_collector_udp_free(c);       /* before the task iterator, whose members map it shares */
    pt_taskiter_close(c->taskiter); /* after the targets: their members followed it */
    pt_procscan_free(&c->scan);
    pt_procevents_close(&c->events);
    pt_exitrecords_close(&c->exits);
    pt_delayacct_close(&c->delayacct);
    pt_gpu_free(&c->gpu);
    if (c->net_on)
        pt_sockdiag_close(&c->sockdiag);
    if (c->have_global)
        pt_sysmem_free(&c->global);
    close(c->proc_root_fd);
    free(c->proc_root);
    free(c->sys_root);
    free(c);
}

int pt_collector_add_target(struct pt_collector *c, const char *name, const struct pt_selector *selector,
                            const struct pt_target_options *options, char *err, size_t errlen)
{
    char derived[256];
    if (selector->kind == PT_SELECT_CHILD && c->launched) {
        snprintf(err, errlen, "only one launched command per process");
        return -1;
    }
    pid_t ours = selector->pid; /* the launched command's, before launched_in_root */
    struct pt_selector in_root = *selector;
    if (selector->kind == PT_SELECT_CHILD && pt_collector_launched_in_root(c, &in_root, err, errlen) != 0)
        return -1;
    selector = &in_root;
    if (!name) {
        if (pt_collector_default_name(c, selector, derived, sizeof(derived)) != 0) {
            snprintf(err, errlen, "cannot derive a target name; give one");
            return -1;
        }
        name = derived;
    }
    if (!name[0]) {
        snprintf(err, errlen, "empty target name");
        return -1;
    }
    if (pt_collector_check_unique_name(c, name, err, errlen) != 0)
        return -1;
    c->targets = pt_xrealloc_array(c->targets, c->n_targets + 1, sizeof(*c->targets));
    c->results = pt_xrealloc_array(c->results, c->n_targets + 1, sizeof(*c->results));
    if (c->config.counters == PT_COUNTERS_TOTAL)
        c->totals = pt_xrealloc_array(c->totals, c->n_targets + 1, sizeof(*c->totals));
    bool pss_at_end = c->config.pss_interval == 0; /* else on its own timer */
    if (pt_target_init(&c->targets[c->n_targets], name, selector, options, pss_at_end, c->proc_root_fd, c->sys_root,
                       &c->fd_budget, err, errlen) != 0)
        return -1;
    pt_target_set_self(&c->targets[c->n_targets], c->self);
    /* twice the lines an interval can have: a group that comes back
     * after an interval or more keeps its total (totals.h) */
    if (c->totals)
        pt_totals_init(&c->totals[c->n_targets],
                       options->breakdown == PT_BY_NONE ? 0 : 2 * ((size_t)options->breakdown_limit + 1));
    pt_target_set_taskiter(&c->targets[c->n_targets], c->taskiter);
    if (c->events.fd >= 0) /* listening already (launch mode: before the command started) */
        pt_target_events_listened(&c->targets[c->n_targets]);
    pt_collector_check_namespace(c, name, selector);
    if (selector->kind == PT_SELECT_CHILD)
        c->launched_ours = ours;
    c->n_targets++;
    /* the array may have moved: point at the launched one again */
    c->launched = NULL;
    for (size_t i = 0; i < c->n_targets; i++)
        if (pt_target_launched_pid(&c->targets[i]) > 0) {
            assert(!c->launched); /* a second one was refused above */
            c->launched = &c->targets[i];
        }
    return 0;
}
