/* bench/drmscan: what one interval's end costs a tree's DRM read
 * (pt_targetgpu_end_reads), on fixture /proc trees (tests/unit/support's), in
 * wall milliseconds, against the targets the scan was built to:
 *
 *   A  4 members x 16,000 distinct DRM clients      every end < 50 ms
 *   B  100 members x 10,000 DRM descriptors         every end < 100 ms,
 *                                                   the bound said once
 *   C  1 member, 70,000 descriptors, the last DRM   (found; no target:
 *                                                   the walk's own cost)
 *
 *   drmscan [--ends N] [--members-b N]
 *
 * A "DRM" descriptor is a link to /dev/null, whose major (1) the scan is
 * told is DRM's, as in test_gpu. B's members all show one fd/ and one
 * fdinfo/ (the others' are links to the first's: the scan opens them as
 * it opens any), so its million descriptors cost 10,000 files to build;
 * they hold one client, as descriptors inherited across a fork do, and
 * its fdinfo files are hard links of one. Each tree is built in $TMPDIR
 * (default /tmp), timed
 * over N ends (default 5) after one untimed, and removed. Not a test: a
 * timing on a shared machine is not a verdict (bench/README.md). */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "gpu/gpu.h"
#include "tree/discovery.h"
#include "tree/targetgpu.h"
#include "unit.h"

static int said;
static void count_said(enum pt_log_level level, const char *line, void *arg)
{
    (void)arg;
    if (level == PT_LOG_WARNING && strstr(line, "DRM descriptors"))
        said++;
}

static int dir_of(const char *root, pid_t pid, const char *sub)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%d/%s", root, (int)pid, sub);
    if (mkdir(path, 0755) != 0) {
        perror(path);
        exit(1);
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    return fd;
}

static void put_text(int dir, const char *name, const char *text)
{
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
        perror(name);
        exit(1);
    }
    close(fd);
}

static void client_text(char *buf, size_t len, unsigned long id)
{
    snprintf(buf, len,
             "pos:\t0\nflags:\t02\ndrm-driver:\ti915\ndrm-pdev:\t0000:00:02.0\ndrm-client-id:\t%lu\n"
             "drm-engine-render:\t%lu ns\ndrm-resident-system0:\t4 KiB\n",
             id, id * 1000);
}

/* members pids 100.., 100 the root; each with fds descriptors: DRM ones
 * (distinct clients; or one client, every member's fd/ the root's) or
 * links to a regular file with the last one DRM. */
enum shape { DISTINCT, LINKED, LAST_ONLY };

static void build(struct unit_tree *u, int members, int fds, enum shape shape)
{
    char children[8192] = "", pid_s[16];
    for (int i = 1; i < members; i++) {
        snprintf(pid_s, sizeof(pid_s), "%s%d", i > 1 ? " " : "", 100 + i);
        strncat(children, pid_s, sizeof(children) - strlen(children) - 1);
    }
    unit_tree_put(u, 100, 1, children);
    for (int i = 1; i < members; i++)
        unit_tree_put(u, 100 + i, 100, "");
    char text[512], name[16], reg[4096];
    snprintf(reg, sizeof(reg), "%s/100/stat", u->root);
    for (int i = 0; i < members; i++) {
        pid_t pid = 100 + i;
        if (shape == LINKED && i > 0) {
            char at[4096];
            snprintf(at, sizeof(at), "%s/%d/fd", u->root, (int)pid);
            if (symlink("../100/fd", at) != 0)
                perror(at), exit(1);
            snprintf(at, sizeof(at), "%s/%d/fdinfo", u->root, (int)pid);
            if (symlink("../100/fdinfo", at) != 0)
                perror(at), exit(1);
            continue;
        }
        int fd_dir = dir_of(u->root, pid, "fd"), info_dir = dir_of(u->root, pid, "fdinfo");
        if (shape == LINKED) {
            client_text(text, sizeof(text), (unsigned long)pid);
            put_text(info_dir, "3", text);
        }
        for (int n = 3; n < 3 + fds; n++) {
            snprintf(name, sizeof(name), "%d", n);
            bool drm = shape != LAST_ONLY || n == 3 + fds - 1;
            if (symlinkat(drm ? "/dev/null" : reg, fd_dir, name) != 0) {
                perror("symlinkat");
                exit(1);
            }
            if (shape == DISTINCT || (shape == LAST_ONLY && drm)) {
                client_text(text, sizeof(text), (unsigned long)pid * 100000 + (unsigned long)n);
                put_text(info_dir, name, text);
            } else if (shape == LINKED && n > 3 && linkat(info_dir, "3", info_dir, name, 0) != 0) {
                perror("linkat");
                exit(1);
            }
        }
        close(fd_dir);
        close(info_dir);
    }
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void run(const char *label, int members, int fds, enum shape shape, int ends, double target_ms)
{
    struct unit_tree u;
    unit_tree_open(&u);
    double t0 = pt_now();
    build(&u, members, fds, shape);
    double built = pt_now() - t0;
    pt_target_discover(&u.target, pt_now());
    struct pt_gpu g = {.drm_on = true, .drm_major = 1};
    struct pt_units units = {PT_MEM_BYTES, PT_MEM_BYTES};
    struct pt_report r;
    said = 0;
    pt_log_set_sink(count_said, NULL);
    double ms[64];
    for (int i = 0; i <= ends; i++) {
        double a = pt_now();
        pt_targetgpu_end_reads(&u.target, &u.target.gpu, &g);
        double b = pt_now();
        if (i > 0)
            ms[i - 1] = (b - a) * 1e3;
        pt_target_end_interval(&u.target, 1.0, &units, &r);
    }
    pt_log_set_sink(NULL, NULL);
    qsort(ms, (size_t)ends, sizeof(ms[0]), by_double);
    const struct pt_value *users = &r.v[PT_M_PROC_GPU_PROCESSES];
    printf(
        "%-46s  median %8.2f ms  max %8.2f ms  %s  clients kept %zu, processes %s, bound said %d  (built in %.1f s)\n",
        label, ms[ends / 2], ms[ends - 1],
        target_ms <= 0             ? "(no target)     "
        : ms[ends - 1] < target_ms ? (target_ms < 60 ? "< 50 ms: met    " : "< 100 ms: met   ")
                                   : (target_ms < 60 ? "< 50 ms: MISSED " : "< 100 ms: MISSED"),
        u.target.gpu.clients.n, users->present ? (users->i == members ? "all" : "some") : "left out", said, built);
    fflush(stdout);
    unit_tree_close(&u);
}

static int ends = 5, members_b = 100;

/* Inside a check test: the fixture's helpers assert with check's macros. */
START_TEST(drmscan)
{
    printf("DRM scan at an interval's end (PT_DRM_READS_MAX %d), %d ends each after one:\n", PT_DRM_READS_MAX, ends);
    run("A  4 members x 16,000 distinct clients", 4, 16000, DISTINCT, ends, 50);
    char label[64];
    snprintf(label, sizeof(label), "B  %d members x 10,000 DRM descriptors", members_b);
    run(label, members_b, 10000, LINKED, ends, 100);
    run("C  1 member x 70,000 descriptors, last DRM", 1, 70000, LAST_ONLY, ends, 0);
}
END_TEST

int main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--ends") == 0)
            ends = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--members-b") == 0)
            members_b = atoi(argv[i + 1]);
    }
    if (ends < 1 || ends > 64 || members_b < 1 || members_b > 1000) {
        fprintf(stderr, "usage: drmscan [--ends 1..64] [--members-b 1..1000]\n");
        return 2;
    }
    Suite *s = suite_create("drmscan");
    TCase *tc = tcase_create("drmscan");
    tcase_set_timeout(tc, 1800);
    tcase_add_test(tc, drmscan);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_SILENT);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
