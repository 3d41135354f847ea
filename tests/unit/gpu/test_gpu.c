/* The GPU a tree holds: the DRM fdinfo parser (each driver's key set,
 * malformed and hostile values), a tree's DRM clients on a fixture (a
 * client shared by two members counted once, engines added up, regions;
 * a DRM descriptor past a process's 65,536th found; the bound on one
 * end's fdinfo reads: the sums left out, said once, the busy time
 * carried), the clients' hash (drmclients.h),
 * and the NVML glue against the stand-in library the tests build
 * (nvml_standin.c: two devices, a process on both, a process that exits
 * between two calls, an error code per call). */
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree/discovery.h"
#include "gpu/drmclients.h"
#include "gpu/drmfdinfo.h"
#include "fixture.h"
#include "gpu/gpu.h"
#include "tree/targetgpu.h"
#include "unit.h"

#define KIB 1024ULL
#define MIB (1024ULL * 1024)

static int parse(const char *text, struct pt_drm_client *c)
{
    char *copy = exact_copy(text, strlen(text));
    int rc = pt_drmfdinfo_parse(copy, strlen(text), c);
    free(copy);
    return rc;
}

/* Engine name's index in c, or -1. */
static int engine_find(const struct pt_drm_client *c, const char *name)
{
    for (size_t i = 0; i < c->n_engines; i++)
        if (strcmp(c->engine[i].name, name) == 0)
            return (int)i;
    return -1;
}

static const struct pt_drm_engine *engine(const struct pt_drm_client *c, const char *name)
{
    int i = engine_find(c, name);
    ck_assert_msg(i >= 0, "no engine %s", name);
    return &c->engine[i];
}

static uint64_t memory(const struct pt_drm_client *c)
{
    uint64_t bytes = 0;
    ck_assert(pt_drmfdinfo_client_memory(c, &bytes));
    return bytes;
}

/* ---- each driver's keys ------------------------------------------------ */

/* The interval's end as the collector makes it: the GPU reads, then the
 * target's line, in bytes. */
static void end_interval(struct unit_tree *u, const struct pt_gpu *g, struct pt_report *r)
{
    struct pt_units units = {PT_MEM_BYTES, PT_MEM_BYTES};
    pt_target_gpu_end_reads(&u->target, g);
    pt_target_end_interval(&u->target, 1.0, &units, r);
}

START_TEST(drm_amdgpu)
{
    struct pt_drm_client c;
    ck_assert_int_eq(parse("pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1062\n"
                           "drm-driver:\tamdgpu\ndrm-client-id:\t42\ndrm-pdev:\t0000:03:00.0\npasid:\t32770\n"
                           "drm-memory-vram:\t1024 KiB\ndrm-memory-gtt:\t2048 KiB\ndrm-memory-cpu:\t0 KiB\n"
                           "amd-memory-visible-vram:\t0 KiB\namd-evicted-vram:\t0 KiB\n"
                           "drm-engine-gfx:\t1000000 ns\ndrm-engine-compute:\t500 ns\ndrm-engine-dec:\t0 ns\n",
                           &c),
                     0);
    ck_assert_str_eq(c.driver, "amdgpu");
    ck_assert_str_eq(c.pdev, "0000:03:00.0");
    ck_assert_uint_eq(c.client_id, 42);
    ck_assert_uint_eq(c.n_engines, 3);
    ck_assert_uint_eq(engine(&c, "gfx")->ns, 1000000);
    ck_assert_uint_eq(engine(&c, "compute")->ns, 500);
    ck_assert_uint_eq(memory(&c), 3072 * KIB);
    /* newer amdgpu: total and resident per region; resident counts */
    ck_assert_int_eq(parse("drm-driver:\tamdgpu\ndrm-client-id:\t43\ndrm-total-vram:\t4 MiB\n"
                           "drm-resident-vram:\t3 MiB\ndrm-total-gtt:\t1 MiB\ndrm-resident-gtt:\t1 MiB\n"
                           "drm-purgeable-vram:\t0\ndrm-evicted-vram:\t0 KiB\n",
                           &c),
                     0);
    ck_assert_uint_eq(memory(&c), 4 * MIB);
}
END_TEST

START_TEST(drm_i915)
{
    struct pt_drm_client c;
    ck_assert_int_eq(parse("drm-driver:\ti915\ndrm-pdev:\t0000:00:02.0\ndrm-client-id:\t7\n"
                           "drm-engine-render:\t25662044495 ns\ndrm-engine-copy:\t0 ns\ndrm-engine-video:\t3 ns\n"
                           "drm-engine-capacity-video:\t2\ndrm-engine-video-enhance:\t0 ns\n"
                           "drm-total-system0:\t4 MiB\ndrm-shared-system0:\t0\ndrm-active-system0:\t0\n"
                           "drm-resident-system0:\t2 MiB\ndrm-purgeable-system0:\t0\ndrm-total-local0:\t8 MiB\n",
                           &c),
                     0);
    ck_assert_uint_eq(c.n_engines, 4); /* the capacity is no engine */
    ck_assert_uint_eq(engine(&c, "render")->ns, 25662044495ULL);
    ck_assert_uint_eq(engine(&c, "video-enhance")->has, PT_DRM_HAS_NS);
    ck_assert_uint_eq(c.n_regions, 2);
    /* system0 resident, local0 only its total */
    ck_assert_uint_eq(memory(&c), 10 * MIB);
}
END_TEST

START_TEST(drm_xe)
{
    struct pt_drm_client c;
    ck_assert_int_eq(parse("drm-driver:\txe\ndrm-client-id:\t3\ndrm-pdev:\t0000:03:00.0\n"
                           "drm-total-system:\t0\ndrm-resident-system:\t0\ndrm-total-gtt:\t4 KiB\n"
                           "drm-total-vram0:\t8 MiB\ndrm-shared-vram0:\t0\ndrm-active-vram0:\t0\n"
                           "drm-resident-vram0:\t8 MiB\ndrm-purgeable-vram0:\t0\n"
                           "drm-cycles-rcs:\t25000\ndrm-total-cycles-rcs:\t100000\n"
                           "drm-cycles-bcs:\t0\ndrm-total-cycles-bcs:\t100000\ndrm-engine-capacity-ccs:\t4\n",
                           &c),
                     0);
    const struct pt_drm_engine *rcs = engine(&c, "rcs");
    ck_assert_uint_eq(rcs->has, PT_DRM_HAS_CYCLES | PT_DRM_HAS_TOTAL_CYCLES);
    ck_assert_uint_eq(rcs->cycles, 25000);
    ck_assert_uint_eq(rcs->total_cycles, 100000);
    ck_assert_uint_eq(c.n_engines, 2);
    ck_assert_uint_eq(memory(&c), 8 * MIB + 4 * KIB);
}
END_TEST

START_TEST(drm_msm_panfrost_v3d)
{
    struct pt_drm_client c;
    ck_assert_int_eq(parse("drm-driver:\tmsm\ndrm-client-id:\t2\ndrm-engine-gpu:\t1000 ns\ndrm-cycles-gpu:\t500\n"
                           "drm-maxfreq-gpu:\t800000000 Hz\ndrm-total-memory:\t1024 KiB\n"
                           "drm-resident-memory:\t512 KiB\ndrm-purgeable-memory:\t0\ndrm-active-memory:\t0\n",
                           &c),
                     0);
    ck_assert_uint_eq(engine(&c, "gpu")->has, PT_DRM_HAS_NS | PT_DRM_HAS_CYCLES);
    ck_assert_uint_eq(memory(&c), 512 * KIB);
    ck_assert_int_eq(parse("drm-driver:\tpanfrost\ndrm-client-id:\t5\ndrm-engine-fragment:\t1000 ns\n"
                           "drm-cycles-fragment:\t10\ndrm-maxfreq-fragment:\t800000000 Hz\n"
                           "drm-curfreq-fragment:\t400000000 Hz\ndrm-engine-vertex-tiler:\t2000 ns\n"
                           "drm-cycles-vertex-tiler:\t20\ndrm-total-memory:\t4096 KiB\ndrm-shared-memory:\t0\n"
                           "drm-active-memory:\t0\ndrm-resident-memory:\t1024 KiB\ndrm-purgeable-memory:\t0\n",
                           &c),
                     0);
    ck_assert_uint_eq(c.n_engines, 2);
    ck_assert_uint_eq(engine(&c, "vertex-tiler")->ns, 2000);
    ck_assert_uint_eq(memory(&c), 1024 * KIB);
    ck_assert_int_eq(parse("drm-driver:\tv3d\ndrm-client-id:\t9\ndrm-engine-bin:\t100 ns\ndrm-engine-render:\t200 ns\n"
                           "drm-engine-tfu:\t0 ns\ndrm-engine-csd:\t300 ns\ndrm-engine-cache_clean:\t0 ns\n",
                           &c),
                     0);
    ck_assert_uint_eq(c.n_engines, 5);
    uint64_t bytes;
    ck_assert(!pt_drmfdinfo_client_memory(&c, &bytes)); /* v3d tells no memory */
}
END_TEST

/* ---- malformed and hostile --------------------------------------------- */

START_TEST(drm_not_a_client)
{
    struct pt_drm_client c;
    ck_assert_int_eq(parse("pos:\t0\nflags:\t02\nmnt_id:\t1\nino:\t3\n", &c), -1);
    ck_assert_int_eq(parse("drm-driver:\ti915\ndrm-engine-render:\t5 ns\n", &c), -1);             /* no id */
    ck_assert_int_eq(parse("drm-client-id:\t1\ndrm-engine-render:\t5 ns\n", &c), -1);             /* no driver */
    ck_assert_int_eq(parse("drm-driver:\ti915\ndrm-client-id:\t12abc\n", &c), -1);                /* junk after */
    ck_assert_int_eq(parse("drm-driver:\ti 915\ndrm-client-id:\t1\n", &c), -1);                   /* a blank in it */
    ck_assert_int_eq(parse("drm-driver:\ti915\ndrm-client-id:\t1", &c), -1);                      /* cut short */
    ck_assert_int_eq(parse("drm-driver:\ti915\ndrm-client-id:\t99999999999999999999\n", &c), -1); /* > 2^64 */
    ck_assert_int_eq(parse("", &c), -1);
}
END_TEST

START_TEST(drm_hostile_values)
{
    struct pt_drm_client c;
    ck_assert_int_eq(parse("drm-driver:\ti915\ndrm-client-id:\t1\n"
                           "drm-engine-a:\t5\n"                                           /* no unit */
                           "drm-engine-b:\t5 ms\n"                                        /* not ns */
                           "drm-engine-c:\t-5 ns\n"                                       /* sign */
                           "drm-engine-d:\t1e9 ns\n"                                      /* not decimal digits */
                           "drm-engine-e:\t5 ns x\n"                                      /* junk after */
                           "drm-engine-f g:\t5 ns\n"                                      /* a blank in the key */
                           "drm-engine-h/i:\t5 ns\n"                                      /* a slash */
                           "drm-engine-:\t5 ns\n"                                         /* no name */
                           "drm-engine-0123456789012345678901234567890123456789:\t5 ns\n" /* too long */
                           "drm-engine-j:\t99999999999999999999 ns\n"                     /* > 2^64 */
                           "drm-engine-k:\t7 ns\r\n"                                      /* CR */
                           "drm-engine-l:7 ns\n"                                          /* no blank after the colon */
                           "drm-engine-ok:\t3 ns\n"
                           "drm-engine-ok:\t9 ns\n"                   /* twice: the first stands */
                           "drm-total-r:\t18446744073709551615 GiB\n" /* clamped */
                           "drm-total-s:\t4 TiB\n"                    /* unknown unit */
                           "drm-engine-m\0x:\t5 ns\n",                /* a NUL, cut by strlen */
                           &c),
                     0);
    ck_assert_uint_eq(c.n_engines, 1);
    ck_assert_uint_eq(engine(&c, "ok")->ns, 3);
    ck_assert_uint_eq(c.n_regions, 1);
    ck_assert_uint_eq(memory(&c), PT_DRM_VALUE_MAX);
}
END_TEST

START_TEST(drm_bounded)
{
    /* more engines and regions than kept: the first ones */
    char text[8192] = "drm-driver:\tamdgpu\ndrm-client-id:\t1\n";
    for (int i = 0; i < 40; i++) {
        char line[64];
        snprintf(line, sizeof(line), "drm-engine-e%d:\t%d ns\ndrm-resident-r%d:\t1 KiB\n", i, i, i);
        strcat(text, line);
    }
    struct pt_drm_client c;
    ck_assert_int_eq(parse(text, &c), 0);
    ck_assert_uint_eq(c.n_engines, PT_DRM_ENGINES_MAX);
    ck_assert_uint_eq(c.n_regions, PT_DRM_REGIONS_MAX);
    ck_assert_uint_eq(engine(&c, "e15")->ns, 15);
    ck_assert_int_eq(engine_find(&c, "e16"), -1);
    ck_assert_uint_eq(memory(&c), PT_DRM_REGIONS_MAX * KIB);
    /* every prefix of a client's fdinfo parses or is refused, never read past */
    const char *full = "drm-driver:\tamdgpu\ndrm-client-id:\t42\ndrm-engine-gfx:\t100 ns\ndrm-memory-vram:\t4 KiB\n";
    for (size_t n = 0; n <= strlen(full); n++) {
        char *copy = exact_copy(full, n);
        pt_drmfdinfo_parse(copy, n, &c);
        free(copy);
    }
}
END_TEST

START_TEST(drm_devices_major)
{
    const char *devices = "Character devices:\n  1 mem\n  4 /dev/vc/0\n 10 misc\n226 drm\n"
                          "511 aux\n\nBlock devices:\n  7 loop\n226 drmfake\n";
    ck_assert_uint_eq(pt_gpu_drm_major_parse(devices, strlen(devices)), 226);
    const char *none = "Character devices:\n  1 mem\n\nBlock devices:\n226 drm\n";
    ck_assert_uint_eq(pt_gpu_drm_major_parse(none, strlen(none)), 0); /* a block device is not it */
    const char *cut = "Character devices:\n226 drm";
    ck_assert_uint_eq(pt_gpu_drm_major_parse(cut, strlen(cut)), 0);
    const char *junk = "Character devices:\n99999999 drm\n-1 drm\n226 drm2\n 12drm\n";
    ck_assert_uint_eq(pt_gpu_drm_major_parse(junk, strlen(junk)), 0);
}
END_TEST

/* ---- a tree's DRM clients on a fixture --------------------------------- */

/* fd/N of pid a descriptor of /dev/null, the "DRM" device of these tests
 * (its major, 1, stands for drm's 226: a fixture cannot make a device
 * node), its fdinfo text. */
static void put_fd(const char *root, pid_t pid, int fd, const char *target, const char *fdinfo)
{
    char rel[64], path[4096];
    snprintf(rel, sizeof(rel), "%d/fdinfo/%d", (int)pid, fd);
    fx_write(root, rel, fdinfo, -1);
    snprintf(path, sizeof(path), "%s/%d/fd", root, (int)pid);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%d/fd/%d", root, (int)pid, fd);
    unlink(path);
    ck_assert_int_eq(symlink(target, path), 0);
}

static const char *client(char *buf, size_t len, unsigned id, unsigned long long render_ns, unsigned resident_kib)
{
    snprintf(buf, len,
             "pos:\t0\nflags:\t02\ndrm-driver:\ti915\ndrm-pdev:\t0000:00:02.0\ndrm-client-id:\t%u\n"
             "drm-engine-render:\t%llu ns\ndrm-engine-copy:\t%llu ns\ndrm-resident-system0:\t%u KiB\n"
             "drm-resident-local0:\t%u KiB\n",
             id, render_ns, render_ns / 10, resident_kib, resident_kib);
    return buf;
}

static const struct pt_value *metric(const struct pt_report *r, enum pt_metric_id id)
{
    return &r->v[id];
}

START_TEST(drm_tree_counts_each_client_once)
{
    struct unit_tree u;
    unit_tree_open(&u);
    unit_tree_put(&u, 100, 1, "101 102");
    unit_tree_put(&u, 101, 100, "");
    unit_tree_put(&u, 102, 100, "");
    char a[512], b[512];
    /* client 1 held by 100 and by 101 (inherited across a fork); client 2 by 102 */
    put_fd(u.root, 100, 3, "/dev/null", client(a, sizeof(a), 1, 1000000000ULL, 512));
    put_fd(u.root, 101, 5, "/dev/null", client(a, sizeof(a), 1, 1000000000ULL, 512));
    put_fd(u.root, 102, 4, "/dev/null", client(b, sizeof(b), 2, 500000000ULL, 1024));
    /* a regular file whose fdinfo says drm: not a device, not read */
    char path[4096];
    snprintf(path, sizeof(path), "%s/100/stat", u.root);
    put_fd(u.root, 102, 0, path, client(b, sizeof(b), 3, 9000000000ULL, 9999));
    pt_target_discover(&u.target, pt_now());
    struct pt_gpu g = {.drm_on = true, .drm_major = 1};
    struct pt_report r;

    end_interval(&u, &g, &r);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_MEMORY_MAX)->i, (int64_t)(3 * MIB)); /* 1 MiB + 2 MiB */
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_MEMORY_MIN)->i, (int64_t)(3 * MIB));
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_PROCESSES)->i, 3);
    /* the tree joined with its past: the first read is a base */
    ck_assert(metric(&r, PT_M_PROC_GPU_BUSY_SECONDS)->present);
    ck_assert_double_eq_tol(metric(&r, PT_M_PROC_GPU_BUSY_SECONDS)->f, 0, 1e-9);

    /* client 1's render engine 2 s more (copy 0.2 s): counted once; client 2's 0.1 s (+0.01) */
    put_fd(u.root, 100, 3, "/dev/null", client(a, sizeof(a), 1, 3000000000ULL, 256));
    put_fd(u.root, 101, 5, "/dev/null", client(a, sizeof(a), 1, 3000000000ULL, 256));
    put_fd(u.root, 102, 4, "/dev/null", client(b, sizeof(b), 2, 600000000ULL, 1024));
    end_interval(&u, &g, &r);
    ck_assert_double_eq_tol(metric(&r, PT_M_PROC_GPU_BUSY_SECONDS)->f, 2.2 + 0.11, 1e-9);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_MEMORY_MAX)->i, (int64_t)(2 * MIB + 512 * KIB));

    /* 102 closes its client: 101 and 100 still use one */
    snprintf(path, sizeof(path), "%s/102/fd/4", u.root);
    ck_assert_int_eq(unlink(path), 0);
    end_interval(&u, &g, &r);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_PROCESSES)->i, 2);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_MEMORY_MAX)->i, (int64_t)(512 * KIB));
    ck_assert_double_eq_tol(metric(&r, PT_M_PROC_GPU_BUSY_SECONDS)->f, 0, 1e-9);
    unit_tree_close(&u);
}
END_TEST

START_TEST(drm_cycles_engine)
{
    struct unit_tree u;
    unit_tree_open(&u);
    put_fd(u.root, 100, 3, "/dev/null",
           "drm-driver:\txe\ndrm-client-id:\t8\ndrm-cycles-rcs:\t1000\ndrm-total-cycles-rcs:\t10000\n");
    pt_target_discover(&u.target, pt_now());
    struct pt_gpu g = {.drm_on = true, .drm_major = 1};
    struct pt_units units = {PT_MEM_BYTES, PT_MEM_BYTES};
    struct pt_report r;
    end_interval(&u, &g, &r);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_MEMORY_MAX)->i, 0); /* a client without regions: 0 bytes */
    put_fd(u.root, 100, 3, "/dev/null",
           "drm-driver:\txe\ndrm-client-id:\t8\ndrm-cycles-rcs:\t6000\ndrm-total-cycles-rcs:\t20000\n");
    double before = pt_now();
    usleep(200000);
    pt_target_gpu_end_reads(&u.target, &g);
    double wall = pt_now() - before;
    pt_target_end_interval(&u.target, 1.0, &units, &r);
    /* busy half of the cycles since: half the wall time between the reads */
    double busy = metric(&r, PT_M_PROC_GPU_BUSY_SECONDS)->f;
    ck_assert_msg(busy > 0.5 * 0.2 - 0.01 && busy < 0.5 * wall + 0.05, "busy %f", busy);
    unit_tree_close(&u);
}
END_TEST

/* The position of fd/name in a walk of the directory, or -1. */
static long walk_position(const char *dir, const char *name)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    long at = -1, i = 0;
    for (struct dirent *e; at < 0 && (e = readdir(d));)
        if (e->d_name[0] != '.')
            at = strcmp(e->d_name, name) == 0 ? i : (i++, -1);
    closedir(d);
    return at;
}

/* The last fd/ entry a walk gives (digits only: every entry is). */
static void walk_last(const char *dir, char *name, size_t len)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            snprintf(name, len, "%s", e->d_name);
    closedir(d);
}

START_TEST(drm_descriptor_past_65536)
{
    struct unit_tree u;
    unit_tree_open(&u);
    /* 70,000 descriptors of a regular file (not a device: no fdinfo read),
     * then the one the walk gives last made the DRM one */
    char fds[4096], stat_path[4096], name[16], last[256] = "";
    snprintf(fds, sizeof(fds), "%s/100/fd", u.root);
    snprintf(stat_path, sizeof(stat_path), "%s/100/stat", u.root);
    ck_assert_int_eq(mkdir(fds, 0755), 0);
    int dir = open(fds, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(dir, 0);
    for (int fd = 0; fd < 70000; fd++) {
        snprintf(name, sizeof(name), "%d", fd);
        ck_assert_int_eq(symlinkat(stat_path, dir, name), 0);
    }
    close(dir);
    walk_last(fds, last, sizeof(last));
    char text[512];
    put_fd(u.root, 100, atoi(last), "/dev/null", client(text, sizeof(text), 77, 0, 2048));
    ck_assert_int_ge(walk_position(fds, last), 69999); /* past 65,536: what used to be looked at */
    pt_target_discover(&u.target, pt_now());
    struct pt_gpu g = {.drm_on = true, .drm_major = 1};
    struct pt_report r;
    end_interval(&u, &g, &r);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_PROCESSES)->i, 1);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_MEMORY_MAX)->i, (int64_t)(4 * MIB));
    unit_tree_close(&u);
}
END_TEST

static int bound_said;
static void count_bound(enum pt_log_level level, const char *line, void *arg)
{
    (void)arg;
    if (!strstr(line, "DRM descriptors"))
        return;
    ck_assert_int_eq(level, PT_LOG_WARNING);
    bound_said++;
}

/* fd/ of pid moved aside (hidden) or back: the tree past the bound or not. */
static void hide_fds(const char *root, pid_t pid, bool hide)
{
    char a[4096], b[4096];
    snprintf(a, sizeof(a), "%s/%d/fd", root, (int)pid);
    snprintf(b, sizeof(b), "%s/%d/fd.hidden", root, (int)pid);
    ck_assert_int_eq(hide ? rename(a, b) : rename(b, a), 0);
}

static void assert_gpu_left_out(const struct pt_report *r)
{
    ck_assert(!metric(r, PT_M_PROC_GPU_MEMORY_MIN)->present);
    ck_assert(!metric(r, PT_M_PROC_GPU_MEMORY_MAX)->present);
    ck_assert(!metric(r, PT_M_PROC_GPU_BUSY_SECONDS)->present);
    ck_assert(!metric(r, PT_M_PROC_GPU_PROCESSES)->present);
}

/* Three members of 1,500 distinct DRM clients each: 4,500 fdinfo reads,
 * past the bound of one end's (4,096) with the third. */
START_TEST(drm_bound_left_out_said_once)
{
    ck_assert_int_lt(2 * 1500, PT_DRM_READS_MAX);
    ck_assert_int_gt(3 * 1500, PT_DRM_READS_MAX);
    struct unit_tree u;
    unit_tree_open(&u);
    unit_tree_put(&u, 100, 1, "101 102");
    unit_tree_put(&u, 101, 100, "");
    unit_tree_put(&u, 102, 100, "");
    char text[512];
    for (pid_t pid = 100; pid <= 102; pid++)
        for (int fd = 3; fd < 3 + 1500; fd++)
            put_fd(u.root, pid, fd, "/dev/null",
                   client(text, sizeof(text), (unsigned)(pid * 10000 + fd), 1000000000ULL, 1));
    pt_target_discover(&u.target, pt_now());
    struct pt_gpu g = {.drm_on = true, .drm_major = 1};
    struct pt_report r;
    bound_said = 0;
    pt_log_set_sink(count_bound, NULL);
    struct pt_target_gpu *gpu = &u.target.gpu;

    /* whole (102 holds none): its base */
    hide_fds(u.root, 102, true);
    end_interval(&u, &g, &r);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_PROCESSES)->i, 2);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_MEMORY_MAX)->i, (int64_t)(6000 * KIB));
    ck_assert_uint_eq(gpu->clients.n, 3000);

    /* past the bound: left out; 100's client 3 busy 1 s more, reached before the cut */
    hide_fds(u.root, 102, false);
    put_fd(u.root, 100, 3, "/dev/null", client(text, sizeof(text), 100 * 10000 + 3, 2000000000ULL, 1));
    end_interval(&u, &g, &r);
    assert_gpu_left_out(&r);
    ck_assert_int_eq(bound_said, 1);
    ck_assert_uint_le(gpu->clients.n, PT_DRM_READS_MAX); /* each kept client one read: no more than the bound */

    /* whole again: the cut interval's second in this one's busy time */
    hide_fds(u.root, 102, true);
    put_fd(u.root, 100, 3, "/dev/null", client(text, sizeof(text), 100 * 10000 + 3, 2500000000ULL, 1));
    end_interval(&u, &g, &r);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_PROCESSES)->i, 2);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_MEMORY_MIN)->i, (int64_t)(6000 * KIB));
    ck_assert_double_eq_tol(metric(&r, PT_M_PROC_GPU_BUSY_SECONDS)->f, 1.5 + 0.15, 1e-9);

    /* cut twice in a row: left out both times, said no more */
    hide_fds(u.root, 102, false);
    end_interval(&u, &g, &r);
    assert_gpu_left_out(&r);
    end_interval(&u, &g, &r);
    assert_gpu_left_out(&r);
    ck_assert_int_eq(bound_said, 1);
    ck_assert_uint_le(gpu->clients.n, 2 * PT_DRM_READS_MAX);
    /* whole: the clients the cuts forgot are counted from now, so this
     * interval's busy time is left out, its memory and processes not */
    hide_fds(u.root, 102, true);
    end_interval(&u, &g, &r);
    ck_assert(!metric(&r, PT_M_PROC_GPU_BUSY_SECONDS)->present);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_PROCESSES)->i, 2);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_MEMORY_MAX)->i, (int64_t)(6000 * KIB));
    end_interval(&u, &g, &r);
    ck_assert(metric(&r, PT_M_PROC_GPU_BUSY_SECONDS)->present);
    ck_assert_double_eq_tol(metric(&r, PT_M_PROC_GPU_BUSY_SECONDS)->f, 0, 1e-9);
    ck_assert_int_eq(bound_said, 1);
#undef END
    pt_log_set_sink(NULL, NULL);
    unit_tree_close(&u);
}
END_TEST

/* The clients' hash: ids that collide in every way but one, found again
 * after sweeps; nothing found that was not added. */
START_TEST(drm_clients_hash)
{
    static const char *pdevs[] = {"", "0000:00:02.0", "0000:03:00.0"};
    struct pt_drm_clients s = {0};
    for (uint64_t id = 0; id < 20000; id++)
        for (size_t p = 0; p < 3; p++) {
            ck_assert_ptr_null(pt_drmclients_find(&s, pdevs[p], id));
            struct pt_drm_known *k = pt_drmclients_add(&s, pdevs[p], id);
            ck_assert_uint_eq(k->client_id, id);
            ck_assert_str_eq(k->pdev, pdevs[p]);
        }
    ck_assert_uint_eq(s.n, 60000);
    ck_assert_uint_ge(s.n_slots, 2 * s.n); /* load <= 1/2 */
    /* the even ids seen by one read; the odd forgotten at once */
    for (uint64_t id = 0; id < 20000; id += 2)
        for (size_t p = 0; p < 3; p++)
            pt_drmclients_find(&s, pdevs[p], id)->seen = true;
    pt_drmclients_sweep(&s, 0);
    ck_assert_uint_eq(s.n, 30000);
    for (uint64_t id = 0; id < 20000; id++)
        for (size_t p = 0; p < 3; p++) {
            struct pt_drm_known *k = pt_drmclients_find(&s, pdevs[p], id);
            if (id % 2)
                ck_assert_ptr_null(k);
            else
                ck_assert(k && k->client_id == id && strcmp(k->pdev, pdevs[p]) == 0 && !k->seen);
        }
    /* unseen kept for one read with max_unseen 1, gone at the second */
    pt_drmclients_sweep(&s, 1);
    ck_assert_uint_eq(s.n, 30000);
    pt_drmclients_sweep(&s, 1);
    ck_assert_uint_eq(s.n, 0);
    ck_assert_ptr_null(pt_drmclients_find(&s, "", 0));
    pt_drmclients_free(&s);
}
END_TEST

START_TEST(no_gpu_absent)
{
    struct unit_tree u;
    unit_tree_open(&u);
    pt_target_discover(&u.target, pt_now());
    struct pt_gpu g = {0};
    struct pt_report r;
    pt_targetgpu_sample(&u.target, &u.target.gpu, &g);
    end_interval(&u, &g, &r);
    ck_assert(metric(&r, PT_M_PROC_PROCESSES)->present);
    for (int id = PT_M_PROC_GPU_MEMORY_MIN; id <= PT_M_PROC_GPU_PROCESSES; id++)
        ck_assert_msg(!r.v[id].present, "%s present without a GPU", pt_catalog[id].name);
    unit_tree_close(&u);
}
END_TEST

/* ---- NVML, through the stand-in ---------------------------------------- */

static void *standin(void)
{
    void *h = dlopen(NVML_STANDIN, RTLD_NOW | RTLD_NOLOAD);
    ck_assert_msg(h, "the stand-in is not loaded");
    return h;
}

static void standin_call(const char *name, int a, int b)
{
    void *h = standin();
    void *sym = dlsym(h, name);
    ck_assert(sym);
    if (strcmp(name, "standin_fail") == 0) {
        void (*fn)(int, int);
        memcpy(&fn, &sym, sizeof(fn));
        fn(a, b);
    } else {
        void (*fn)(int);
        memcpy(&fn, &sym, sizeof(fn));
        fn(a);
    }
    dlclose(h);
}

static void probe(struct pt_gpu *g, char **root)
{
    *root = fx_root_new();
    pt_gpu_probe(g, *root, *root, *root, NVML_STANDIN);
    ck_assert(g->nvml_on);
    ck_assert(!g->drm_on); /* the fixture has no render node */
    ck_assert_uint_eq(g->nvml.n_devices, 2);
}

START_TEST(nvml_two_devices)
{
    char *root;
    struct pt_gpu g;
    probe(&g, &root);
    pt_gpu_refresh(&g, true);
    ck_assert(g.memory_known && g.busy_known);
    const struct pt_gpu_proc *p = pt_gpu_find(&g, 100);
    ck_assert(p);
    /* device 0's 1 GiB; device 1's larger of compute 512 MiB and graphics 600 MiB */
    ck_assert_uint_eq(p->bytes, 1024 * MIB + 600 * MIB);
    /* 10 samples 0.1 s apart: 50 % on device 0, 20 % on device 1 */
    ck_assert_double_eq_tol(p->busy, 0.5 + 0.2, 1e-9);
    p = pt_gpu_find(&g, 200);
    ck_assert(p);
    ck_assert_uint_eq(p->bytes, 256 * MIB);
    ck_assert_double_eq_tol(p->busy, 0.1, 1e-9);
    ck_assert(!pt_gpu_find(&g, 300));
    /* the next call: only the samples since the last seen, none twice */
    pt_gpu_refresh(&g, true);
    ck_assert_double_eq_tol(pt_gpu_find(&g, 100)->busy, 0.7, 1e-9);
    /* a refresh of memory alone leaves the samples */
    pt_gpu_refresh(&g, false);
    ck_assert_uint_eq(pt_gpu_find(&g, 100)->bytes, 1624 * MIB);
    pt_gpu_free(&g);
    fx_root_free(root);
}
END_TEST

START_TEST(nvml_process_exits_between_calls)
{
    char *root;
    struct pt_gpu g;
    probe(&g, &root);
    pt_gpu_refresh(&g, true);
    ck_assert(pt_gpu_find(&g, 200));
    standin_call("standin_step", 1, 0);
    pt_gpu_refresh(&g, true);
    ck_assert(!pt_gpu_find(&g, 200));
    ck_assert_uint_eq(pt_gpu_find(&g, 100)->bytes, 1624 * MIB);
    pt_gpu_free(&g);
    fx_root_free(root);
}
END_TEST

START_TEST(nvml_error_per_call)
{
    char *root;
    struct pt_gpu g;
    probe(&g, &root);
    standin_call("standin_fail", 0, 999); /* compute list: NVML_ERROR_UNKNOWN */
    pt_gpu_refresh(&g, true);
    ck_assert(!g.memory_known);
    ck_assert(g.busy_known);
    standin_call("standin_fail", 0, 0);
    standin_call("standin_fail", 1, 15); /* graphics list: NVML_ERROR_GPU_IS_LOST */
    pt_gpu_refresh(&g, false);
    ck_assert(!g.memory_known);
    standin_call("standin_fail", 1, 0);
    standin_call("standin_fail", 2, 3); /* utilisation: NVML_ERROR_NOT_SUPPORTED */
    pt_gpu_refresh(&g, true);
    ck_assert(g.memory_known);
    ck_assert(!g.busy_known);
    standin_call("standin_fail", 2, 0);
    standin_call("standin_samples", 0, 0); /* no sample since: NVML_ERROR_NOT_FOUND, busy 0 */
    pt_gpu_refresh(&g, true);
    ck_assert(g.busy_known);
    ck_assert_double_eq_tol(pt_gpu_find(&g, 100)->busy, 0, 1e-12);
    pt_gpu_free(&g);
    /* nvmlInit_v2 fails: no NVML, said; nothing else */
    void *h = dlopen(NVML_STANDIN, RTLD_NOW);
    void (*fail_with)(int, int);
    void *sym = dlsym(h, "standin_fail");
    memcpy(&fail_with, &sym, sizeof(fail_with));
    fail_with(3, 9); /* NVML_ERROR_DRIVER_NOT_LOADED */
    pt_gpu_probe(&g, root, root, root, NVML_STANDIN);
    ck_assert(!g.nvml_on);
    ck_assert(!pt_gpu_on(&g));
    pt_gpu_free(&g);
    dlclose(h);
    fx_root_free(root);
}
END_TEST

START_TEST(nvml_tree_sums_members)
{
    struct unit_tree u;
    unit_tree_open(&u);
    unit_tree_put(&u, 100, 1, "200");
    unit_tree_put(&u, 200, 100, "");
    pt_target_discover(&u.target, pt_now());
    struct pt_gpu g;
    pt_gpu_probe(&g, u.root, u.root, u.root, NVML_STANDIN);
    struct pt_report r;
    pt_gpu_refresh(&g, false);
    pt_targetgpu_sample(&u.target, &u.target.gpu, &g);
    standin_call("standin_step", 1, 0); /* 200 leaves the GPU */
    pt_gpu_refresh(&g, true);
    end_interval(&u, &g, &r);
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_MEMORY_MAX)->i, (int64_t)(1880 * MIB));
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_MEMORY_MIN)->i, (int64_t)(1624 * MIB));
    ck_assert_int_eq(metric(&r, PT_M_PROC_GPU_PROCESSES)->i, 1);
    /* 200's samples before it left, since the open: 0.1 s; 100's 0.7 s */
    ck_assert_double_eq_tol(metric(&r, PT_M_PROC_GPU_BUSY_SECONDS)->f, 0.7, 1e-9);
    pt_gpu_free(&g);
    unit_tree_close(&u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gpu");
    TCase *tc = unit_tcase(s, "drm");
    tcase_add_test(tc, drm_amdgpu);
    tcase_add_test(tc, drm_i915);
    tcase_add_test(tc, drm_xe);
    tcase_add_test(tc, drm_msm_panfrost_v3d);
    tcase_add_test(tc, drm_not_a_client);
    tcase_add_test(tc, drm_hostile_values);
    tcase_add_test(tc, drm_bounded);
    tcase_add_test(tc, drm_devices_major);
    tcase_add_test(tc, drm_tree_counts_each_client_once);
    tcase_add_test(tc, drm_cycles_engine);
    tcase_add_test(tc, drm_descriptor_past_65536);
    tcase_add_test(tc, drm_bound_left_out_said_once);
    tcase_add_test(tc, drm_clients_hash);
    tcase_add_test(tc, no_gpu_absent);
    tc = unit_tcase(s, "nvml");
    tcase_add_test(tc, nvml_two_devices);
    tcase_add_test(tc, nvml_process_exits_between_calls);
    tcase_add_test(tc, nvml_error_per_call);
    tcase_add_test(tc, nvml_tree_sums_members);
    return unit_run(s);
}
