#include "report/catalog.h"

const struct pt_metric_def pt_catalog[PT_METRIC_COUNT] = {
#define PT_X_DEF(id, name, scope, kind, unit, ctype, from, reads, lines, source, desc)                                 \
    [id] = {name, PT_SCOPE_##scope, PT_KIND_##kind, PT_UNIT_##unit, ctype, from, reads, PT_LINES_##lines, source, desc},
    PT_CATALOG(PT_X_DEF)
#undef PT_X_DEF
};

const char *pt_catalog_metric_switch(enum pt_metric_id id)
{
    switch (id) {
    case PT_M_PROC_PSS_MIN ... PT_M_PROC_SWAP_MAX:
    case PT_M_COLLECTOR_PSS_STALE:
        return "--no-pss";
    case PT_M_PROC_CTX_SWITCHES_VOLUNTARY:
    case PT_M_PROC_CTX_SWITCHES_INVOLUNTARY:
        return "--no-ctx-switches";
    case PT_M_PROC_FDS:
    case PT_M_PROC_FDS_LIMIT_PERCENT:
    case PT_M_PROC_FDS_HEADROOM:
        return "--no-fds";
    case PT_M_PROC_NET_TCP_SENT_BYTES ... PT_M_PROC_NET_UDP_RECEIVED_BYTES:
        return "--no-net";
    case PT_M_CGROUP_CPU_USER_SECONDS ... PT_M_CGROUP_IO_WRITE_BYTES:
        return "--no-cgroup-metrics";
    case PT_M_NETNS_RECEIVED_BYTES ... PT_M_NETNS_SENT_PACKETS:
        return "--no-net";
    case PT_M_GLOBAL_MEM_USED_MIN ... PT_M_GLOBAL_SWAP_FREE_MAX:
        return "--no-global";
    default:
        return NULL;
    }
}

bool pt_catalog_metric_on(enum pt_metric_id id, enum pt_scope line)
{
    return pt_catalog[id].scope == line || pt_catalog[id].scope == PT_SCOPE_ALL;
}
