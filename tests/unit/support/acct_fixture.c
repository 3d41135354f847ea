/* acct_fixture: see acct_fixture.h. */
#include "acct_fixture.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char *root;
struct pt_collector *c;
long page;
char said_text[8192];

static void setup(void)
{
    root = fx_root_new();
    page = sysconf(_SC_PAGESIZE);
    fx_put_meminfo(root, 1000000, 200000, 600000, 300000, 100000, 50000);
}

static void teardown(void)
{
    pt_collector_free(c);
    c = NULL;
    fx_root_free(root);
}

TCase *acct_tcase(Suite *s)
{
    TCase *tc = tcase_create("fixture");
    tcase_add_checked_fixture(tc, setup, teardown);
    suite_add_tcase(s, tc);
    return tc;
}

struct pt_collector *collector_for(const char *proc_root)
{
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = proc_root;
    char err[256] = "";
    struct pt_collector *col = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(col != NULL, "collector: %s", err);
    return col;
}

void collector_with_cgroup2(void)
{
    fx_write(root, "sys/fs/cgroup/cgroup.controllers", "cpu memory\n", -1);
    fx_write(root, "sys/fs/cgroup/cgroup.procs", "", -1);
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    char sys[512], err[256] = "";
    snprintf(sys, sizeof(sys), "%s/sys", root);
    config.proc_root = root;
    config.sys_root = sys;
    c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "collector: %s", err);
}

void add_pid_target_with(const char *name, pid_t pid, const struct pt_target_options *opt)
{
    struct pt_selector sel = {.kind = PT_SELECT_PID, .pid = pid};
    char err[256] = "";
    ck_assert_msg(pt_collector_add_target(c, name, &sel, opt, err, sizeof(err)) == 0, "%s", err);
}

void add_pid_target(const char *name, pid_t pid)
{
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    add_pid_target_with(name, pid, &opt);
}

const struct pt_value *value(const struct pt_batch *b, size_t target, enum pt_metric_id id)
{
    return &b->targets[target].report.v[id];
}

int64_t ivalue(const struct pt_batch *b, size_t target, enum pt_metric_id id)
{
    const struct pt_value *v = value(b, target, id);
    ck_assert_msg(v->present, "%s absent", pt_catalog[id].name);
    ck_assert_msg(v->is_int, "%s not an integer", pt_catalog[id].name);
    return v->i;
}

double fvalue(const struct pt_batch *b, size_t target, enum pt_metric_id id)
{
    const struct pt_value *v = value(b, target, id);
    ck_assert_msg(v->present, "%s absent", pt_catalog[id].name);
    return v->is_int ? (double)v->i : v->f;
}

void watch_pid(pid_t pid)
{
    pt_collector_free(c);
    c = collector_for(root);
    add_pid_target("app", pid);
    pt_collector_tick(c, 0.0);
}

void watch_app(const struct fx_proc *first, ...)
{
    va_list ap;
    va_start(ap, first);
    for (const struct fx_proc *p = first; p; p = va_arg(ap, const struct fx_proc *))
        fx_put_proc(root, p);
    va_end(ap);
    watch_pid(first->pid);
}

struct fx_proc proc(pid_t pid, pid_t ppid, uint64_t starttime, uint64_t rchar, uint64_t resident, const char *children)
{
    struct fx_proc p = {.pid = pid, .ppid = ppid, .starttime = starttime, .children = children};
    p.io.rchar = rchar;
    p.io.wchar = rchar / 2;
    p.utime = rchar / 100;
    p.size_pages = resident * 4;
    p.resident_pages = resident;
    p.shared_pages = resident / 4;
    p.pss_kb = resident;
    return p;
}

void put_status(pid_t pid, uint64_t voluntary, uint64_t involuntary)
{
    char rel[64], text[256];
    snprintf(rel, sizeof(rel), "%d/status", (int)pid);
    snprintf(text, sizeof(text),
             "Name:\tproc\nUid:\t0\t0\t0\t0\nThreads:\t1\n"
             "voluntary_ctxt_switches:\t%" PRIu64 "\nnonvoluntary_ctxt_switches:\t%" PRIu64 "\n",
             voluntary, involuntary);
    fx_write(root, rel, text, -1);
}

void put_thread_status(pid_t pid, pid_t tid, int voluntary)
{
    char rel[64], text[256];
    snprintf(rel, sizeof(rel), "%d/task/%d/status", (int)pid, (int)tid);
    snprintf(text, sizeof(text),
             "Name:\tproc\nUid:\t0\t0\t0\t0\nvoluntary_ctxt_switches:\t%d\nnonvoluntary_ctxt_switches:\t0\n",
             voluntary);
    fx_write(root, rel, text, -1);
}

static void keep_said(enum pt_log_level level, const char *line, void *arg)
{
    (void)level, (void)arg;
    size_t used = strlen(said_text), need = strlen(line) + 2;
    if (used + need > sizeof(said_text))
        used = 0;
    snprintf(said_text + used, sizeof(said_text) - used, "%s\n", line);
}

void listen_to_the_log(void)
{
    said_text[0] = '\0';
    pt_log_set_sink(keep_said, NULL);
}

const struct pt_report *group(const struct pt_batch *b, const char *name)
{
    const struct pt_target_result *t = &b->targets[0];
    for (size_t i = 0; i < t->n_groups; i++)
        if (strcmp(t->groups[i].name, name) == 0)
            return &t->groups[i].report;
    return NULL;
}

int64_t group_int(const struct pt_batch *b, const char *name, enum pt_metric_id id)
{
    const struct pt_report *r = group(b, name);
    ck_assert_msg(r != NULL, "no group %s", name);
    ck_assert_msg(r->v[id].present && r->v[id].is_int, "%s of %s absent", pt_catalog[id].name, name);
    return r->v[id].i;
}
