#include "accounting/ledgercheck.h"

#include <stdio.h>
#include <string.h>

#include "util/saturate.h"

int pt_ledgercheck(const struct pt_ledger *l, const struct pt_account *const *live, size_t n, char *why, size_t whylen)
{
    int64_t tree[PT_CTR_COUNT], groups[PT_CTR_COUNT] = {0};
    memcpy(tree, l->adjust, sizeof(tree));
    for (size_t i = 0; i < n; i++) {
        const struct pt_account *a = live[i];
        for (int k = 0; k < PT_CTR_COUNT; k++) {
            if (pt_ctr_is_cpu(k) &&
                (a->exact_cpu[pt_cpu_of_ctr(k)] < 0 ||
                 (a->owes && (a->owed_exact[pt_cpu_of_ctr(k)] < 0 || a->owed_exact[pt_cpu_of_ctr(k)] > a->owed[k])))) {
                snprintf(why, whylen, "pid %d: exact CPU %lld of counter %d, owed of it %lld of %lld", (int)a->pid,
                         (long long)a->exact_cpu[pt_cpu_of_ctr(k)], k, (long long)a->owed_exact[pt_cpu_of_ctr(k)],
                         (long long)a->owed[k]);
                return -1;
            }
            if (a->owes && (a->owed[k] < 0 || a->owed[k] > a->due[k])) {
                snprintf(why, whylen, "pid %d owes %lld of counter %d, due %lld", (int)a->pid, (long long)a->owed[k], k,
                         (long long)a->due[k]);
                return -1;
            }
            if (pt_account_has(a, k)) {
                tree[k] = pt_sat_add(tree[k], pt_ledger_account_value(a, k));
                if (l->partitions && a->group >= 0)
                    groups[k] = pt_sat_add(groups[k], pt_ledger_account_value(a, k));
            }
        }
    }
    for (int k = 0; k < PT_CTR_COUNT; k++) {
        if (l->partitions)
            groups[k] = pt_sat_add(groups[k], l->groups.retired[k]);
        if (k == 0 && l->cpu_max >= 0 && l->cpu_reported > l->cpu_max) {
            snprintf(why, whylen, "the tree reported %lld ticks of CPU, over the interval's %lld",
                     (long long)l->cpu_reported, (long long)l->cpu_max);
            return -1;
        }
        if (l->high_water[k] < l->interval_base[k]) {
            snprintf(why, whylen, "counter %d: the tree's base %lld is above its mark %lld", k,
                     (long long)l->interval_base[k], (long long)l->high_water[k]);
            return -1;
        }
        int64_t marks = l->groups.retired_marks[k];
        for (uint32_t g = 0; l->groups.list && g <= l->groups.limit; g++) {
            const struct pt_group *gr = &l->groups.list[g];
            groups[k] = pt_sat_add(groups[k], l->partitions ? gr->adjust[k] : 0);
            marks = pt_sat_add(marks, gr->in_use ? gr->high_water[k] : 0);
            if (k == 0 && gr->cpu_max >= 0 && gr->cpu_reported > gr->cpu_max) {
                snprintf(why, whylen, "group %u reported %lld ticks of CPU, over the interval's %lld", g,
                         (long long)gr->cpu_reported, (long long)gr->cpu_max);
                return -1;
            }
            if (gr->high_water[k] < gr->interval_base[k]) {
                snprintf(why, whylen, "counter %d: group %u's base is above its mark", k, g);
                return -1;
            }
        }
        if (l->partitions && marks != l->high_water[k]) {
            snprintf(why, whylen, "counter %d: the groups' marks add up to %lld, the tree's is %lld", k,
                     (long long)marks, (long long)l->high_water[k]);
            return -1;
        }
        if (l->partitions && groups[k] != tree[k]) {
            snprintf(why, whylen, "counter %d: the groups add up to %lld, the tree to %lld", k, (long long)groups[k],
                     (long long)tree[k]);
            return -1;
        }
    }
    return 0;
}
