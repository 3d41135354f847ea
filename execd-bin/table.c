#include "table.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "proctree/escape.h"

__attribute__((format(printf, 2, 3))) static void put(struct pt_buf *out, const char *format, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, format);
    vsnprintf(text, sizeof(text), format, ap);
    va_end(ap);
    pt_buf_puts(out, text);
}

static bool has(const struct pt_report *r, enum pt_metric_id id)
{
    return r->v[id].present;
}

static double value(const struct pt_report *r, enum pt_metric_id id)
{
    return pt_lines_value_as_double(&r->v[id]);
}

/* A memory metric back in bytes, from the unit the options chose. */
static double bytes(const struct pt_report *r, enum pt_metric_id id, const struct pt_units *units)
{
    enum pt_unit unit = pt_catalog[id].unit;
    double scale = unit == PT_UNIT_PROC_MEMORY     ? pt_units_mem_bytes(units->proc_memory)
                   : unit == PT_UNIT_GLOBAL_MEMORY ? pt_units_mem_bytes(units->global_memory)
                                                   : 1.0;
    return value(r, id) * scale;
}

/* "512 B", "1.5 KiB", "12.0 MiB", "1.21 GiB": three figures at most past
 * the first thousand, binary multiples as the memory units are. */
static const char *human(char *text, size_t len, double n)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    size_t u = 0;
    while (n >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
        n /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(text, len, "%.0f B", n);
    else
        snprintf(text, len, n < 10 ? "%.2f %s" : n < 100 ? "%.1f %s" : "%.0f %s", n, unit[u]);
    return text;
}

/* A figure, or "-" where the metric is absent (never a 0 that looks like
 * a measurement). */
static const char *human_of(char *text, size_t len, const struct pt_report *r, enum pt_metric_id id,
                            const struct pt_units *units)
{
    if (!has(r, id))
        return "-";
    return human(text, len, bytes(r, id, units));
}

/* An amount as a rate over the interval; with --counters total, the
 * amount since the start as it is: its rate would need the interval's
 * own, which the line no longer holds. */
static const char *rate_of(char *text, size_t len, const struct pt_report *r, enum pt_metric_id id, double seconds,
                           bool totals)
{
    if (!has(r, id) || !(seconds > 0 || totals))
        return "-";
    if (totals)
        return human(text, len, value(r, id));
    human(text, len, value(r, id) / seconds);
    size_t n = strlen(text);
    snprintf(text + n, len - n, "/s");
    return text;
}

#define NAME_WIDTH 16

void execd_table_batch(struct pt_buf *out, const struct pt_batch *b, const struct pt_units *units, bool header)
{
    if (header)
        put(out, "%-8s  %-*s %6s %7s  %-21s %10s %11s %11s %6s\n", "TIME", NAME_WIDTH, "TARGET", "PROCS", "CPU%",
            "RSS (min..max)", "PSS", b->totals ? "READ TOTAL" : "READ", b->totals ? "WRITE TOTAL" : "WRITE", "FDS");
    char when[16] = "";
    time_t t = (time_t)(b->timestamp_ns / 1000000000);
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(when, sizeof(when), "%H:%M:%S", &tm);
    for (size_t i = 0; i < b->n_targets; i++) {
        const struct pt_report *r = &b->targets[i].report;
        char name[4 * NAME_WIDTH + 1], lo[24], hi[24], band[48], pss[24], rd[24], wr[24], cpu[16], procs[16], fds[16];
        snprintf(band, sizeof(band), "%s..%s", human_of(lo, sizeof(lo), r, PT_M_PROC_RSS_MIN, units),
                 human_of(hi, sizeof(hi), r, PT_M_PROC_RSS_MAX, units));
        snprintf(cpu, sizeof(cpu), has(r, PT_M_PROC_CPU_PERCENT) ? "%.1f" : "-", value(r, PT_M_PROC_CPU_PERCENT));
        snprintf(procs, sizeof(procs), has(r, PT_M_PROC_PROCESSES) ? "%.0f" : "-", value(r, PT_M_PROC_PROCESSES));
        snprintf(fds, sizeof(fds), has(r, PT_M_PROC_FDS) ? "%.0f" : "-", value(r, PT_M_PROC_FDS));
        /* escaped (no control or format character reaches the terminal),
         * cut at a whole character, padded by the columns a terminal gives
         * it, not its bytes */
        put(out, "%-8s  %s %6s %7s  %-21s %10s %11s %11s %6s\n", when,
            pt_escape_column(b->targets[i].name, NAME_WIDTH, name, sizeof(name)), procs, cpu, band,
            human_of(pss, sizeof(pss), r, PT_M_PROC_PSS_MAX, units),
            rate_of(rd, sizeof(rd), r, PT_M_PROC_IO_READ_BYTES, b->seconds, b->totals),
            rate_of(wr, sizeof(wr), r, PT_M_PROC_IO_WRITE_BYTES, b->seconds, b->totals), fds);
    }
    if (b->has_global && has(&b->global, PT_M_GLOBAL_MEM_USED_MIN)) {
        char lo[24], hi[24], band[48];
        snprintf(band, sizeof(band), "%s..%s", human_of(lo, sizeof(lo), &b->global, PT_M_GLOBAL_MEM_USED_MIN, units),
                 human_of(hi, sizeof(hi), &b->global, PT_M_GLOBAL_MEM_USED_MAX, units));
        put(out, "%-8s  %-*s %6s %7s  %-21s\n", when, NAME_WIDTH, "(host mem used)", "", "", band);
    }
}

/* "12.3 s", "2 min 3.4 s", "1 h 02 min" */
static const char *duration(char *text, size_t len, double s)
{
    int minutes = (int)(s / 60);
    if (s < 60)
        snprintf(text, len, "%.2f s", s);
    else if (s < 3600)
        snprintf(text, len, "%d min %.1f s", minutes, s - 60.0 * minutes);
    else
        snprintf(text, len, "%d h %02d min", minutes / 60, minutes % 60);
    return text;
}

static const char *count_of(char *text, size_t len, const struct pt_report *r, enum pt_metric_id id)
{
    if (!has(r, id))
        return "-";
    snprintf(text, len, "%.0f", value(r, id));
    return text;
}

/* Why a figure of the summary is a dash: each absent one names itself
 * once, in a line after the figures, so that "-" is never read as 0 nor
 * left unexplained. */
struct dashes {
    struct {
        const char *why;
        char names[96];
    } reason[6];
    size_t n;
};

static void dash(struct dashes *d, const struct pt_report *r, enum pt_metric_id id, const char *name, const char *why)
{
    if (has(r, id))
        return;
    size_t i = 0;
    while (i < d->n && d->reason[i].why != why)
        i++;
    if (i == PT_ARRAY_LEN(d->reason))
        return;
    if (i == d->n)
        d->reason[d->n++].why = why;
    char *names = d->reason[i].names;
    size_t len = strlen(names);
    snprintf(names + len, sizeof(d->reason[i].names) - len, "%s%s", len ? ", " : "", name);
}

#define WHY_EXIT_RECORDS "from the kernel's exit records, which need root or CAP_NET_ADMIN"
#define WHY_SMAPS "no smaps_rollup read in the run (one at each interval's end): the tree ended first, or unreadable"
#define WHY_UNREADABLE "the members' /proc files were unreadable (PERMISSIONS in proctree-execd(1))"
#define WHY_CGROUP "no cgroup of its own (--no-launch-cgroup, or none could be made)"

void execd_table_summary(struct pt_buf *out, const char *command, const int *wait_status,
                         const struct pt_run_summary *run, const struct pt_units *units)
{
    struct pt_report r;
    pt_runsummary_report(run, &r);
    struct dashes d = {.n = 0, .reason = {{NULL, ""}}};
    char q[PT_QUOTED_MAX], a[32], b[32], c[32];
    put(out, "\n\"%s\" and every process it started, over %s:\n", pt_escape(command, q, sizeof(q)),
        duration(a, sizeof(a), run->seconds));
    if (!wait_status)
        put(out, "  %-22s unknown (not reaped)\n", "exit status");
    else if (WIFSIGNALED(*wait_status))
        put(out, "  %-22s killed by signal %d\n", "exit status", WTERMSIG(*wait_status));
    else
        put(out, "  %-22s %d\n", "exit status", WEXITSTATUS(*wait_status));
    if (has(&r, PT_M_PROC_CPU_USER_SECONDS))
        put(out, "  %-22s user %s, system %s (%.0f %% of one CPU on average)\n", "CPU time",
            duration(a, sizeof(a), value(&r, PT_M_PROC_CPU_USER_SECONDS)),
            duration(b, sizeof(b), value(&r, PT_M_PROC_CPU_SYSTEM_SECONDS)), value(&r, PT_M_PROC_CPU_PERCENT));
    else
        put(out, "  %-22s -\n", "CPU time");
    dash(&d, &r, PT_M_PROC_CPU_USER_SECONDS, "CPU time", WHY_UNREADABLE);
    /* what time -v calls the maximum resident set size: one process's
     * own peak, the kernel's high-water mark, not a sample */
    put(out, "  %-22s peak RSS %s (time -v's maximum resident set size)\n", "largest process",
        human_of(a, sizeof(a), &r, PT_M_PROC_EXITED_RSS_PEAK_MAX, units));
    dash(&d, &r, PT_M_PROC_EXITED_RSS_PEAK_MAX, "largest process", WHY_EXIT_RECORDS);
    put(out, "  %-22s RSS %s, PSS %s, USS %s (summed over its processes, at their highest)\n", "the tree's memory",
        human_of(a, sizeof(a), &r, PT_M_PROC_RSS_MAX, units), human_of(b, sizeof(b), &r, PT_M_PROC_PSS_MAX, units),
        human_of(c, sizeof(c), &r, PT_M_PROC_USS_MAX, units));
    dash(&d, &r, PT_M_PROC_RSS_MAX, "RSS", WHY_UNREADABLE);
    dash(&d, &r, PT_M_PROC_PSS_MAX, "PSS", WHY_SMAPS);
    dash(&d, &r, PT_M_PROC_USS_MAX, "USS", WHY_SMAPS);
    put(out, "  %-22s read %s, written %s (time -v's file system inputs and outputs, in bytes)\n", "disk",
        human_of(a, sizeof(a), &r, PT_M_PROC_IO_STORAGE_READ_BYTES, units),
        human_of(b, sizeof(b), &r, PT_M_PROC_IO_STORAGE_WRITE_BYTES, units));
    dash(&d, &r, PT_M_PROC_IO_STORAGE_READ_BYTES, "disk", WHY_UNREADABLE);
    put(out, "  %-22s read %s, written %s (files, pipes and sockets: a pipe counts on both sides)\n",
        "read() and write()", human_of(a, sizeof(a), &r, PT_M_PROC_IO_READ_BYTES, units),
        human_of(b, sizeof(b), &r, PT_M_PROC_IO_WRITE_BYTES, units));
    dash(&d, &r, PT_M_PROC_IO_READ_BYTES, "read() and write()", WHY_UNREADABLE);
    put(out, "  %-22s %s started, %s failed, %s killed\n", "processes",
        count_of(a, sizeof(a), &r, PT_M_PROC_PROCESSES_STARTED), count_of(b, sizeof(b), &r, PT_M_PROC_PROCESSES_FAILED),
        count_of(c, sizeof(c), &r, PT_M_PROC_PROCESSES_KILLED));
    dash(&d, &r, PT_M_PROC_PROCESSES_FAILED, "failed, killed", WHY_EXIT_RECORDS);
    /* the cgroup's own peak over its life is the run's; else the highest
     * of the intervals'. The kernel charges the cgroup the page cache its
     * processes brought in too, which no process's RSS holds. */
    enum pt_metric_id peak =
        has(&r, PT_M_CGROUP_MEMORY_PEAK_LIFETIME) ? PT_M_CGROUP_MEMORY_PEAK_LIFETIME : PT_M_CGROUP_MEMORY_PEAK;
    put(out, "  %-22s memory peak %s (page cache included), OOM kills %s\n", "its cgroup (exact)",
        human_of(a, sizeof(a), &r, peak, units), count_of(b, sizeof(b), &r, PT_M_CGROUP_MEMORY_OOM_KILLS));
    dash(&d, &r, peak, "its cgroup", WHY_CGROUP);
    for (size_t i = 0; i < d.n; i++)
        put(out, "  - %s: %s\n", d.reason[i].names, d.reason[i].why);
}
