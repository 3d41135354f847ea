/* Accounting on fixture /proc trees: extrema, deltas, and the rules of
 * DESIGN §4 (reaped children absorbed once, orphans and departed roots
 * kept, new roots not back-counted, pid reuse never merged, no negative
 * delta). Time is driven by hand through pt_collector_tick(c, now). */
#include <check.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "proctree/collector.h"
#include "util/ratelimit.h"
#include "proctree/fdbudget.h"
#include "fixture.h"
#include "select/matcher.h"
#include "unit.h"

static char *root;
static struct pt_collector *c;
static long page;

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

static struct pt_collector *collector_for(const char *proc_root)
{
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = proc_root;
    char err[256] = "";
    struct pt_collector *col = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(col != NULL, "collector: %s", err);
    return col;
}

static void add_pid_target_with(const char *name, pid_t pid, const struct pt_target_options *opt)
{
    struct pt_selector sel = {.kind = PT_SELECT_PID, .pid = pid};
    char err[256] = "";
    ck_assert_msg(pt_collector_add_target(c, name, &sel, opt, err, sizeof(err)) == 0, "%s", err);
}

static void add_pid_target(const char *name, pid_t pid)
{
    struct pt_selector sel = {.kind = PT_SELECT_PID, .pid = pid};
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    char err[256] = "";
    ck_assert_msg(pt_collector_add_target(c, name, &sel, &opt, err, sizeof(err)) == 0, "%s", err);
}

static const struct pt_value *value(const struct pt_batch *b, size_t target, enum pt_metric_id id)
{
    return &b->targets[target].report.v[id];
}

static int64_t ivalue(const struct pt_batch *b, size_t target, enum pt_metric_id id)
{
    const struct pt_value *v = value(b, target, id);
    ck_assert_msg(v->present, "%s absent", pt_catalog[id].name);
    ck_assert_msg(v->is_int, "%s not an integer", pt_catalog[id].name);
    return v->i;
}

/* Write the processes (the first is the root), watch the root as target
 * "app" and take the first tick: discovery and the first sample. */
/* A new collector on the fixture as it is, with target "app" on pid
 * (the collector made before, if any, freed). */
static void watch_pid(pid_t pid)
{
    pt_collector_free(c);
    c = collector_for(root);
    add_pid_target("app", pid);
    pt_collector_tick(c, 0.0);
}

static void watch_app(const struct fx_proc *first, ...)
{
    va_list ap;
    va_start(ap, first);
    for (const struct fx_proc *p = first; p; p = va_arg(ap, const struct fx_proc *))
        fx_put_proc(root, p);
    va_end(ap);
    watch_pid(first->pid);
}

/* A process with I/O counter rchar and the given memory. */
static struct fx_proc proc(pid_t pid, pid_t ppid, uint64_t starttime, uint64_t rchar, uint64_t resident,
                           const char *children)
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

START_TEST(extrema_over_polls)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    watch_app(&r, &k, NULL); /* discovery + poll: 15 pages */
    k.resident_pages = 20;
    fx_put_proc(root, &k);
    pt_collector_tick(c, 0.1); /* 30 pages */
    k.resident_pages = 8;
    fx_put_proc(root, &k);
    pt_collector_tick(c, 0.2); /* 18 pages */
    const struct pt_batch *b = pt_collector_end_interval(c, 0.25);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MIN), 15 * page);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MAX), 30 * page);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_VM_SIZE_MAX), (10 + 5) * 4 * page); /* size did not move */
    /* anon = resident - shared, per member */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_ANON_MAX), (10 - 2 + 20 - 1) * page); /* shared stayed 1 page */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_SAMPLES), 4); /* 3 ticks + the closing sample */
    /* smaps_rollup is read once, at the close: min == max */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MIN), (10 + 5) * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), (10 + 5) * 1024);
    /* the next interval starts afresh */
    b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MIN), 18 * page);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MAX), 18 * page);
}
END_TEST

START_TEST(deltas_from_attach_not_before)
{
    struct fx_proc r = proc(100, 1, 10, 5000, 10, NULL);
    watch_app(&r, NULL);
    r.io.rchar = 5600;
    fx_put_proc(root, &r);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 600);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
}
END_TEST

/* The kernel adds a reaped child's I/O into the parent's own io: the
 * child's work must show once, not twice. */
START_TEST(reaped_child_absorbed_once)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 200, 5, NULL);
    watch_app(&r, &k, NULL);
    k.io.rchar = 500; /* the child reads 300 more */
    fx_put_proc(root, &k);
    pt_collector_tick(c, 0.1);
    /* it exits; the root reaps it and gets its 500 */
    fx_vanish(root, 101);
    r.io.rchar = 1500;
    r.children = "";
    fx_put_proc(root, &r);
    pt_collector_tick(c, 0.2);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 300);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_EXITED), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
}
END_TEST

/* make -> sh -> cc: the grandchild is reaped by the child, the child by
 * the root, all between two polls. The root's counters now hold both;
 * neither may be added again when they are found gone. */
START_TEST(nested_reaping_counted_once)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 100, 5, "102");
    struct fx_proc g = proc(102, 101, 12, 10, 2, NULL);
    watch_app(&r, &k, &g, NULL);
    g.io.rchar = 510; /* +500 */
    fx_put_proc(root, &g);
    k.io.rchar = 150; /* +50 */
    fx_put_proc(root, &k);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 550);
    fx_vanish(root, 102);
    fx_vanish(root, 101);
    r.io.rchar = 1000 + 150 + 510 + 5; /* both folded in, +5 of its own */
    r.children = "";
    fx_put_proc(root, &r);
    pt_collector_tick(c, 0.6);
    b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_EXITED), 2);
}
END_TEST

/* A child reaped between the read of its parent and its own read makes the
 * tree sum dip for one close: no negative delta, and the amount arrives
 * with the parent's next read. */
START_TEST(transient_dip_is_carried)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    watch_app(&r, &k, NULL);
    pt_collector_end_interval(c, 0.5);
    k.io.rchar = 400;
    fx_put_proc(root, &k);
    pt_collector_tick(c, 0.6);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 400);
    /* child gone, parent not yet showing it */
    fx_vanish(root, 101);
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
    /* parent shows it (400), plus 100 of its own */
    r.io.rchar = 1500;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 100);
}
END_TEST

/* A child whose usage never reaches its parent (the parent ignores
 * SIGCHLD, so the kernel reaps the child without adding it to the parent):
 * once the parent has been read again, the parent's own later work is
 * reported in full, not hidden under the high-water mark of the child's
 * last values. Whether the parent works before or after the check. */
START_TEST(lost_departure_does_not_hide_later_work)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    watch_app(&r, &k, NULL);
    pt_collector_end_interval(c, 0.5);
    k.io.rchar = 100;
    fx_put_proc(root, &k);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 100);
    fx_vanish(root, 101); /* auto-reaped: the parent's counters never show it */
    r.children = "";
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_EXITED), 1);
    r.io.rchar = 1050; /* the parent's own 50 */
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 50);
    /* again, with the parent's work in the same interval as the departure:
     * it shows once the parent has been read again */
    struct fx_proc k2 = proc(102, 100, 30, 300, 5, NULL);
    fx_put_proc(root, &k2);
    r.children = "102";
    fx_put_proc(root, &r);
    pt_collector_tick(c, 2.1); /* discovery: k2 is born with 300 */
    b = pt_collector_end_interval(c, 2.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 300);
    fx_vanish(root, 102);
    r.io.rchar = 1070;
    r.children = "";
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 3.0);
    int64_t first = ivalue(b, 0, PT_M_PROC_IO_READ_BYTES);
    b = pt_collector_end_interval(c, 3.5);
    ck_assert_int_eq(first + ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 20);
    r.io.rchar = 1075;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 4.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 5);
}
END_TEST

/* A grandchild re-parented to init when its parent exited, and reaped by
 * init: taken as reaped by its (zombie) parent, whose final counters then
 * show that it never arrived. Later work is not hidden. */
START_TEST(orphan_reaped_by_init_does_not_hide_later_work)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc p = proc(101, 100, 11, 0, 5, "102");
    struct fx_proc g = proc(102, 101, 12, 0, 2, NULL);
    watch_app(&r, &p, &g, NULL);
    g.io.rchar = 400;
    fx_put_proc(root, &g);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 400);
    p.state = 'Z'; /* exits; g goes to init, which reaps it */
    p.children = "";
    fx_put_proc(root, &p);
    fx_vanish(root, 102);
    b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
    r.io.rchar = 1030;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 30);
}
END_TEST

/* Churn: a child leaves in every interval, half of them absorbed by the
 * parent and half lost. The debts of one interval never keep the mark up
 * in the next: every amount is reported once, in the interval it happened
 * or the next one, and the parent's own work is never hidden. */
START_TEST(churn_of_departures_never_hides_work)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    watch_app(&r, NULL);
    pt_collector_end_interval(c, 0.5);
    int64_t reported = 0, expected = 0;
    for (int i = 1; i <= 20; i++) {
        pid_t pid = 100 + i;
        struct fx_proc k = proc(pid, 100, 100 + (uint64_t)i, 1000, 5, NULL);
        char children[16];
        snprintf(children, sizeof(children), "%d", (int)pid);
        fx_put_proc(root, &k);
        r.children = children;
        fx_put_proc(root, &r);
        pt_collector_tick(c, i); /* discovery: the child is born with 1000 */
        k.io.rchar = 1100;
        fx_put_proc(root, &k);
        reported += ivalue(pt_collector_end_interval(c, i + 0.25), 0, PT_M_PROC_IO_READ_BYTES);
        fx_vanish(root, pid);
        bool absorbed = i % 2 == 0;
        r.io.rchar += 7 + (absorbed ? 1100 : 0); /* its own 7, and the child when it reaps it */
        r.children = "";
        fx_put_proc(root, &r);
        reported += ivalue(pt_collector_end_interval(c, i + 0.5), 0, PT_M_PROC_IO_READ_BYTES);
        expected += 1100 + 7;
        /* everything up to the interval before is out */
        ck_assert_int_le(reported, expected);
        ck_assert_int_ge(reported, expected - 1100 - 7);
    }
    reported += ivalue(pt_collector_end_interval(c, 21.0), 0, PT_M_PROC_IO_READ_BYTES);
    ck_assert_int_eq(reported, expected);
    r.io.rchar += 3;
    fx_put_proc(root, &r);
    ck_assert_int_eq(ivalue(pt_collector_end_interval(c, 21.5), 0, PT_M_PROC_IO_READ_BYTES), 3);
}
END_TEST

/* Descendants born while we watch count from their birth. */
START_TEST(new_child_counts_from_birth)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, NULL);
    watch_app(&r, NULL);
    pt_collector_end_interval(c, 0.5);
    struct fx_proc k = proc(102, 100, 50, 700, 5, NULL);
    fx_put_proc(root, &k);
    r.children = "102";
    fx_put_proc(root, &r);
    pt_collector_tick(c, 1.0); /* discovery */
    const struct pt_batch *b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 700);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_STARTED), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 2);
}
END_TEST

/* Every state letter the kernel prints (fs/proc/array.c, and the x, K and
 * W of kernels before 4.14), one child in each: R, D, T and t, and Z are
 * counted; the others are not in any of the four. The oldest member's
 * age is its starttime against CLOCK_BOOTTIME. */
START_TEST(states_of_every_letter_and_the_oldest_age)
{
    static const char letters[] = "RSDTtXZPIxKW";
    enum { N = sizeof(letters) - 1 };
    struct fx_proc kids[N];
    char children[N * 8] = "";
    for (int i = 0; i < N; i++) {
        kids[i] = proc(200 + i, 100, 500 + i, 10, 5, NULL);
        kids[i].state = letters[i];
        fx_put_proc(root, &kids[i]);
        snprintf(children + strlen(children), sizeof(children) - strlen(children), "%s%d", i ? " " : "", 200 + i);
    }
    struct fx_proc r = proc(100, 1, 300, 1000, 10, children);
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), N + 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_RUNNING), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_BLOCKED), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_STOPPED), 2);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_ZOMBIE), 1);
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    const struct pt_value *age = value(b, 0, PT_M_PROC_OLDEST_AGE_SECONDS);
    ck_assert(age->present && !age->is_int);
    double want = (double)now.tv_sec + (double)now.tv_nsec / 1e9 - 300.0 / (double)sysconf(_SC_CLK_TCK);
    ck_assert_msg(age->f <= want + 0.01 && age->f > want - 1.0, "age %f, want %f", age->f, want);
}
END_TEST

/* The root is reaped by a process outside the tree: what it did since the
 * last read stays counted, and its orphan stays a member (sticky). */
START_TEST(orphans_and_departed_root)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 100, 5, NULL);
    watch_app(&r, &k, NULL);
    r.io.rchar = 1250; /* +250 by the root, read by the next poll */
    fx_put_proc(root, &r);
    pt_collector_tick(c, 0.1);
    fx_vanish(root, 100); /* reaped by its own parent, pid 1 */
    k.ppid = 1;           /* the child is re-parented to init */
    k.io.rchar = 180;     /* +80 */
    fx_put_proc(root, &k);
    pt_collector_tick(c, 0.2);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 250 + 80);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
    /* the orphan is read at every poll, so its last values are fresh
     * when it goes too, reaped by init */
    k.io.rchar = 200;
    fx_put_proc(root, &k);
    pt_collector_tick(c, 0.6);
    fx_vanish(root, 101);
    pt_collector_tick(c, 0.7);
    b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 20);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 0);
    /* nothing left: the line stays, with 0 processes and no memory */
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 0);
    ck_assert(!value(b, 0, PT_M_PROC_RSS_MAX)->present);
    ck_assert(!value(b, 0, PT_M_PROC_IO_READ_BYTES)->present);
}
END_TEST

/* A pid reused by an unrelated process is a new member, never merged into
 * the old one's numbers. */
START_TEST(pid_reuse_is_a_new_member)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 9000, 5, NULL);
    watch_app(&r, &k, NULL);
    /* 101 exits and is reaped by the root (absorbing its 9000) ... */
    fx_vanish(root, 101);
    r.io.rchar = 10000;
    fx_put_proc(root, &r);
    pt_collector_tick(c, 0.1);
    /* ... and a new child gets pid 101 with a new start time */
    struct fx_proc k2 = proc(101, 100, 99, 30, 7, NULL);
    fx_put_proc(root, &k2);
    pt_collector_tick(c, 1.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 30);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_STARTED), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES_EXITED), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MAX), 17 * page);
    /* a --pid root is pinned: a new process on the root's pid is not it */
    fx_vanish(root, 100);
    fx_vanish(root, 101);
    pt_collector_tick(c, 1.6);
    struct fx_proc impostor = proc(100, 1, 500, 0, 3, NULL);
    fx_put_proc(root, &impostor);
    pt_collector_tick(c, 2.0);
    b = pt_collector_end_interval(c, 2.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 0);
}
END_TEST

/* A counter that goes down (a member whose io became unreadable and came
 * back with smaller numbers is the same as a parent read before its dead
 * child was folded in) never produces a negative delta. */
START_TEST(deltas_never_negative)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, NULL);
    watch_app(&r, NULL);
    r.io.rchar = 900;
    fx_put_proc(root, &r);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
    r.io.rchar = 1100;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 100);
}
END_TEST

/* Without children files (no CONFIG_PROC_CHILDREN) the tree comes from a
 * scan of every process's ppid. */
START_TEST(scan_fallback_without_children_files)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, NULL);
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    struct fx_proc g = proc(102, 101, 12, 0, 2, NULL);
    struct fx_proc other = proc(200, 1, 13, 0, 50, NULL);
    fx_put_proc(root, &r);
    fx_put_proc(root, &k);
    fx_put_proc(root, &g);
    fx_put_proc(root, &other);
    char path[512];
    for (pid_t pid = 100; pid <= 102; pid++) {
        snprintf(path, sizeof(path), "%s/%d/task/%d/children", root, pid, pid);
        ck_assert_int_eq(unlink(path), 0);
    }
    c = collector_for(root);
    add_pid_target("app", 100);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 3);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MAX), 17 * page);
}
END_TEST

/* What the collector said while a test listened: its lines, one per
 * row, the last ones kept when there are more than fit. */
static char said_text[8192];

static void keep_said(enum pt_log_level level, const char *line, void *arg)
{
    (void)level, (void)arg;
    size_t used = strlen(said_text), need = strlen(line) + 2;
    if (used + need > sizeof(said_text))
        used = 0;
    snprintf(said_text + used, sizeof(said_text) - used, "%s\n", line);
}

static void listen_to_the_log(void)
{
    said_text[0] = '\0';
    pt_log_set_sink(keep_said, NULL);
}

/* A pid file that names a new process moves the target to it; the new
 * root's past is not reported as this interval's work. The restart is
 * said though no discovery saw the target empty between the two. */
START_TEST(pidfile_follows_new_pid)
{
    struct fx_proc a = proc(300, 1, 10, 1000, 10, NULL);
    fx_put_proc(root, &a);
    fx_write(root, "svc.pid", "300\n", -1);
    char pidfile[512];
    snprintf(pidfile, sizeof(pidfile), "%s/svc.pid", root);
    c = collector_for(root);
    struct pt_selector sel = {.kind = PT_SELECT_PIDFILE, .path = pidfile};
    struct pt_target_options opt = {.collect_pss = false};
    char err[256];
    ck_assert_int_eq(pt_collector_add_target(c, NULL, &sel, &opt, err, sizeof(err)), 0);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_str_eq(b->targets[0].name, "svc");
    ck_assert(!value(b, 0, PT_M_PROC_PSS_MAX)->present); /* switched off: absent, not 0 */
    /* restart: the old process is reaped by init, a new one writes the file */
    a.io.rchar = 1100;
    fx_put_proc(root, &a);
    pt_collector_tick(c, 0.6);
    fx_vanish(root, 300);
    pt_collector_tick(c, 0.8); /* a poll: the old root is gone */
    struct fx_proc n = proc(301, 1, 20, 77777, 10, NULL);
    fx_put_proc(root, &n);
    fx_write(root, "svc.pid", "301\n", -1);
    listen_to_the_log();
    pt_collector_tick(c, 1.0);
    pt_log_set_sink(NULL, NULL);
    ck_assert_msg(strstr(said_text, "pid file names pid 301 now, was 300"), "said: %s", said_text);
    n.io.rchar = 77777 + 50;
    fx_put_proc(root, &n);
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 100 + 50);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RESTARTS), 1);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RESTARTS), 0);
}
END_TEST

/* A service restarted in a pid namespace of its own gets its old pid
 * again: the pid file is unchanged, its process is another (starttime),
 * and the old root's orphan is no part of the new tree. */
START_TEST(pidfile_restart_with_the_same_pid)
{
    struct fx_proc a = proc(300, 1, 10, 1000, 10, "301");
    struct fx_proc a1 = proc(301, 300, 11, 500, 10, NULL);
    fx_put_proc(root, &a);
    fx_put_proc(root, &a1);
    fx_write(root, "svc.pid", "300\n", -1);
    char pidfile[512];
    snprintf(pidfile, sizeof(pidfile), "%s/svc.pid", root);
    c = collector_for(root);
    struct pt_selector sel = {.kind = PT_SELECT_PIDFILE, .path = pidfile};
    struct pt_target_options opt = {.collect_pss = false};
    char err[256];
    ck_assert_int_eq(pt_collector_add_target(c, NULL, &sel, &opt, err, sizeof(err)), 0);
    add_pid_target("pinned", 300);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RESTARTS), 0);
    ck_assert_int_eq(ivalue(b, 1, PT_M_PROC_RESTARTS), 0);
    fx_vanish(root, 300);
    a1.ppid = 1;
    fx_put_proc(root, &a1);
    pt_collector_tick(c, 0.6); /* a poll: the old root is gone */
    struct fx_proc again = proc(300, 1, 50, 20, 10, NULL);
    fx_put_proc(root, &again);
    pt_collector_tick(c, 1.0); /* a discovery */
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RESTARTS), 1);
    /* --pid stays with the identity it pinned: the orphan, never a restart */
    ck_assert_int_eq(ivalue(b, 1, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b, 1, PT_M_PROC_RESTARTS), 0);
}
END_TEST

/* A pid file that names another live process: the old tree leaves (its
 * work stays counted, it counts as exited), the new one joins without its
 * past; back to the first, exactly its tree again. Pid 1 is refused. */
START_TEST(pidfile_switch_leaves_old_tree)
{
    struct fx_proc a = proc(300, 1, 10, 1000, 10, "301");
    struct fx_proc a1 = proc(301, 300, 11, 1000, 10, NULL);
    struct fx_proc b = proc(400, 1, 20, 50000, 10, NULL);
    struct fx_proc init = proc(1, 0, 1, 90000, 10, "300 400");
    fx_put_proc(root, &a);
    fx_put_proc(root, &a1);
    fx_put_proc(root, &b);
    fx_put_proc(root, &init);
    fx_write(root, "svc.pid", "300\n", -1);
    char pidfile[512];
    snprintf(pidfile, sizeof(pidfile), "%s/svc.pid", root);
    c = collector_for(root);
    struct pt_selector sel = {.kind = PT_SELECT_PIDFILE, .path = pidfile};
    struct pt_target_options opt = {.collect_pss = false};
    char err[256];
    ck_assert_int_eq(pt_collector_add_target(c, NULL, &sel, &opt, err, sizeof(err)), 0);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b0 = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b0, 0, PT_M_PROC_PROCESSES), 2);
    fx_write(root, "svc.pid", "400\n", -1);
    pt_collector_tick(c, 1.0);
    const struct pt_batch *b1 = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b1, 0, PT_M_PROC_RESTARTS), 1);
    ck_assert_int_eq(ivalue(b1, 0, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b1, 0, PT_M_PROC_PROCESSES_EXITED), 2);
    ck_assert_int_eq(ivalue(b1, 0, PT_M_PROC_IO_READ_BYTES), 0);
    fx_write(root, "svc.pid", "300\n", -1);
    pt_collector_tick(c, 2.0);
    const struct pt_batch *b2 = pt_collector_end_interval(c, 2.5);
    ck_assert_int_eq(ivalue(b2, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(ivalue(b2, 0, PT_M_PROC_IO_READ_BYTES), 0);
    ck_assert_int_eq(ivalue(b2, 0, PT_M_PROC_RESTARTS), 1);
    fx_write(root, "svc.pid", "1\n", -1);
    pt_collector_tick(c, 3.0);
    const struct pt_batch *b3 = pt_collector_end_interval(c, 3.5);
    ck_assert_int_eq(ivalue(b3, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(ivalue(b3, 0, PT_M_PROC_RESTARTS), 0); /* refused: no new root */
}
END_TEST

/* Files that are truncated or garbage for one poll are skipped and
 * counted, the process is not dropped. */
START_TEST(unreadable_member_is_skipped_not_dropped)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101");
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    watch_app(&r, &k, NULL);
    fx_write(root, "101/statm", "12", -1);
    pt_collector_tick(c, 0.1);
    fx_write(root, "101/statm", "", 0);
    pt_collector_tick(c, 0.2);
    fx_put_proc(root, &k);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_VANISHED), 2);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MIN), 10 * page); /* the poll that only read the root */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MAX), 15 * page);
}
END_TEST

/* PSS on its own cadence: several samples in an interval give a real
 * min and max; an interval without a sample leaves PSS out. */
START_TEST(pss_on_its_own_cadence)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = root;
    config.pss_interval = 0.25;
    char err[256];
    c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "%s", err);
    add_pid_target("app", 100);
    for (int tick = 0; tick <= 10; tick++) { /* 0.0 .. 1.0: PSS at .25 .5 .75 1.0 */
        r.pss_kb = 100 + (uint64_t)tick;
        r.resident_pages = 10 + (uint64_t)tick; /* memory that moves is read again */
        fx_put_proc(root, &r);
        pt_collector_tick(c, 0.1 * tick + 1e-9);
    }
    const struct pt_batch *b = pt_collector_end_interval(c, 1.05);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MIN), (100 + 3) * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), (100 + 10) * 1024);
    b = pt_collector_end_interval(c, 1.1); /* no PSS sample in between */
    ck_assert(!value(b, 0, PT_M_PROC_PSS_MAX)->present);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
}
END_TEST

/* A member's PSS moves with its statm unchanged when another process
 * starts or stops sharing its pages. Nothing cheaper than smaps_rollup
 * tells (sampling.c), so it is read at every sample: each change shows at
 * the next one, and no value is carried. */
START_TEST(pss_read_at_every_sample)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    for (int sample = 1; sample <= 12; sample++) {
        r.pss_kb = 10 + (uint64_t)sample; /* another process let go of a shared page: statm is the same */
        fx_put_proc(root, &r);
        b = pt_collector_end_interval(c, 1.0 + sample);
        ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), (10 + sample) * 1024);
        ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
    }
}
END_TEST

/* The prefork tree of issue 38. A fork shares all of the parent's pages:
 * its PSS halves, its statm the same. Then the child writes some of the
 * pages they share (copy on write): each gets a page of its own and both
 * PSS rise, with neither statm moving and no one joining or leaving. Then
 * the child exits and the parent's pages are its own again. At each
 * step the tree's PSS is the members' own. */
START_TEST(pss_across_a_fork_and_copy_on_write)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    /* the fork: 10 pages shared by two */
    struct fx_proc k = proc(101, 100, 11, 0, 10, NULL);
    r.children = "101";
    r.pss_kb = k.pss_kb = 5;
    fx_put_proc(root, &r);
    fx_put_proc(root, &k);
    pt_collector_tick(c, 2.5); /* discovery: the child joins */
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    b = pt_collector_end_interval(c, 4.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    /* the child writes 2 of the shared pages: 8 / 2 + 2 each */
    r.pss_kb = k.pss_kb = 6;
    fx_put_proc(root, &r);
    fx_put_proc(root, &k);
    b = pt_collector_end_interval(c, 5.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 12 * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
    /* the child exits, reaped by the parent */
    fx_vanish(root, 101);
    r.children = NULL;
    r.pss_kb = 10;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 6.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
}
END_TEST

/* A member that execs (its name changes) has a new memory map: its PSS is
 * read at the next sample, idle tree or not. */
START_TEST(exec_rereads_pss)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 10 * 1024);
    r.comm = "newprog";
    r.pss_kb = 3;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 3 * 1024);
    ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), 0);
}
END_TEST

/* Target "app" on pid, with a smaps_rollup budget no read can meet, not
 * yet ticked. */
static void watch_pid_with_no_pss_budget(pid_t pid)
{
    c = collector_for(root);
    struct pt_selector sel = {.kind = PT_SELECT_PID, .pid = pid};
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.pss_budget = 1e-12;
    char err[256];
    ck_assert_int_eq(pt_collector_add_target(c, "app", &sel, &opt, err, sizeof(err)), 0);
}

/* The smaps_rollup cost guard, off by default (a carried PSS can be
 * wrong: sampling.c): with a budget no read can meet, a member is read at
 * closes 1, 3, 7, ... and its last values stand in between. */
START_TEST(slow_smaps_read_less_often)
{
    struct pt_target_options defaults;
    pt_target_options_init(&defaults);
    ck_assert(defaults.pss_budget == 0);
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    watch_pid_with_no_pss_budget(100);
    pt_collector_tick(c, 0.0);
    int64_t expected_pss[] = {10, 10, 30, 30, 30, 30, 70};
    int64_t expected_stale[] = {0, 1, 0, 1, 1, 1, 0};
    for (int close = 0; close < 7; close++) {
        r.pss_kb = 10 + 10 * (uint64_t)close; /* changes at every interval */
        r.resident_pages = 10 + (uint64_t)close;
        fx_put_proc(root, &r);
        const struct pt_batch *b = pt_collector_end_interval(c, 1.0 + close);
        ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), expected_pss[close] * 1024);
        ck_assert_int_eq(ivalue(b, 0, PT_M_COLLECTOR_PSS_STALE), expected_stale[close]);
    }
}
END_TEST

static int count_said(const char *words)
{
    int n = 0;
    for (const char *p = said_text; (p = strstr(p, words)); p++)
        n++;
    return n;
}

/* Three members slow at once say it once, not three times: the line is
 * rate-limited per target (ratelimit.h), whose own rule is checked here
 * with a clock of the test's. */
START_TEST(slow_smaps_said_once_in_a_while)
{
    struct pt_ratelimit rl = {0};
    unsigned held = 99;
    ck_assert(pt_ratelimit_pass(&rl, 0.0, 600, &held));
    ck_assert_uint_eq(held, 0);
    ck_assert(!pt_ratelimit_pass(&rl, 1.0, 600, &held));
    ck_assert(!pt_ratelimit_pass(&rl, 599.9, 600, &held));
    ck_assert(pt_ratelimit_pass(&rl, 600.0, 600, &held));
    ck_assert_uint_eq(held, 2);
    ck_assert(!pt_ratelimit_pass(&rl, 601.0, 600, &held));
    /* the same rule with the line's tail: none for nothing held back */
    struct pt_ratelimit said = {0};
    char tail[96] = "stale";
    ck_assert(pt_ratelimit_say(&said, 0.0, "like it", tail, sizeof(tail)));
    ck_assert_str_eq(tail, "");
    ck_assert(!pt_ratelimit_say(&said, 599.9, "like it", tail, sizeof(tail)));
    ck_assert(pt_ratelimit_say(&said, 600.0, "like it", tail, sizeof(tail)));
    ck_assert_str_eq(tail, " (and 1 more like it in the last 10 minutes)");

    struct fx_proc r = proc(100, 1, 10, 0, 10, "101 102");
    struct fx_proc k1 = proc(101, 100, 11, 0, 10, NULL), k2 = proc(102, 100, 12, 0, 10, NULL);
    fx_put_proc(root, &r);
    fx_put_proc(root, &k1);
    fx_put_proc(root, &k2);
    watch_pid_with_no_pss_budget(100);
    listen_to_the_log();
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    pt_log_set_sink(NULL, NULL);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 3);
    ck_assert_int_eq(count_said("smaps_rollup of pid"), 1);
}
END_TEST

static void put_status(pid_t pid, uint64_t voluntary, uint64_t involuntary)
{
    char rel[64], text[256];
    snprintf(rel, sizeof(rel), "%d/status", (int)pid);
    snprintf(text, sizeof(text),
             "Name:\tproc\nUid:\t0\t0\t0\t0\nThreads:\t1\n"
             "voluntary_ctxt_switches:\t%" PRIu64 "\nnonvoluntary_ctxt_switches:\t%" PRIu64 "\n",
             voluntary, involuntary);
    fx_write(root, rel, text, -1);
}

/* Context switches: what live threads did since the last close; a new
 * root's past is not counted, a child born in the tree brings all of its. */
START_TEST(context_switches_and_fds)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    put_status(100, 500, 40);
    fx_write(root, "100/fd/0", "", 0);
    fx_write(root, "100/fd/1", "", 0);
    c = collector_for(root);
    add_pid_target("app", 100);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS), 2);
    put_status(100, 530, 45);
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    fx_put_proc(root, &k);
    put_status(101, 7, 1);
    fx_write(root, "101/fd/0", "", 0);
    r.children = "101";
    fx_put_proc(root, &r);
    pt_collector_tick(c, 1.0);
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 30 + 7);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_INVOLUNTARY), 5 + 1);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS), 3);
    /* a thread exits: the live sum goes down, the delta never does */
    put_status(100, 520, 45);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 0);
}
END_TEST

/* pid's limits file, its "Max open files" soft value written as soft. */
static void put_limits(pid_t pid, const char *soft)
{
    char rel[64], text[512];
    snprintf(rel, sizeof(rel), "%d/limits", (int)pid);
    snprintf(text, sizeof(text),
             "Limit                     Soft Limit           Hard Limit           Units     \n"
             "Max processes             96362                96362                processes \n"
             "Max open files            %-20s 524288               files     \n",
             soft);
    fx_write(root, rel, text, -1);
}

static void put_fds(pid_t pid, int n)
{
    for (int i = 0; i < n; i++) {
        char rel[64];
        snprintf(rel, sizeof(rel), "%d/fd/%d", (int)pid, i);
        fx_write(root, rel, "", 0);
    }
}

static double fvalue(const struct pt_batch *b, size_t target, enum pt_metric_id id)
{
    const struct pt_value *v = value(b, target, id);
    ck_assert_msg(v->present, "%s absent", pt_catalog[id].name);
    return v->is_int ? (double)v->i : v->f;
}

/* The worst member decides; members whose limit is unlimited, garbage or
 * missing are left out of both, never taken as 0. */
START_TEST(descriptor_headroom_of_the_worst_member)
{
    struct fx_proc k[4];
    for (int i = 0; i < 4; i++) {
        k[i] = proc(101 + i, 100, 11 + i, 0, 5, NULL);
        fx_put_proc(root, &k[i]);
        put_fds(101 + i, 1 + i);
    }
    struct fx_proc r = proc(100, 1, 10, 0, 10, "101 102 103 104");
    put_fds(100, 3);
    put_limits(100, "4");    /* 75 %, headroom 1 */
    put_limits(101, "1024"); /* 1 of 1024 */
    put_limits(102, "unlimited");
    fx_write(root, "103/limits", "Max open files  lots  of  files\n", -1);
    /* 104 has no limits file */
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS), 3 + 1 + 2 + 3 + 4);
    ck_assert_double_eq(fvalue(b, 0, PT_M_PROC_FDS_LIMIT_PERCENT), 75.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS_HEADROOM), 1);
}
END_TEST

/* Limits are read at the first count, then once a minute of the
 * collector's clock, and at once after an exec (a new name here). */
START_TEST(descriptor_limits_read_once_a_minute_and_after_exec)
{
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    fx_put_proc(root, &k);
    put_fds(101, 2);
    put_limits(101, "1024");
    struct fx_proc r = proc(100, 1, 10, 0, 10, "101");
    put_fds(100, 3);
    put_limits(100, "4");
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_double_eq(fvalue(b, 0, PT_M_PROC_FDS_LIMIT_PERCENT), 75.0);
    /* raised and lowered from outside (prlimit): seen within a minute */
    put_limits(100, "8");
    put_limits(101, "1");
    b = pt_collector_end_interval(c, 30.0);
    ck_assert_double_eq(fvalue(b, 0, PT_M_PROC_FDS_LIMIT_PERCENT), 75.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS_HEADROOM), 1);
    b = pt_collector_end_interval(c, 61.0);
    /* 101 holds 2 under a limit of 1: 200 %, no headroom left (not -1) */
    ck_assert_double_eq(fvalue(b, 0, PT_M_PROC_FDS_LIMIT_PERCENT), 200.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS_HEADROOM), 0);
    /* 101 execs a program whose limit is unlimited: read at once */
    put_limits(101, "unlimited");
    k.comm = "newprog";
    fx_put_proc(root, &k);
    b = pt_collector_end_interval(c, 62.0);
    ck_assert_double_eq(fvalue(b, 0, PT_M_PROC_FDS_LIMIT_PERCENT), 37.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS_HEADROOM), 5);
}
END_TEST

/* No member with a limit that is a number: both are absent, proc_fds is not. */
START_TEST(descriptor_headroom_absent_without_a_limit)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    put_fds(100, 3);
    put_limits(100, "unlimited");
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS), 3);
    ck_assert(!value(b, 0, PT_M_PROC_FDS_LIMIT_PERCENT)->present);
    ck_assert(!value(b, 0, PT_M_PROC_FDS_HEADROOM)->present);
}
END_TEST

START_TEST(hostile_comm_default_name)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    r.comm = "a) b\n,c=\"d\\";
    fx_put_proc(root, &r);
    c = collector_for(root);
    add_pid_target(NULL, 100);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_str_eq(b->targets[0].name, "a) b\n,c=\"d\\");
}
END_TEST

START_TEST(global_meminfo)
{
    c = collector_for(root);
    pt_collector_tick(c, 0.0);
    fx_put_meminfo(root, 1000000, 100000, 500000, 310000, 120000, 40000);
    pt_collector_tick(c, 0.1);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert(b->has_global);
    ck_assert_int_eq(b->global.v[PT_M_GLOBAL_MEM_USED_MIN].i, 400000 * 1024);
    ck_assert_int_eq(b->global.v[PT_M_GLOBAL_MEM_USED_MAX].i, 500000 * 1024);
    ck_assert_int_eq(b->global.v[PT_M_GLOBAL_CACHED_MAX].i, 310000 * 1024);
    ck_assert_int_eq(b->global.v[PT_M_GLOBAL_ANON_MIN].i, 100000 * 1024);
    ck_assert_int_eq(b->global.v[PT_M_GLOBAL_SWAP_FREE_MIN].i, 40000 * 1024);
}
END_TEST

START_TEST(target_names_are_unique)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    c = collector_for(root);
    add_pid_target("app", 100);
    struct pt_selector sel = {.kind = PT_SELECT_PID, .pid = 100};
    struct pt_target_options opt = {0};
    char err[256];
    ck_assert_int_eq(pt_collector_add_target(c, "app", &sel, &opt, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "duplicate"));
}
END_TEST

/* ---- descriptors ------------------------------------------------------- */

START_TEST(budget_hot_files_may_use_all_of_it)
{
    struct pt_fd_budget b = {.limit = 8};
    ck_assert(pt_fd_budget_take(&b, true));
    for (int i = 0; i < 6; i++)
        ck_assert(pt_fd_budget_take(&b, false));
    ck_assert(!pt_fd_budget_take(&b, false)); /* the others: three quarters */
    ck_assert(b.reached);
    ck_assert(pt_fd_budget_take(&b, true)); /* hot ones: all of it */
    ck_assert(!pt_fd_budget_take(&b, true));
    pt_fd_budget_give(&b, true);
    ck_assert(!pt_fd_budget_take(&b, false)); /* room, but the others have their share */
    ck_assert(pt_fd_budget_take(&b, true));
    pt_fd_budget_give(&b, false);
    ck_assert(pt_fd_budget_take(&b, false));
    ck_assert_uint_eq(b.kept, 8);
    ck_assert_uint_eq(b.by_rank[PT_FD_OTHER], 6);
}
END_TEST

/* Members reserve a statm, then a stat, each: the others get what is
 * left, and give it back when the tree grows. */
START_TEST(budget_members_reserve_statm_then_stat)
{
    struct pt_fd_budget b = {.limit = 10};
    for (int i = 0; i < 3; i++)
        pt_fd_budget_join(&b);
    /* 3 statm + 3 stat reserved: 4 left for the others (under 3/4 of 10) */
    for (int i = 0; i < 4; i++)
        ck_assert(pt_fd_budget_take_rank(&b, PT_FD_OTHER));
    ck_assert(!pt_fd_budget_take_rank(&b, PT_FD_OTHER));
    ck_assert(!pt_fd_budget_over(&b, PT_FD_OTHER));
    for (int i = 0; i < 3; i++)
        ck_assert(pt_fd_budget_take_rank(&b, PT_FD_STAT));
    for (int i = 0; i < 3; i++)
        ck_assert(pt_fd_budget_take_rank(&b, PT_FD_STATM));
    ck_assert_uint_eq(b.kept, 10);
    /* two members more: their statm first, then their stat */
    pt_fd_budget_join(&b);
    pt_fd_budget_join(&b);
    ck_assert(pt_fd_budget_over(&b, PT_FD_OTHER));
    ck_assert(pt_fd_budget_over(&b, PT_FD_STAT)); /* 2 statm wanted, 0 free */
    ck_assert(!pt_fd_budget_over(&b, PT_FD_STATM));
    ck_assert(!pt_fd_budget_take_rank(&b, PT_FD_STATM));
    pt_fd_budget_give_rank(&b, PT_FD_OTHER);
    pt_fd_budget_give_rank(&b, PT_FD_OTHER);
    ck_assert(!pt_fd_budget_over(&b, PT_FD_STAT)); /* the two statm fit now */
    ck_assert(pt_fd_budget_over(&b, PT_FD_OTHER)); /* not yet the two stat */
    ck_assert(!pt_fd_budget_take_rank(&b, PT_FD_STAT));
    ck_assert(pt_fd_budget_take_rank(&b, PT_FD_STATM));
    ck_assert(pt_fd_budget_take_rank(&b, PT_FD_STATM));
    pt_fd_budget_give_rank(&b, PT_FD_OTHER);
    pt_fd_budget_give_rank(&b, PT_FD_OTHER);
    ck_assert(!pt_fd_budget_over(&b, PT_FD_OTHER));
    ck_assert(!pt_fd_budget_take_rank(&b, PT_FD_OTHER)); /* the stats' seats */
    ck_assert(pt_fd_budget_take_rank(&b, PT_FD_STAT));
    ck_assert(pt_fd_budget_take_rank(&b, PT_FD_STAT));
    ck_assert_uint_eq(b.kept, 10);
    ck_assert_uint_eq(b.by_rank[PT_FD_STATM], 5);
    ck_assert_uint_eq(b.by_rank[PT_FD_STAT], 5);
    /* more members than the budget: statm takes all of it */
    for (int i = 0; i < 10; i++)
        pt_fd_budget_join(&b);
    ck_assert(pt_fd_budget_over(&b, PT_FD_STAT));
    ck_assert(!pt_fd_budget_over(&b, PT_FD_STATM));
    for (int i = 0; i < 15; i++)
        pt_fd_budget_leave(&b);
    ck_assert_uint_eq(b.members, 0);
}
END_TEST

/* A tree of three with every kind of file, as the collector with budget
 * limit sees it over two intervals. */
static void three_with_everything(void)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, "101 102");
    struct fx_proc a = proc(101, 100, 11, 2000, 20, NULL);
    struct fx_proc k = proc(102, 100, 12, 3000, 30, NULL);
    fx_put_proc(root, &r);
    fx_put_proc(root, &a);
    fx_put_proc(root, &k);
    for (pid_t pid = 100; pid <= 102; pid++) {
        put_status(pid, pid, 1);
        char rel[32];
        snprintf(rel, sizeof(rel), "%d/fd/%d", (int)pid, (int)pid);
        fx_write(root, rel, "", 0);
    }
}

static const struct pt_batch *two_intervals(size_t budget)
{
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = root;
    config.fd_budget = budget;
    char err[256] = "";
    c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "%s", err);
    add_pid_target("app", 100);
    pt_collector_tick(c, 0.0);
    pt_collector_end_interval(c, 1.0);
    struct fx_proc a = proc(101, 100, 11, 2500, 25, NULL);
    fx_put_proc(root, &a);
    put_status(101, 150, 2);
    pt_collector_tick(c, 1.1);
    return pt_collector_end_interval(c, 2.0);
}

/* The two intervals of three_with_everything with a descriptor budget of
 * budget: the batch, its every proc_* value checked equal to the one a
 * budget that keeps every file gives (but the two clocks read: our CPU,
 * the time now). */
static const struct pt_batch *same_numbers_with_budget(size_t budget)
{
    three_with_everything();
    struct pt_report kept = two_intervals(1000)->targets[0].report;
    pt_collector_free(c);
    c = NULL;
    three_with_everything();
    const struct pt_batch *b = two_intervals(budget);
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        if (pt_catalog[id].scope != PT_SCOPE_PROC || id == PT_M_COLLECTOR_CPU_SECONDS ||
            id == PT_M_PROC_OLDEST_AGE_SECONDS)
            continue;
        const struct pt_value *v = value(b, 0, id);
        ck_assert_msg(v->present == kept.v[id].present, "%s", pt_catalog[id].name);
        ck_assert_msg(v->i == kept.v[id].i && v->f == kept.v[id].f, "%s", pt_catalog[id].name);
    }
    return b;
}

/* Files read by open-read-close give what kept ones give. */
START_TEST(no_budget_reads_the_same_numbers)
{
    const struct pt_batch *b = same_numbers_with_budget(0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 3);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 500);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 150 - 101);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_FDS), 3);
}
END_TEST

/* Descriptors of the fixture's files named name (".../PID/name") this
 * process holds. */
static int kept_files(const char *name)
{
    int n = 0;
    for (int fd = 0; fd < 4096; fd++) {
        char link[64], target[1024];
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        ssize_t len = readlink(link, target, sizeof(target) - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        const char *slash = strrchr(target, '/');
        n += strncmp(target, root, strlen(root)) == 0 && slash && strcmp(slash + 1, name) == 0;
    }
    return n;
}

/* A budget that keeps some of the files reads the same numbers as one
 * that keeps all, and is spent on statm first (fdbudget.h): three
 * members and five descriptors are the three statm and two stat. */
START_TEST(small_budget_keeps_statm_first)
{
    same_numbers_with_budget(5);
    ck_assert_int_eq(kept_files("statm"), 3);
    ck_assert_int_eq(kept_files("stat"), 2);
    ck_assert_int_eq(kept_files("io") + kept_files("schedstat") + kept_files("children"), 0);
}
END_TEST

/* A tree that grows past the budget takes the seats of the files read
 * once an interval for its statm: one member with all of its files kept,
 * then six more, within nine descriptors. */
START_TEST(growing_tree_takes_seats_back_for_statm)
{
    struct fx_proc r = proc(100, 1, 10, 1000, 10, NULL);
    fx_put_proc(root, &r);
    put_status(100, 100, 1);
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    config.proc_root = root;
    config.fd_budget = 9;
    char err[256] = "";
    c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "%s", err);
    add_pid_target("app", 100);
    double now = 0;
    for (int tick = 0; tick < 10; tick++, now += 0.1)
        pt_collector_tick(c, now);
    pt_collector_end_interval(c, now);
    ck_assert_int_eq(kept_files("statm"), 1);
    ck_assert_int_gt(kept_files("io") + kept_files("schedstat") + kept_files("children"), 0);
    r.children = "101 102 103 104 105 106";
    fx_put_proc(root, &r);
    for (pid_t pid = 101; pid <= 106; pid++) {
        struct fx_proc k = proc(pid, 100, (uint64_t)pid, 100, 5, NULL);
        fx_put_proc(root, &k);
        put_status(pid, pid, 1);
    }
    const struct pt_batch *b = NULL;
    for (int interval = 0; interval < 2; interval++) {
        for (int tick = 0; tick < 10; tick++, now += 0.1)
            pt_collector_tick(c, now);
        b = pt_collector_end_interval(c, now);
    }
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 7);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MAX), (10 + 6 * 5) * page);
    ck_assert_int_eq(kept_files("statm"), 7);
    ck_assert_int_eq(kept_files("stat"), 2);
    ck_assert_int_eq(kept_files("io") + kept_files("schedstat") + kept_files("children"), 0);
}
END_TEST

/* A file read by path after its process was reaped and the pid reused is
 * not taken for the member's: the member is gone. */
START_TEST(no_budget_never_reads_a_reused_pid)
{
    three_with_everything();
    two_intervals(0);
    fx_vanish(root, 101);
    struct fx_proc reused = proc(101, 1, 99, 900000, 900, NULL);
    fx_put_proc(root, &reused);
    pt_collector_tick(c, 2.1);
    const struct pt_batch *b = pt_collector_end_interval(c, 3.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 2);
    ck_assert_int_lt(ivalue(b, 0, PT_M_PROC_RSS_MAX), 900 * page);
}
END_TEST

static long open_descriptors(void)
{
    long n = 0;
    for (int fd = 0; fd < 4096; fd++)
        n += fcntl(fd, F_GETFD) >= 0;
    return n;
}

/* The soft limit only: it can be raised again. */
static void limit_descriptors(rlim_t n)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = n;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

/* Out of descriptors (a budget above the limit): what was not read whole
 * is absent, never a partial sum, and nothing is lost once they are back. */
START_TEST(out_of_descriptors_leaves_sums_out)
{
    struct rlimit saved;
    getrlimit(RLIMIT_NOFILE, &saved);
    three_with_everything();
    c = collector_for(root);
    add_pid_target("app", 100);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 3);
    /* a child born now cannot join: the membership is incomplete */
    struct fx_proc r = proc(100, 1, 10, 1400, 10, "101 102 103");
    struct fx_proc n = proc(103, 100, 13, 700, 5, NULL);
    fx_put_proc(root, &r);
    fx_put_proc(root, &n);
    limit_descriptors((rlim_t)open_descriptors());
    pt_collector_tick(c, 1.5);
    b = pt_collector_end_interval(c, 2.0);
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        if (pt_catalog[id].scope == PT_SCOPE_PROC && strncmp(pt_catalog[id].name, "proc_", 5) == 0)
            ck_assert_msg(!value(b, 0, id)->present, "%s present", pt_catalog[id].name);
    }
    ck_assert(value(b, 0, PT_M_COLLECTOR_SAMPLES)->present);
    limit_descriptors(saved.rlim_cur);
    pt_collector_tick(c, 2.5);
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 4);
    /* the root's 400 and the newcomer's 700 of the short interval */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 400 + 700);
}
END_TEST

/* --exe, --match, --user and --cgroup never take kernel threads; --pid does. */
START_TEST(kernel_threads_are_not_matched)
{
    struct fx_proc kthreadd = proc(2, 0, 1, 0, 0, "3");
    kthreadd.comm = "kthreadd";
    kthreadd.flags = PT_PF_KTHREAD;
    struct fx_proc worker = proc(3, 2, 1, 0, 0, NULL);
    worker.comm = "kworker/0:0";
    worker.flags = PT_PF_KTHREAD;
    struct fx_proc user = proc(100, 1, 10, 0, 10, NULL);
    user.comm = "kthreadd"; /* a user process may take any name */
    fx_put_proc(root, &kthreadd);
    fx_put_proc(root, &worker);
    fx_put_proc(root, &user);
    c = collector_for(root);
    struct pt_selector exe = {.kind = PT_SELECT_EXE, .value = "kthreadd"};
    struct pt_selector pid = {.kind = PT_SELECT_PID, .pid = 2};
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    char err[256];
    ck_assert_int_eq(pt_collector_add_target(c, "exe", &exe, &opt, err, sizeof(err)), 0);
    ck_assert_int_eq(pt_collector_add_target(c, "pid", &pid, &opt, err, sizeof(err)), 0);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b, 1, PT_M_PROC_PROCESSES), 2);
}
END_TEST

/* --match sees the first PT_MATCH_TEXT_MAX bytes of a command line. */
START_TEST(match_text_is_bounded)
{
    struct fx_proc p = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &p);
    size_t len = PT_MATCH_TEXT_MAX + 100;
    char *cmdline = malloc(len + 1);
    memset(cmdline, 'x', len);
    memcpy(cmdline + len - 4, "MARK", 4);
    cmdline[len] = '\0';
    fx_write(root, "100/cmdline", cmdline, (long)len);
    free(cmdline);
    c = collector_for(root);
    struct pt_selector head = {.kind = PT_SELECT_MATCH, .value = "^xxx"};
    struct pt_selector tail = {.kind = PT_SELECT_MATCH, .value = "MARK"};
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    char err[256];
    ck_assert_int_eq(pt_collector_add_target(c, "head", &head, &opt, err, sizeof(err)), 0);
    ck_assert_int_eq(pt_collector_add_target(c, "tail", &tail, &opt, err, sizeof(err)), 0);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PROCESSES), 1);
    ck_assert_int_eq(ivalue(b, 1, PT_M_PROC_PROCESSES), 0);
}
END_TEST

/* Hostile or broken /proc values at the top of the integer range are
 * clamped when parsed (procparse.h) and every sum saturates: two members
 * of 2^62 pages each must not wrap to 0 (nor be undefined behaviour). */
START_TEST(huge_memory_and_thread_sums_saturate)
{
    struct fx_proc r = proc(100, 1, 10, 0, 0, "101");
    struct fx_proc k = proc(101, 100, 11, 0, 0, NULL);
    struct fx_proc *both[] = {&r, &k};
    for (int i = 0; i < 2; i++) {
        both[i]->size_pages = both[i]->resident_pages = 1ULL << 62;
        both[i]->num_threads = INT64_MAX;
        both[i]->pss_kb = 1ULL << 62;
    }
    watch_app(&r, &k, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    int64_t member_bytes = (int64_t)PT_MAX_PAGES * page;
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_VM_SIZE_MAX), 2 * member_bytes);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_RSS_MIN), 2 * member_bytes);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_ANON_MAX), 2 * member_bytes);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_PSS_MAX), 2 * (int64_t)PT_MAX_BYTES);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_THREADS), 2 * (int64_t)PT_MAX_THREADS);
}
END_TEST

/* Counters at the top of uint64: a new root's (its past is subtracted:
 * -1 * INT64_MIN once) and two born children's, whose sums saturate. */
START_TEST(huge_counters_saturate)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    r.io.rchar = UINT64_MAX;
    r.utime = INT64_MAX;
    r.cutime = 1; /* utime + cutime = 2^63 */
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
    for (pid_t pid = 101; pid <= 102; pid++) {
        struct fx_proc k = proc(pid, 100, 20 + (uint64_t)pid, 0, 5, NULL);
        k.io.rchar = k.io.syscr = UINT64_MAX;
        k.utime = k.stime = k.cutime = k.cstime = UINT64_MAX;
        k.minflt = k.cminflt = (uint64_t)INT64_MAX;
        fx_put_proc(root, &k);
        put_status(pid, UINT64_MAX, (uint64_t)INT64_MAX + 1);
    }
    r.children = "101 102";
    fx_put_proc(root, &r);
    pt_collector_tick(c, 1.0); /* discovery: both are born in the tree */
    b = pt_collector_end_interval(c, 1.5);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), INT64_MAX);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_SYSCALLS), INT64_MAX);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_MINOR_FAULTS), INT64_MAX);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), INT64_MAX);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_INVOLUNTARY), INT64_MAX);
    /* the CPU at most what the host's CPUs run in the 1 s (user and
     * system share it); the rest waits, whole, for later lines */
    const struct pt_value *cpu = value(b, 0, PT_M_PROC_CPU_USER_SECONDS);
    const struct pt_value *sys = value(b, 0, PT_M_PROC_CPU_SYSTEM_SECONDS);
    double most = 1.0 * (double)sysconf(_SC_NPROCESSORS_ONLN);
    ck_assert(cpu->present && isfinite(cpu->f) && sys->present && isfinite(sys->f));
    ck_assert(cpu->f + sys->f >= most - 1e-9 && cpu->f + sys->f <= most + 1.0 / (double)sysconf(_SC_CLK_TCK));
    ck_assert(value(b, 0, PT_M_PROC_CPU_PERCENT)->present);
    /* saturated: nothing more to report, and nothing negative */
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_IO_READ_BYTES), 0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_MINOR_FAULTS), 0);
}
END_TEST

static void put_thread_status(pid_t pid, pid_t tid, int voluntary)
{
    char rel[64], text[256];
    snprintf(rel, sizeof(rel), "%d/task/%d/status", (int)pid, (int)tid);
    snprintf(text, sizeof(text),
             "Name:\tproc\nUid:\t0\t0\t0\t0\nvoluntary_ctxt_switches:\t%d\nnonvoluntary_ctxt_switches:\t0\n",
             voluntary);
    fx_write(root, rel, text, -1);
}

/* Descriptors of this process open on a file whose path ends so. */
static int kept_on(const char *suffix)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++) {
        char link[32], target[512];
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        ssize_t len = readlink(link, target, sizeof(target) - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        size_t sl = strlen(suffix);
        n += (size_t)len >= sl && strcmp(target + len - sl, suffix) == 0;
    }
    return n;
}

/* A multi-threaded member's threads are listed once and their status
 * files kept; the list is walked again when a kept file says its thread
 * is gone, even if the thread count did not change. */
START_TEST(threads_are_kept_while_they_live)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    r.num_threads = 2;
    fx_put_proc(root, &r);
    put_status(100, 10, 0);
    put_thread_status(100, 100, 10);
    put_thread_status(100, 1000, 5);
    c = collector_for(root);
    add_pid_target("app", 100);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 0);
    ck_assert_int_eq(kept_on("/100/task/1000/status"), 1);
    put_thread_status(100, 1000, 7);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 2);
    /* thread 1000 ends, 1001 starts: still two threads */
    char path[512];
    fx_write(root, "100/task/1000/status", "", 0);
    snprintf(path, sizeof(path), "%s/100/task/1000/status", root);
    ck_assert_int_eq(unlink(path), 0);
    put_thread_status(100, 1001, 3);
    b = pt_collector_end_interval(c, 3.0); /* 1000 reads empty: gone, 1001 not yet listed */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 0);
    ck_assert_int_eq(kept_on("/100/task/1000/status"), 0);
    put_thread_status(100, 1001, 6);
    b = pt_collector_end_interval(c, 4.0); /* listed again: 10 + 6 against 10 */
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 6);
    ck_assert_int_eq(kept_on("/100/task/1001/status"), 1);
}
END_TEST

/* pid's (tid 0) or its thread tid's schedstat: a run-queue delay in ns. */
static void put_schedstat(pid_t pid, pid_t tid, uint64_t delay_ns)
{
    char rel[64], text[96];
    if (tid)
        snprintf(rel, sizeof(rel), "%d/task/%d/schedstat", (int)pid, (int)tid);
    else
        snprintf(rel, sizeof(rel), "%d/schedstat", (int)pid);
    snprintf(text, sizeof(text), "123456 %" PRIu64 " 9\n", delay_ns);
    fx_write(root, rel, text, -1);
}

/* The run-queue delay: schedstat's second field, a single-threaded
 * member's own file, each thread's of a multi-threaded one (the process
 * directory's is its main thread's alone); the growth since the last
 * interval, a root's past not counted. */
START_TEST(run_queue_delay_of_processes_and_threads)
{
    struct fx_proc k = proc(101, 100, 11, 0, 5, NULL);
    k.num_threads = 2;
    fx_put_proc(root, &k);
    put_thread_status(101, 101, 1);
    put_thread_status(101, 1011, 1);
    put_schedstat(101, 0, 1000000);
    put_schedstat(101, 101, 1000000);
    put_schedstat(101, 1011, 3000000);
    struct fx_proc r = proc(100, 1, 10, 0, 10, "101");
    put_status(100, 1, 1);
    put_schedstat(100, 0, 5000000);
    watch_app(&r, NULL);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_double_eq(fvalue(b, 0, PT_M_PROC_CPU_DELAY_SECONDS), 0.0);
    put_schedstat(100, 0, 5000000 + 250000000);
    put_schedstat(101, 0, 999999999); /* the main thread's alone: not read */
    put_schedstat(101, 101, 1000000 + 100000000);
    put_schedstat(101, 1011, 3000000 + 50000000);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_double_eq_tol(fvalue(b, 0, PT_M_PROC_CPU_DELAY_SECONDS), 0.4, 1e-12);
    /* without schedstat (no CONFIG_SCHED_INFO): absent, never 0 */
    char path[512];
    for (int i = 0; i < 3; i++) {
        const char *rel[] = {"100/schedstat", "101/task/101/schedstat", "101/task/1011/schedstat"};
        snprintf(path, sizeof(path), "%s/%s", root, rel[i]);
        ck_assert_int_eq(unlink(path), 0);
    }
    watch_pid(100);
    b = pt_collector_end_interval(c, 1.0);
    ck_assert(!value(b, 0, PT_M_PROC_CPU_DELAY_SECONDS)->present);
    ck_assert(value(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY)->present);
}
END_TEST

/* A starttime (clock ticks after boot) that many seconds from now: later
 * than any reading of the sysctl a test's collector makes, whichever
 * clock the test gives it (its own from 0, or pt_now()'s at its making). */
static uint64_t ticks_after_boot_from_now(double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)(((double)ts.tv_sec + seconds) * (double)sysconf(_SC_CLK_TCK));
}

/* The block-I/O delay: stat's field 42 (clock ticks), only while
 * kernel.task_delayacct is 1, read at each interval's end; absent while
 * it is 0 or missing, and in the interval it is switched on in. */
START_TEST(blkio_delay_only_with_delayacct)
{
    double tick = 1.0 / (double)sysconf(_SC_CLK_TCK);
    /* started after the switch is seen: the kernel counts all of its waits */
    struct fx_proc r = proc(100, 1, ticks_after_boot_from_now(1000), 0, 10, NULL);
    r.blkio_ticks = 40;
    put_status(100, 1, 1);
    watch_app(&r, NULL); /* no sys/kernel/task_delayacct */
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
    fx_write(root, "sys/kernel/task_delayacct", "0\n", -1);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
    fx_write(root, "sys/kernel/task_delayacct", "1\n", -1);
    /* the first end that finds it on reads the base: the waits between the
     * switch and that read are unknown, so the interval leaves it out */
    b = pt_collector_end_interval(c, 3.0);
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
    r.blkio_ticks = 40 + 7;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 4.0);
    ck_assert_double_eq_tol(fvalue(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS), 7 * tick, 1e-9);
    fx_write(root, "sys/kernel/task_delayacct", "0\n", -1);
    r.blkio_ticks = 40 + 9;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 5.0);
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
    /* on again: a base again, then counted from it */
    fx_write(root, "sys/kernel/task_delayacct", "1\n", -1);
    b = pt_collector_end_interval(c, 6.0);
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
    r.blkio_ticks = 49 + 3;
    fx_put_proc(root, &r);
    b = pt_collector_end_interval(c, 7.0);
    ck_assert_double_eq_tol(fvalue(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS), 3 * tick, 1e-9);
}
END_TEST

/* A tree with a process started before the switch was seen: the kernel
 * does not count that process's waits (its record of them is made at
 * fork), so the tree's delay is left out, however long it runs; with
 * delayacct on the kernel command line every task is counted. */
START_TEST(blkio_delay_left_out_for_a_tree_older_than_the_switch)
{
    double tick = 1.0 / (double)sysconf(_SC_CLK_TCK);
    struct fx_proc r = proc(100, 1, ticks_after_boot_from_now(1000), 0, 10, "101");
    struct fx_proc old = proc(101, 100, 10, 0, 10, NULL);
    old.blkio_ticks = 5;
    put_status(100, 1, 1);
    put_status(101, 1, 1);
    fx_write(root, "sys/kernel/task_delayacct", "1\n", -1);
    watch_app(&r, &old, NULL);
    for (int i = 1; i <= 3; i++) {
        old.blkio_ticks += 4;
        fx_put_proc(root, &old);
        const struct pt_batch *b = pt_collector_end_interval(c, (double)i);
        ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
        ck_assert(value(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY)->present);
    }
    fx_write(root, "cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/vda delayacct quiet\n", -1);
    watch_pid(100);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0); /* the base */
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
    old.blkio_ticks += 6;
    fx_put_proc(root, &old);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_double_eq_tol(fvalue(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS), 6 * tick, 1e-9);
    /* a word that only contains it is not the option */
    fx_write(root, "cmdline", "nodelayacct delayacct=0\n", -1);
    watch_pid(100);
    pt_collector_end_interval(c, 1.0);
    b = pt_collector_end_interval(c, 2.0);
    ck_assert(!value(b, 0, PT_M_PROC_BLKIO_DELAY_SECONDS)->present);
}
END_TEST

/* A member not switched in since the last interval (schedstat's third
 * field unchanged) has no new context switches: its status is not read. */
START_TEST(status_read_only_after_a_switch_in)
{
    struct fx_proc r = proc(100, 1, 10, 0, 10, NULL);
    fx_put_proc(root, &r);
    put_status(100, 500, 40);
    fx_write(root, "100/schedstat", "1000 200 7\n", -1);
    c = collector_for(root);
    add_pid_target("app", 100);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 1.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 0);
    put_status(100, 530, 40); /* a file made up: schedstat says it cannot have moved */
    b = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 0);
    fx_write(root, "100/schedstat", "1500 200 9\n", -1);
    b = pt_collector_end_interval(c, 3.0);
    ck_assert_int_eq(ivalue(b, 0, PT_M_PROC_CTX_SWITCHES_VOLUNTARY), 30);
}
END_TEST

/* The breakdown's line of the group named name in target 0, or NULL. */
static const struct pt_report *group(const struct pt_batch *b, const char *name)
{
    const struct pt_target_result *t = &b->targets[0];
    for (size_t i = 0; i < t->n_groups; i++)
        if (strcmp(t->groups[i].name, name) == 0)
            return &t->groups[i].report;
    return NULL;
}

static int64_t group_int(const struct pt_batch *b, const char *name, enum pt_metric_id id)
{
    const struct pt_report *r = group(b, name);
    ck_assert_msg(r != NULL, "no group %s", name);
    ck_assert_msg(r->v[id].present && r->v[id].is_int, "%s of %s absent", pt_catalog[id].name, name);
    return r->v[id].i;
}

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
    /* a cgroup2 mount of the fixture, so that cg is on a hierarchy's filesystem */
    fx_write(root, "sys/fs/cgroup/cgroup.controllers", "cpu memory\n", -1);
    fx_write(root, "sys/fs/cgroup/cgroup.procs", "", -1);
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    char sys[512];
    snprintf(sys, sizeof(sys), "%s/sys", root);
    config.proc_root = root;
    config.sys_root = sys;
    c = pt_collector_new(&config, NULL, 0);
    ck_assert_ptr_nonnull(c);
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

/* A cgroup made again at its path (another inode: a unit's restart)
 * counts a restart, with cgroup_* metrics or without; one that is gone
 * for a while and comes back counts one too. A --match target has none. */
START_TEST(cgroup_made_again_is_a_restart)
{
    struct fx_proc a = proc(200, 1, 20, 2000, 20, NULL);
    fx_put_proc(root, &a);
    fx_write(root, "sys/fs/cgroup/cgroup.controllers", "cpu memory\n", -1);
    fx_write(root, "sys/fs/cgroup/cgroup.procs", "", -1);
    fx_write(root, "sys/fs/cgroup/svc/cgroup.procs", "200\n", -1);
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    char sys[512], err[256] = "";
    snprintf(sys, sizeof(sys), "%s/sys", root);
    config.proc_root = root;
    config.sys_root = sys;
    c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "%s", err);
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    struct pt_selector sel = {.kind = PT_SELECT_CGROUP, .path = "/svc"};
    ck_assert_msg(pt_collector_add_target(c, "svc", &sel, &opt, err, sizeof(err)) == 0, "%s", err);
    opt.collect_cgroup = false;
    ck_assert_msg(pt_collector_add_target(c, "off", &sel, &opt, err, sizeof(err)) == 0, "%s", err);
    struct pt_selector match = {.kind = PT_SELECT_EXE, .value = "proc"};
    ck_assert_msg(pt_collector_add_target(c, "exe", &match, &opt, err, sizeof(err)) == 0, "%s", err);
    pt_collector_tick(c, 0.0);
    const struct pt_batch *b = pt_collector_end_interval(c, 0.5);
    for (size_t k = 0; k < 2; k++)
        ck_assert_int_eq(ivalue(b, k, PT_M_PROC_RESTARTS), 0);
    ck_assert(!value(b, 2, PT_M_PROC_RESTARTS)->present);
    /* made again: the old directory kept aside, so its inode cannot be reused */
    char from[600], to[600];
    snprintf(from, sizeof(from), "%s/sys/fs/cgroup/svc", root);
    snprintf(to, sizeof(to), "%s/sys/fs/cgroup/svc.old", root);
    ck_assert_int_eq(rename(from, to), 0);
    fx_write(root, "sys/fs/cgroup/svc/cgroup.procs", "200\n", -1);
    pt_collector_tick(c, 1.0); /* a discovery */
    b = pt_collector_end_interval(c, 1.5);
    for (size_t k = 0; k < 2; k++)
        ck_assert_int_eq(ivalue(b, k, PT_M_PROC_RESTARTS), 1);
    /* gone for a discovery, then back */
    snprintf(to, sizeof(to), "%s/sys/fs/cgroup/svc.older", root);
    ck_assert_int_eq(rename(from, to), 0);
    pt_collector_tick(c, 2.0);
    b = pt_collector_end_interval(c, 2.5);
    for (size_t k = 0; k < 2; k++)
        ck_assert_int_eq(ivalue(b, k, PT_M_PROC_RESTARTS), 0);
    fx_write(root, "sys/fs/cgroup/svc/cgroup.procs", "200\n", -1);
    pt_collector_tick(c, 3.0);
    b = pt_collector_end_interval(c, 3.5);
    for (size_t k = 0; k < 2; k++)
        ck_assert_int_eq(ivalue(b, k, PT_M_PROC_RESTARTS), 1);
}
END_TEST

/* A cgroup's cpu.stat and memory.current in the fixture. */
static void put_cgroup_stats(const char *rel, unsigned user_usec, unsigned current)
{
    char path[256], text[160];
    snprintf(path, sizeof(path), "%s/cpu.stat", rel);
    snprintf(text, sizeof(text), "usage_usec %u\nuser_usec %u\nsystem_usec 0\n", user_usec, user_usec);
    fx_write(root, path, text, -1);
    snprintf(path, sizeof(path), "%s/memory.current", rel);
    snprintf(text, sizeof(text), "%u\n", current);
    fx_write(root, path, text, -1);
}

/* A cgroup target below the cgroup2 mount (the sys root's convention)
 * carries its cgroup's accounting on its line, and with --by cgroup each
 * cgroup's line its own; "." has none (its cgroup is the target's, whose
 * counters hold the others'); --no-cgroup-metrics leaves them all out. */
START_TEST(cgroup_metrics_on_lines)
{
    struct fx_proc a = proc(200, 1, 20, 2000, 20, NULL), b = proc(300, 1, 30, 3000, 30, NULL);
    fx_put_proc(root, &a), fx_put_proc(root, &b);
    fx_write(root, "sys/fs/cgroup/cgroup.controllers", "cpu memory\n", -1);
    fx_write(root, "sys/fs/cgroup/cgroup.procs", "", -1);
    fx_write(root, "sys/fs/cgroup/svc/cgroup.procs", "", -1);
    fx_write(root, "sys/fs/cgroup/svc/a.service/cgroup.procs", "200\n", -1);
    fx_write(root, "sys/fs/cgroup/svc/b.service/cgroup.procs", "300\n", -1);
    put_cgroup_stats("sys/fs/cgroup/svc", 1000, 900);
    put_cgroup_stats("sys/fs/cgroup/svc/a.service", 400, 300);
    put_cgroup_stats("sys/fs/cgroup/svc/b.service", 600, 600);
    struct pt_collector_config config;
    pt_collector_config_init(&config);
    char sys[512], err[256] = "";
    snprintf(sys, sizeof(sys), "%s/sys", root);
    config.proc_root = root;
    config.sys_root = sys;
    c = pt_collector_new(&config, err, sizeof(err));
    ck_assert_msg(c != NULL, "%s", err);
    struct pt_target_options opt;
    pt_target_options_init(&opt);
    opt.breakdown = PT_BY_CGROUP;
    struct pt_selector sel = {.kind = PT_SELECT_CGROUP, .path = "/svc"};
    ck_assert_msg(pt_collector_add_target(c, "svc", &sel, &opt, err, sizeof(err)) == 0, "%s", err);
    opt.breakdown = PT_BY_NONE;
    opt.collect_cgroup = false;
    ck_assert_msg(pt_collector_add_target(c, "off", &sel, &opt, err, sizeof(err)) == 0, "%s", err);
    pt_collector_tick(c, 0.0);
    put_cgroup_stats("sys/fs/cgroup/svc", 1500, 700);
    put_cgroup_stats("sys/fs/cgroup/svc/a.service", 700, 100);
    put_cgroup_stats("sys/fs/cgroup/svc/b.service", 800, 600);
    pt_collector_tick(c, 0.1); /* a poll: memory in use */
    const struct pt_batch *bt = pt_collector_end_interval(c, 1.0);
    ck_assert(value(bt, 0, PT_M_CGROUP_CPU_USER_SECONDS)->present);
    ck_assert_double_eq_tol(value(bt, 0, PT_M_CGROUP_CPU_USER_SECONDS)->f, 0.0005, 1e-9);
    ck_assert_int_eq(ivalue(bt, 0, PT_M_CGROUP_MEMORY_CURRENT_MIN), 700);
    ck_assert_int_eq(ivalue(bt, 0, PT_M_CGROUP_MEMORY_CURRENT_MAX), 900);
    const struct pt_report *ra = group(bt, "a.service"), *rb = group(bt, "b.service");
    ck_assert_ptr_nonnull(ra);
    ck_assert_ptr_nonnull(rb);
    ck_assert(ra->v[PT_M_CGROUP_CPU_USER_SECONDS].present);
    ck_assert_double_eq_tol(ra->v[PT_M_CGROUP_CPU_USER_SECONDS].f, 0.0003, 1e-9);
    ck_assert_double_eq_tol(rb->v[PT_M_CGROUP_CPU_USER_SECONDS].f, 0.0002, 1e-9);
    ck_assert_int_eq(ra->v[PT_M_CGROUP_MEMORY_CURRENT_MAX].i, 300);
    ck_assert(!value(bt, 0, PT_M_CGROUP_PRESSURE_CPU_SOME_SECONDS)->present); /* no cpu.pressure: left out */
    ck_assert(!value(bt, 1, PT_M_CGROUP_CPU_USER_SECONDS)->present);          /* switched off */
    ck_assert_int_eq(ivalue(bt, 1, PT_M_PROC_PROCESSES), 2);
    /* an interval without a poll (the last one after a launched command
     * exits can be): its end samples the cgroups as it does the members */
    put_cgroup_stats("sys/fs/cgroup/svc", 1600, 650);
    bt = pt_collector_end_interval(c, 2.0);
    ck_assert_int_eq(ivalue(bt, 0, PT_M_CGROUP_MEMORY_CURRENT_MIN), 650);
    ck_assert_int_eq(ivalue(bt, 0, PT_M_CGROUP_MEMORY_CURRENT_MAX), 650);
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

int main(void)
{
    Suite *s = suite_create("accounting");
    TCase *tc = tcase_create("fixture");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, extrema_over_polls);
    tcase_add_test(tc, deltas_from_attach_not_before);
    tcase_add_test(tc, reaped_child_absorbed_once);
    tcase_add_test(tc, transient_dip_is_carried);
    tcase_add_test(tc, lost_departure_does_not_hide_later_work);
    tcase_add_test(tc, orphan_reaped_by_init_does_not_hide_later_work);
    tcase_add_test(tc, churn_of_departures_never_hides_work);
    tcase_add_test(tc, nested_reaping_counted_once);
    tcase_add_test(tc, new_child_counts_from_birth);
    tcase_add_test(tc, states_of_every_letter_and_the_oldest_age);
    tcase_add_test(tc, orphans_and_departed_root);
    tcase_add_test(tc, pid_reuse_is_a_new_member);
    tcase_add_test(tc, deltas_never_negative);
    tcase_add_test(tc, scan_fallback_without_children_files);
    tcase_add_test(tc, pidfile_follows_new_pid);
    tcase_add_test(tc, pidfile_switch_leaves_old_tree);
    tcase_add_test(tc, pidfile_restart_with_the_same_pid);
    tcase_add_test(tc, unreadable_member_is_skipped_not_dropped);
    tcase_add_test(tc, slow_smaps_read_less_often);
    tcase_add_test(tc, slow_smaps_said_once_in_a_while);
    tcase_add_test(tc, pss_read_at_every_sample);
    tcase_add_test(tc, pss_across_a_fork_and_copy_on_write);
    tcase_add_test(tc, exec_rereads_pss);
    tcase_add_test(tc, pss_on_its_own_cadence);
    tcase_add_test(tc, context_switches_and_fds);
    tcase_add_test(tc, descriptor_headroom_of_the_worst_member);
    tcase_add_test(tc, descriptor_limits_read_once_a_minute_and_after_exec);
    tcase_add_test(tc, descriptor_headroom_absent_without_a_limit);
    tcase_add_test(tc, hostile_comm_default_name);
    tcase_add_test(tc, global_meminfo);
    tcase_add_test(tc, target_names_are_unique);
    tcase_add_test(tc, budget_hot_files_may_use_all_of_it);
    tcase_add_test(tc, budget_members_reserve_statm_then_stat);
    tcase_add_test(tc, no_budget_reads_the_same_numbers);
    tcase_add_test(tc, no_budget_never_reads_a_reused_pid);
    tcase_add_test(tc, small_budget_keeps_statm_first);
    tcase_add_test(tc, growing_tree_takes_seats_back_for_statm);
    tcase_add_test(tc, out_of_descriptors_leaves_sums_out);
    tcase_add_test(tc, kernel_threads_are_not_matched);
    tcase_add_test(tc, match_text_is_bounded);
    tcase_add_test(tc, threads_are_kept_while_they_live);
    tcase_add_test(tc, run_queue_delay_of_processes_and_threads);
    tcase_add_test(tc, blkio_delay_only_with_delayacct);
    tcase_add_test(tc, blkio_delay_left_out_for_a_tree_older_than_the_switch);
    tcase_add_test(tc, status_read_only_after_a_switch_in);
    tcase_add_test(tc, huge_memory_and_thread_sums_saturate);
    tcase_add_test(tc, huge_counters_saturate);
    tcase_add_test(tc, breakdown_by_process_name);
    tcase_add_test(tc, breakdown_by_cgroup);
    tcase_add_test(tc, cgroup_metrics_on_lines);
    tcase_add_test(tc, cgroup_made_again_is_a_restart);
    tcase_add_test(tc, breakdown_groups_are_recycled);
    tcase_add_test(tc, breakdown_by_thread_name);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
