/* Breakdown rule: with --by process, title, cgroup or thread, the tree's line is
 * split into one line per group (a process name, a cgroup below the
 * target's, a thread name, a title's group; past the limit of names, "other"), each with
 * its members' own share: the groups add up to the tree, a reaped member
 * keeps in its group what it was seen doing while its last moments count
 * in its reaper's, and a group with no member left gives its last line,
 * then its slot to a new name. docs/DESIGN.md, "Accounting" and "How one
 * number travels: `proc_cpu_user_seconds`"; docs/METRICS.md, "Breakdown
 * by process name", "Breakdown by process title", "Breakdown by cgroup",
 * "Breakdown by thread name". */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acct_fixture.h"
#include "unit.h"

/* sh running cc1 twice, ld and as, with at most 2 names: sh and cc1 get
 * their lines, ld and as share "other"; every amount adds up to the
 * total. A cc1 reaped by sh keeps in its group what it was seen doing;
 * sh's line shows only sh's own work, and a child never seen (its usage
 * arrives in sh's counters alone) counts in sh's group. */
START_TEST(breakdown_by_process_name)
{
    struct fx_proc sh = proc(100, 1, 10, 1000, 10, "101 102 103 104");
    struct fx_proc cc1 = proc(101, 100, 11, 0, 5, NULL), cc1b = proc(102, 100, 12, 0, 6, NULL);
    struct fx_proc ld = proc(103, 100, 13, 0, 7, NULL), as = proc(104, 100, 14, 0, 8, NULL);
    sh.comm = "sh", cc1.comm = cc1b.comm = "cc1", ld.comm = "ld", as.comm = "as";
    fx_put_proc(root, &sh), fx_put_proc(root, &cc1), fx_put_proc(root, &cc1b), fx_put_proc(root, &ld);
    fx_put_proc(root, &as);
    c = collector_for(root);
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.breakdown = PT_BY_PROCESS;
    opt.breakdown_limit = 2;
    add_pid_target_with("app", 100, &opt);
    pt_collector_tick(c, 0.0);
    pt_collector_end_interval(c, 1.0); /* sh joined as a root: its past is not counted */

    cc1.io.rchar = 300, cc1b.io.rchar = 200, ld.io.rchar = 70, as.io.rchar = 30, sh.io.rchar = 1010;
    fx_put_proc(root, &cc1), fx_put_proc(root, &cc1b), fx_put_proc(root, &ld), fx_put_proc(root, &as);
    fx_put_proc(root, &sh);
    const struct pt_batch *b = pt_collector_end_interval(c, 2.0);
    ck_assert_uint_eq(b->targets[0].n_groups, 3);
    ck_assert_str_eq(b->targets[0].breakdown_key, "process");
    ck_assert_int_eq(group_int(b, "cc1", PT_M_PROC_IO_READ_BYTES), 500);
    ck_assert_int_eq(group_int(b, "cc1", PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(group_int(b, "cc1", PT_M_PROC_RSS_MAX), 11 * page);
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_IO_READ_BYTES), 100);
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(group_int(b, "sh", PT_M_PROC_IO_READ_BYTES), 10);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 610);
    ck_assert_ptr_null(group(b, "ld"));

    /* cc1 (101) reads 100 more after its last read, exits, and sh reaps
     * it: sh's io gains its 400, and 50 of a child never seen */
    fx_vanish(root, 101);
    sh.io.rchar = 1010 + 400 + 50, sh.children = "102 103 104";
    fx_put_proc(root, &sh);
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 150); /* cc1's 300 were reported already */
    ck_assert_int_eq(group_int(b, "cc1", PT_M_PROC_IO_READ_BYTES), 0);
    ck_assert_int_eq(group_int(b, "sh", PT_M_PROC_IO_READ_BYTES), 150); /* the unseen 100 and 50 */
    ck_assert_int_eq(group_int(b, "cc1", PT_M_PROC_PROCESSES), 1);
}
END_TEST

/* --by cgroup on a cgroup target: a process is in the group of the cgroup
 * directly below the target's that the scan found it in ("." for the
 * target's own), a descendant found through its parent in its parent's
 * (a child is born in its parent's cgroup), and keeps its group when it
 * execs; the groups add up to the tree, a reaped child's last moments in
 * its reaper's group. Another target is refused. */
START_TEST(breakdown_by_cgroup)
{
    struct fx_proc mgr = proc(100, 1, 10, 1000, 10, NULL);
    struct fx_proc web = proc(200, 1, 20, 2000, 20, "201");
    struct fx_proc worker = proc(201, 200, 21, 0, 5, NULL);
    struct fx_proc db = proc(300, 1, 30, 3000, 30, NULL);
    mgr.comm = "mgr", web.comm = "nginx", worker.comm = "nginx", db.comm = "postgres";
    fx_put_proc(root, &mgr), fx_put_proc(root, &web), fx_put_proc(root, &worker), fx_put_proc(root, &db);
    fx_write(root, "cg/cgroup.procs", "100\n", -1);
    fx_write(root, "cg/web.service/cgroup.procs", "200\n", -1); /* 201 is not listed: found from 200 */
    fx_write(root, "cg/db.service/cgroup.procs", "", -1);
    fx_write(root, "cg/db.service/main/cgroup.procs", "300\n", -1);
    collector_with_cgroup2(); /* so that cg is on a hierarchy's filesystem */
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.breakdown = PT_BY_CGROUP;
    char path[512], err[256] = "";
    snprintf(path, sizeof(path), "%s/cg", root);
    struct pt_selector sel = {.kind = PT_SELECT_CGROUP, .path = path};
    ck_assert_msg(pt_collector_add_target(c, "svc", &sel, &opt, err, sizeof(err)) == 0, "%s", err);
    struct pt_selector pid_sel = {.kind = PT_SELECT_PID, .pid = 100};
    ck_assert_int_eq(pt_collector_add_target(c, "pid", &pid_sel, &opt, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "a breakdown by cgroup needs a cgroup or unit target");
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_str_eq(b->targets[0].breakdown_key, "cgroup");
    ck_assert_uint_eq(b->targets[0].n_groups, 3);
    ck_assert_int_eq(group_int(b, ".", PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(group_int(b, "web.service", PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(group_int(b, "db.service", PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(group_int(b, "web.service", PT_M_PROC_RSS_MAX), 25 * page);

    /* the worker execs into another name: same cgroup, same group */
    worker.comm = "php", worker.io.rchar = 70, web.io.rchar = 2010, db.io.rchar = 3100;
    fx_put_proc(root, &worker), fx_put_proc(root, &web), fx_put_proc(root, &db);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(group_int(b, "web.service", PT_M_PROC_IO_READ_BYTES), 80);
    ck_assert_int_eq(group_int(b, "db.service", PT_M_PROC_IO_READ_BYTES), 100);
    ck_assert_ptr_null(group(b, "php"));
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 180);

    /* the worker reads 30 more, exits and is reaped: its reaper's group
     * has them, and the groups still add up to the tree */
    fx_vanish(root, 201);
    web.io.rchar = 2010 + 100, web.children = NULL;
    fx_put_proc(root, &web);
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_int_eq(group_int(b, "web.service", PT_M_PROC_IO_READ_BYTES), 30);
    ck_assert_int_eq(group_int(b, "web.service", PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 30);
}
END_TEST

/* A group whose members are all gone gives its last line, then its slot
 * to a new name; a member that execs moves to its new name's group. */
START_TEST(breakdown_groups_are_recycled)
{
    struct fx_proc sh = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc a = proc(101, 100, 11, 0, 5, NULL);
    sh.comm = "sh", a.comm = "a";
    fx_put_proc(root, &sh), fx_put_proc(root, &a);
    c = collector_for(root);
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.breakdown = PT_BY_PROCESS;
    opt.breakdown_limit = 3;
    add_pid_target_with("app", 100, &opt);
    pt_collector_tick(c, 0.0);
    pt_collector_end_interval(c, 1.0);
    a.comm = "b", a.io.rchar = 40; /* exec */
    fx_put_proc(root, &a);
    const struct pt_batch *b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(group_int(b, "b", PT_M_PROC_IO_READ_BYTES), 40);
    ck_assert_int_eq(group_int(b, "a", PT_M_PROC_PROCESSES), 0);
    ck_assert_int_eq(group_int(b, "a", PT_M_PROC_IO_READ_BYTES), 0);
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_ptr_null(group(b, "a"));
    ck_assert_uint_eq(b->targets[0].n_groups, 2);
}
END_TEST

/* --counters total: every line's amounts are totals since the collector
 * first measured its series. A group that empties, is gone from the
 * batches, then comes back (another process of the name) goes on from
 * its total; the target's line goes on through it all; the batch keeps
 * the interval's own amounts too (what a run's summary folds); the
 * global line's interval is the time since the start. */
START_TEST(breakdown_totals_go_on)
{
    struct fx_proc sh = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc a = proc(101, 100, 11, 0, 5, NULL);
    sh.comm = "sh", a.comm = "a";
    fx_put_proc(root, &sh), fx_put_proc(root, &a);
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = root;
    config.counters = PT_COUNTERS_TOTAL;
    char err[256] = "";
    c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "collector: %s", err);
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.breakdown = PT_BY_PROCESS;
    opt.breakdown_limit = 3;
    add_pid_target_with("app", 100, &opt);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert(b->totals);

    a.io.rchar = 40;
    fx_put_proc(root, &a);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(group_int(b, "a", PT_M_PROC_IO_READ_BYTES), 40);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 40);
    ck_assert_int_eq(b->targets[0].deltas.v[PT_M_PROC_IO_READ_BYTES].i, 40);

    /* a is reaped by sh, with 10 bytes read after its last read */
    fx_vanish(root, 101);
    sh.io.rchar = 1000 + 40 + 10, sh.children = NULL;
    fx_put_proc(root, &sh);
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_int_eq(group_int(b, "a", PT_M_PROC_IO_READ_BYTES), 40);
    ck_assert_int_eq(group_int(b, "a", PT_M_PROC_PROCESSES), 0); /* a count: as it is */
    ck_assert_int_eq(group_int(b, "sh", PT_M_PROC_IO_READ_BYTES), 10);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 50);
    ck_assert_int_eq(b->targets[0].deltas.v[PT_M_PROC_IO_READ_BYTES].i, 10);
    b = pt_collector_end_interval(c, 4.0);
    ck_assert_ptr_null(group(b, "a"));
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 50);
    ck_assert_int_eq(b->targets[0].deltas.v[PT_M_PROC_IO_READ_BYTES].i, 0);

    /* another "a": its group's total goes on from 40 */
    struct fx_proc a2 = proc(102, 100, 40, 0, 5, NULL);
    a2.comm = "a", sh.children = "102";
    fx_put_proc(root, &a2), fx_put_proc(root, &sh);
    pt_collector_tick(c, 4.5); /* discovery */
    a2.io.rchar = 30;
    fx_put_proc(root, &a2);
    b = pt_collector_end_interval(c, 5.0);
    int64_t read = b->targets[0].deltas.v[PT_M_PROC_IO_READ_BYTES].i;
    ck_assert_int_gt(read, 0);
    ck_assert_int_eq(group_int(b, "a", PT_M_PROC_IO_READ_BYTES), 40 + read);
    ck_assert_int_eq(group_int(b, "sh", PT_M_PROC_IO_READ_BYTES), 10);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 50 + read);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_double_eq_tol(fvalue(b, 0, PT_M_COLLECTOR_INTERVAL_SECONDS), 5.0, 1e-9);
    ck_assert(b->has_global);
    ck_assert_double_eq_tol(b->global.v[PT_M_COLLECTOR_INTERVAL_SECONDS].f, 5.0, 1e-9);
}
END_TEST

/* A thread of the fixture: its task/TID/stat (name, own CPU) and status. */
static void put_thread(pid_t pid, pid_t tid, const char *comm, uint64_t utime, uint64_t stime, int voluntary)
{
    struct fx_proc th = {.pid = tid, .ppid = 1, .comm = comm, .utime = utime, .stime = stime};
    fx_put_thread(root, pid, &th);
    put_thread_status(pid, tid, voluntary);
}

static double group_seconds(const struct pt_batch *b, const char *name, enum pt_metric_id id)
{
    const struct pt_report *r = group(b, name);
    ck_assert_msg(r != NULL, "no group %s", name);
    ck_assert_msg(r->v[id].present, "%s of %s absent", pt_catalog[id].name, name);
    return r->v[id].is_int ? (double)r->v[id].i : r->v[id].f;
}

/* --by thread: a JVM-like root (main "java", two "worker", one "gc") and
 * a single-threaded child "sh", at most 2 names: java and worker get
 * their lines, gc and sh share "other". Each line is what its threads did
 * since the last interval's end (their own CPU, not their children's),
 * the past of a process that joined as a root is not counted, a thread
 * born since counts whole, and a line carries CPU and switches only. */
START_TEST(breakdown_by_thread_name)
{
    const double tick = 1.0 / (double)sysconf(_SC_CLK_TCK);
    struct fx_proc java = proc(100, 1, 10, 0, 10, "101");
    java.comm = "java", java.num_threads = 4;
    struct fx_proc sh = proc(101, 100, 11, 0, 5, NULL);
    sh.comm = "sh", sh.utime = 50, sh.cutime = 900; /* its children's are not a thread's */
    fx_put_proc(root, &java), fx_put_proc(root, &sh);
    put_status(101, 10, 1);
    put_thread(100, 100, "java", 100, 10, 5);
    put_thread(100, 1001, "worker", 1000, 100, 50);
    put_thread(100, 1002, "worker", 2000, 200, 60);
    put_thread(100, 1003, "gc", 300, 30, 70);
    c = collector_for(root);
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.breakdown = PT_BY_THREAD;
    opt.breakdown_limit = 2;
    add_pid_target_with("app", 100, &opt);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0); /* joined as a root: no past */
    ck_assert_str_eq(b->targets[0].breakdown_key, "thread");
    ck_assert_double_eq_tol(group_seconds(b, "worker", PT_M_PROC_CPU_USER_SECONDS), 0, 1e-9);

    put_thread(100, 100, "java", 105, 10, 6);
    put_thread(100, 1001, "worker", 1010, 102, 53);
    put_thread(100, 1002, "worker", 2020, 200, 64);
    put_thread(100, 1003, "gc", 303, 30, 70);
    sh.utime = 54, sh.cutime = 5000;
    fx_put_proc(root, &sh);
    put_status(101, 12, 1);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_uint_eq(b->targets[0].n_groups, 3);
    ck_assert_double_eq_tol(group_seconds(b, "java", PT_M_PROC_CPU_USER_SECONDS), 5 * tick, 1e-9);
    ck_assert_double_eq_tol(group_seconds(b, "worker", PT_M_PROC_CPU_USER_SECONDS), 30 * tick, 1e-9);
    ck_assert_double_eq_tol(group_seconds(b, "worker", PT_M_PROC_CPU_SYSTEM_SECONDS), 2 * tick, 1e-9);
    ck_assert_double_eq_tol(group_seconds(b, "worker", PT_M_PROC_CPU_PERCENT), 100.0 * 32 * tick, 1e-6);
    ck_assert_int_eq(group_int(b, "worker", PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 3 + 4);
    ck_assert_double_eq_tol(group_seconds(b, "other", PT_M_PROC_CPU_USER_SECONDS), (3 + 4) * tick, 1e-9);
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 0 + 2);
    ck_assert_ptr_null(group(b, "gc"));
    ck_assert(!group(b, "worker")->v[PT_M_PROC_PROCESSES].present);
    ck_assert(!group(b, "worker")->v[PT_M_PROC_RSS_MAX].present);
    ck_assert(!group(b, "worker")->v[PT_M_PROC_MINOR_FAULTS].present);

    /* a worker born since counts whole; one whose counter went back
     * (a reused tid) counts nothing, never less */
    java.num_threads = 5;
    fx_put_proc(root, &java);
    put_thread(100, 1004, "worker", 7, 0, 1);
    put_thread(100, 1001, "worker", 1, 0, 0);
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_double_eq_tol(group_seconds(b, "worker", PT_M_PROC_CPU_USER_SECONDS), 7 * tick, 1e-9);
    ck_assert_int_eq(group_int(b, "worker", PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 1);
    ck_assert_double_eq_tol(group_seconds(b, "java", PT_M_PROC_CPU_USER_SECONDS), 0, 1e-9);
}
END_TEST

/* A thread of the fixture started at starttime (its identity with its tid). */
static void put_thread_started(pid_t pid, pid_t tid, const char *comm, uint64_t starttime, uint64_t utime)
{
    struct fx_proc th = {.pid = tid, .ppid = 1, .comm = comm, .starttime = starttime, .utime = utime};
    fx_put_thread(root, pid, &th);
    put_thread_status(pid, tid, 0);
}

/* The user CPU of a group's line, 0 when it has none. */
static double group_user_or_0(const struct pt_batch *b, const char *name)
{
    const struct pt_report *r = group(b, name);
    if (!r || !r->v[PT_M_PROC_CPU_USER_SECONDS].present)
        return 0;
    return r->v[PT_M_PROC_CPU_USER_SECONDS].f;
}

/* --by thread: a worker's tid taken by another worker between two reads,
 * the thread count unchanged (the pid space wrapped): the new one's stat
 * shows another starttime, so it counts whole, as a thread born since,
 * not as the old one's counter gone back (nothing). */
START_TEST(breakdown_by_thread_a_reused_tid_counts_whole)
{
    const double tick = 1.0 / (double)sysconf(_SC_CLK_TCK);
    struct fx_proc java = proc(100, 1, 10, 0, 10, NULL);
    java.comm = "java", java.num_threads = 2;
    fx_put_proc(root, &java);
    put_thread_started(100, 100, "java", 10, 100);
    put_thread_started(100, 1001, "worker", 11, 1000);
    c = collector_for(root);
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.breakdown = PT_BY_THREAD;
    add_pid_target_with("app", 100, &opt);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0); /* joined as a root: no past */
    put_thread_started(100, 1001, "worker", 11, 1010);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_double_eq_tol(group_user_or_0(b, "worker"), 10 * tick, 1e-9);

    put_thread_started(100, 1001, "worker", 40, 60);
    b = pt_collector_end_interval(c, 3.0);
    double worker = group_user_or_0(b, "worker");
    b = pt_collector_end_interval(c, 4.0);
    worker += group_user_or_0(b, "worker");
    ck_assert_double_eq_tol(worker, 60 * tick, 1e-9);
    b = pt_collector_end_interval(c, 5.0);
    ck_assert_double_eq_tol(group_user_or_0(b, "worker"), 0, 1e-9);
}
END_TEST

/* The command line of the fixture's process pid: len bytes of raw, NULs
 * and all. */
static void put_cmdline(pid_t pid, const char *raw, size_t len)
{
    char rel[32];
    snprintf(rel, sizeof(rel), "%d/cmdline", (int)pid);
    fx_write(root, rel, raw, (long)len);
}

#define PUT_CMDLINE(pid, literal) put_cmdline((pid), (literal), sizeof(literal) - 1)

/* --by cgroup ranked by io, one name: the first cgroup seen holds the
 * slot until db.service, in other, reads 3 MiB from storage; from the
 * next interval db.service is the named line, the cgroup that held the
 * slot in other with all it counted. A worker born in web.service (found
 * from its parent, in other) keeps its cgroup's name. Every interval the
 * groups add up to the tree. */
START_TEST(breakdown_by_cgroup_ranked_by_io)
{
    struct fx_proc mgr = proc(100, 1, 10, 1000, 10, NULL);
    struct fx_proc web = proc(200, 1, 20, 2000, 20, "201");
    struct fx_proc worker = proc(201, 200, 21, 0, 5, NULL);
    struct fx_proc db = proc(300, 1, 30, 3000, 30, NULL);
    mgr.comm = "mgr", web.comm = "nginx", worker.comm = "nginx", db.comm = "postgres";
    fx_put_proc(root, &mgr), fx_put_proc(root, &web), fx_put_proc(root, &worker), fx_put_proc(root, &db);
    fx_write(root, "cg/cgroup.procs", "100\n", -1);
    fx_write(root, "cg/web.service/cgroup.procs", "200\n", -1);
    fx_write(root, "cg/db.service/cgroup.procs", "300\n", -1);
    collector_with_cgroup2();
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.breakdown = PT_BY_CGROUP;
    opt.breakdown_limit = 1;
    opt.breakdown_rank = PT_RANK_IO;
    char path[512], err[256] = "";
    snprintf(path, sizeof(path), "%s/cg", root);
    struct pt_selector sel = {.kind = PT_SELECT_CGROUP, .path = path};
    ck_assert_msg(pt_collector_add_target(c, "svc", &sel, &opt, err, sizeof(err)) == 0, "%s", err);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_uint_eq(b->targets[0].n_groups, 2);
    ck_assert_ptr_null(group(b, "db.service"));
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 4);
    const char *first = b->targets[0].groups[0].name;
    char held[PT_GROUP_NAME_MAX];
    snprintf(held, sizeof(held), "%s", strcmp(first, "other") == 0 ? b->targets[0].groups[1].name : first);
    int64_t held_processes = group_int(b, held, PT_M_PROC_PROCESSES);

    db.io.read_bytes = 3 << 20, worker.io.read_bytes = 4096;
    fx_put_proc(root, &db), fx_put_proc(root, &worker);
    pt_collector_tick(c, 1.5);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_ptr_null(group(b, "db.service"));
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_IO_STORAGE_READ_BYTES), (3 << 20) + 4096);

    db.io.read_bytes = (3 << 20) + 100, worker.io.read_bytes = 4096 + 7;
    fx_put_proc(root, &db), fx_put_proc(root, &worker);
    pt_collector_tick(c, 2.5);
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_ptr_null(group(b, held));
    ck_assert_int_eq(group_int(b, "db.service", PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(group_int(b, "db.service", PT_M_PROC_IO_STORAGE_READ_BYTES), 100);
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_PROCESSES), 3);
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_IO_STORAGE_READ_BYTES), 7);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_STORAGE_READ_BYTES), 107);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 4);
    ck_assert_int_ge(held_processes, 1);

    /* the worker exits, reaped by web: the groups still add up */
    fx_vanish(root, 201);
    web.io.read_bytes = 4096 + 7 + 50, web.children = NULL;
    fx_put_proc(root, &web);
    pt_collector_tick(c, 3.5);
    b = pt_collector_end_interval(c, 4.0);
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_IO_STORAGE_READ_BYTES),
                     ivalue(b, 0, PT_M_PROC_IO_STORAGE_READ_BYTES));
    ck_assert_int_eq(group_int(b, "db.service", PT_M_PROC_IO_STORAGE_READ_BYTES), 0);
}
END_TEST

/* --by title ranked by memory (--by-rank memory), at most 2 groups: the
 * postmaster and the checkpointer hold the slots when a batch backend of
 * 8 MiB joins, in other; from the interval after it the batch backend
 * has the lighter one's slot (the app backend, 20 KiB, never outweighs
 * the postmaster by twice plus 1 MiB). Every interval the groups add up
 * to the tree; what was counted in other stays there. */
START_TEST(breakdown_by_title_ranked_by_memory)
{
    struct fx_proc pm = proc(100, 1, 10, 1000, 10, "101 102");
    struct fx_proc ckpt = proc(101, 100, 11, 0, 5, NULL), app = proc(102, 100, 12, 0, 5, NULL);
    struct fx_proc batch = proc(103, 100, 13, 0, 0, NULL);
    batch.resident_pages = (uint64_t)(8 << 20) / (uint64_t)page;
    pm.comm = ckpt.comm = app.comm = batch.comm = "postgres";
    fx_put_proc(root, &pm), fx_put_proc(root, &ckpt), fx_put_proc(root, &app);
    PUT_CMDLINE(100, "/usr/lib/postgresql/15/bin/postgres\0-D\0/data\0");
    PUT_CMDLINE(101, "postgres: checkpointer \0");
    PUT_CMDLINE(102, "postgres: app db [local] idle\0");
    PUT_CMDLINE(103, "postgres: batch db [local] COPY\0");
    c = collector_for(root);
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.breakdown = PT_BY_TITLE;
    opt.breakdown_limit = 2;
    opt.breakdown_rank = PT_RANK_MEMORY;
    opt.title_pattern = "^postgres: (\\S+)";
    add_pid_target_with("pg", 100, &opt);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_ptr_nonnull(group(b, "checkpointer"));
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_PROCESSES), 1);

    pm.children = "101 102 103";
    fx_put_proc(root, &pm), fx_put_proc(root, &batch);
    pt_collector_tick(c, 1.5);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_RSS_MAX), (8 << 20) + 5 * page);

    batch.io.rchar = 700, app.io.rchar = 50, ckpt.io.rchar = 30;
    fx_put_proc(root, &batch), fx_put_proc(root, &app), fx_put_proc(root, &ckpt);
    pt_collector_tick(c, 2.5);
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_ptr_null(group(b, "checkpointer"));
    ck_assert_int_eq(group_int(b, "batch", PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(group_int(b, "batch", PT_M_PROC_RSS_MAX), 8 << 20);
    ck_assert_int_eq(group_int(b, "batch", PT_M_PROC_IO_READ_BYTES), 700);
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_PROCESSES), 2); /* checkpointer and app */
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_IO_READ_BYTES), 80);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 780);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 4);

    batch.io.rchar = 900;
    fx_put_proc(root, &batch);
    pt_collector_tick(c, 3.5);
    b = pt_collector_end_interval(c, 4.0);
    ck_assert_int_eq(group_int(b, "batch", PT_M_PROC_IO_READ_BYTES), 200);
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_IO_READ_BYTES), 0);
    ck_assert_ptr_nonnull(group(b, "/usr/lib/postgresql/15/bin/postgres -D /data"));
}
END_TEST

/* --by title with --by-title-pattern '^postgres: (\S+)' on a PostgreSQL
 * tree of hostile titles, at most 6 groups: the postmaster (no match) by
 * its whole title, each backend by its pattern's group, two of one group
 * in it, control characters kept for the writers to escape, a title past
 * the 4 KiB read cut to a name's 255 bytes, an empty command line as ps
 * shows it ("[comm]"), and the seventh group in "other"; the groups add
 * up to the tree. */
START_TEST(breakdown_by_title)
{
    struct fx_proc pm = proc(100, 1, 10, 1000, 10, "101 102 103 104 105 106 107");
    struct fx_proc kids[7];
    for (int i = 0; i < 7; i++) {
        kids[i] = proc(101 + i, 100, 11 + (uint64_t)i, 0, 5, NULL);
        kids[i].comm = "postgres";
        fx_put_proc(root, &kids[i]);
    }
    pm.comm = "postgres", kids[6].comm = "kworker/0:1";
    fx_put_proc(root, &pm), fx_put_proc(root, &kids[6]);
    PUT_CMDLINE(100, "/usr/lib/postgresql/15/bin/postgres\0-D\0/data\0");
    PUT_CMDLINE(101, "postgres: checkpointer \0\0\0\0\0\0\0\0");     /* padded */
    PUT_CMDLINE(102, "postgres: app db [local] idle");               /* no NUL at its end */
    PUT_CMDLINE(103, "postgres: app db [local] SELECT\0");           /* the same user */
    PUT_CMDLINE(104, "postgres: \x1b[31mevil\nE! forged=a,b c\\\0"); /* control characters */
    char *long_title = malloc(5000);
    memcpy(long_title, "postgres: ", 10);
    memset(long_title + 10, 'x', 5000 - 10);
    put_cmdline(105, long_title, 5000); /* past what is read, no NUL in it */
    free(long_title);
    put_cmdline(106, "", 0); /* a zombie's, a kernel thread's; 107 has no cmdline at all */
    c = collector_for(root);
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.breakdown = PT_BY_TITLE;
    opt.breakdown_limit = 6;
    opt.title_pattern = "^postgres: (\\S+)";
    add_pid_target_with("pg", 100, &opt);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_str_eq(b->targets[0].breakdown_key, "title");
    ck_assert_uint_eq(b->targets[0].n_groups, 7);
    char xs[PT_GROUP_NAME_MAX];
    memset(xs, 'x', sizeof(xs) - 1);
    xs[sizeof(xs) - 1] = '\0';
    const char *names[] = {"/usr/lib/postgresql/15/bin/postgres -D /data",
                           "checkpointer",
                           "app",
                           "\x1b[31mevil",
                           xs,
                           "[postgres]",
                           "other"};
    const int64_t processes[] = {1, 1, 2, 1, 1, 1, 1};
    for (int i = 0; i < 7; i++)
        ck_assert_int_eq(group_int(b, names[i], PT_M_PROC_PROCESSES), processes[i]);

    /* each reads 10 x its rank: the groups add up to the tree */
    pm.io.rchar = 1000 + 5;
    fx_put_proc(root, &pm);
    for (int i = 0; i < 7; i++) {
        kids[i].io.rchar = 10 * (uint64_t)(i + 1);
        fx_put_proc(root, &kids[i]);
    }
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(group_int(b, "app", PT_M_PROC_IO_READ_BYTES), 20 + 30);
    ck_assert_int_eq(group_int(b, "\x1b[31mevil", PT_M_PROC_IO_READ_BYTES), 40);
    ck_assert_int_eq(group_int(b, "[postgres]", PT_M_PROC_IO_READ_BYTES), 60);
    ck_assert_int_eq(group_int(b, "other", PT_M_PROC_IO_READ_BYTES), 70);
    int64_t sum = 0;
    for (int i = 0; i < 7; i++)
        sum += group_int(b, names[i], PT_M_PROC_IO_READ_BYTES);
    ck_assert_int_eq(sum, 5 + 280);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), sum);
}
END_TEST

/* --by title, no pattern: a title changes without an exec (a backend
 * idle, then active). Read at each interval's end, the new title moves
 * the member to its group with what it did since the last end; what it
 * did before stays in the old group, which gives its last line, then its
 * slot. A command line that turns empty (a zombie's) keeps the title. */
START_TEST(breakdown_by_title_follows_a_new_title)
{
    struct fx_proc sh = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc be = proc(101, 100, 11, 0, 5, NULL);
    sh.comm = "sh", be.comm = "postgres";
    fx_put_proc(root, &sh), fx_put_proc(root, &be);
    PUT_CMDLINE(100, "sh\0-c\0loop\0");
    PUT_CMDLINE(101, "postgres: app db [local] idle\0");
    c = collector_for(root);
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.breakdown = PT_BY_TITLE;
    add_pid_target_with("app", 100, &opt);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(group_int(b, "sh -c loop", PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(group_int(b, "postgres: app db [local] idle", PT_M_PROC_PROCESSES), 1);

    be.io.rchar = 40;
    fx_put_proc(root, &be);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(group_int(b, "postgres: app db [local] idle", PT_M_PROC_IO_READ_BYTES), 40);

    be.io.rchar = 100;
    fx_put_proc(root, &be);
    PUT_CMDLINE(101, "postgres: app db [local] SELECT\0");
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_int_eq(group_int(b, "postgres: app db [local] SELECT", PT_M_PROC_IO_READ_BYTES), 60);
    ck_assert_int_eq(group_int(b, "postgres: app db [local] SELECT", PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(group_int(b, "postgres: app db [local] idle", PT_M_PROC_IO_READ_BYTES), 0);
    ck_assert_int_eq(group_int(b, "postgres: app db [local] idle", PT_M_PROC_PROCESSES), 0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 60);

    be.io.rchar = 105;
    fx_put_proc(root, &be);
    put_cmdline(101, "", 0);
    b = pt_collector_end_interval(c, 4.0);
    ck_assert_ptr_null(group(b, "postgres: app db [local] idle"));
    ck_assert_ptr_null(group(b, "[postgres]"));
    ck_assert_int_eq(group_int(b, "postgres: app db [local] SELECT", PT_M_PROC_IO_READ_BYTES), 5);
    ck_assert_uint_eq(b->targets[0].n_groups, 2);
}
END_TEST

/* A title pattern is the breakdown by title's: with another breakdown,
 * or a bad one, the target is refused in one line. */
START_TEST(breakdown_by_title_pattern_refused)
{
    struct fx_proc sh = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &sh);
    c = collector_for(root);
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.breakdown = PT_BY_PROCESS;
    opt.title_pattern = "^(x)";
    struct pt_selector sel = {.kind = PT_SELECT_PID, .pid = 100};
    char err[256] = "";
    ck_assert_int_eq(pt_collector_add_target(c, "a", &sel, &opt, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "a title pattern needs a breakdown by title");
    opt.breakdown = PT_BY_TITLE;
    opt.title_pattern = "^(x";
    ck_assert_int_eq(pt_collector_add_target(c, "b", &sel, &opt, err, sizeof(err)), -1);
    ck_assert_msg(strncmp(err, "bad regular expression \"^(x\": ", 30) == 0, "%s", err);
    opt.title_pattern = "^(x)";
    ck_assert_msg(pt_collector_add_target(c, "c", &sel, &opt, err, sizeof(err)) == 0, "%s", err);
}
END_TEST

/* The interval's length on every line of b, or on none when want is 0:
 * the tree's, each group's, the global one. */
static void assert_interval_everywhere(const struct pt_batch *b, double want)
{
    const struct pt_report *lines[64];
    size_t n = 0;
    lines[n++] = &b->targets[0].report;
    ck_assert(b->has_global);
    lines[n++] = &b->global;
    ck_assert_uint_gt(b->targets[0].n_groups, 0);
    for (size_t i = 0; i < b->targets[0].n_groups && n < PT_ARRAY_LEN(lines); i++)
        lines[n++] = &b->targets[0].groups[i].report;
    ck_assert_double_eq(b->seconds, want);
    for (size_t i = 0; i < n; i++) {
        const struct pt_value *v = &lines[i]->v[PT_M_COLLECTOR_INTERVAL_SECONDS];
        ck_assert_msg(v->present == (want > 0), "line %zu: present %d for %g s", i, v->present, want);
        if (want > 0)
            ck_assert_msg(!v->is_int && v->f == want, "line %zu: %g s, not %g", i, v->f, want);
    }
}

/* Every line says the wall time its interval covers, the length its
 * amounts were done in: the tree's, each group's line of every breakdown
 * (by process name, title, cgroup, thread name) and the global line, the
 * same figure, from the interval's start (the first: the first tick) to
 * its end. An interval of no length has no rate to give: left out, never
 * 0. */
START_TEST(every_line_says_its_interval)
{
    static const enum pt_breakdown by[] = {PT_BY_PROCESS, PT_BY_TITLE, PT_BY_CGROUP, PT_BY_THREAD};
    for (size_t k = 0; k < PT_ARRAY_LEN(by); k++) {
        struct fx_proc sh = proc(100, 1, 10, 1000, 10, "101"), cc1 = proc(101, 100, 11, 0, 5, NULL);
        sh.comm = "sh", cc1.comm = "cc1", sh.num_threads = 2;
        fx_put_proc(root, &sh), fx_put_proc(root, &cc1);
        PUT_CMDLINE(100, "sh\0-c\0make\0");
        PUT_CMDLINE(101, "cc1: compiling main.c");
        put_thread(100, 100, "sh", 10, 1, 1);
        put_thread(100, 1001, "worker", 10, 1, 1);
        fx_write(root, "cg/cgroup.procs", "100\n", -1);
        fx_write(root, "cg/job.service/cgroup.procs", "101\n", -1);
        pt_collector_free(c);
        c = NULL;
        collector_with_cgroup2();
        struct pt_target_options opt;
        pt_target_options_init(&opt);
        opt.breakdown = by[k];
        char path[512], err[256] = "";
        snprintf(path, sizeof(path), "%s/cg", root);
        struct pt_selector sel = {.kind = PT_SELECT_CGROUP, .path = path};
        ck_assert_msg(pt_collector_add_target(c, "app", &sel, &opt, err, sizeof(err)) == 0, "%s", err);
        pt_collector_tick(c, 0.25);
        double start = 0.25;
        for (double end = 1.0; end < 5; end += end) { /* 0.75, 1, 2 s */
            assert_interval_everywhere(pt_collector_end_interval(c, end), end - start);
            start = end;
        }
        assert_interval_everywhere(pt_collector_end_interval(c, start), 0);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acct_breakdown");
    TCase *tc = acct_tcase(s);
    tcase_add_test(tc, breakdown_by_process_name);
    tcase_add_test(tc, breakdown_by_cgroup);
    tcase_add_test(tc, breakdown_groups_are_recycled);
    tcase_add_test(tc, breakdown_by_thread_name);
    tcase_add_test(tc, breakdown_by_thread_a_reused_tid_counts_whole);
    tcase_add_test(tc, breakdown_by_title);
    tcase_add_test(tc, breakdown_by_title_follows_a_new_title);
    tcase_add_test(tc, breakdown_by_title_pattern_refused);
    tcase_add_test(tc, breakdown_by_title_ranked_by_memory);
    tcase_add_test(tc, breakdown_by_cgroup_ranked_by_io);
    tcase_add_test(tc, every_line_says_its_interval);
    tcase_add_test(tc, breakdown_totals_go_on);
    return unit_run(s);
}
