/* fuzz_drmfdinfo: the DRM fdinfo parser of common/gpu/drmfdinfo.h, and the
 * "devices" scanner of common/gpu/gpu.h, on arbitrary bytes.
 *
 * The input is the file content, copied into a malloc'd buffer of exactly
 * its length, never NUL-terminated, so ASan reports any read past len.
 * Beyond "no crash, no sanitizer report", checked for every input:
 * - the parser returns 0 or -1 and is deterministic: two calls with the
 *   output pre-filled with different byte patterns agree;
 * - on success: driver, pdev and every engine and region name are
 *   NUL-terminated, 1..PT_DRM_NAME_MAX-1 bytes (pdev may be empty), of the
 *   name characters drmfdinfo.h states; at most PT_DRM_ENGINES_MAX engines
 *   and PT_DRM_REGIONS_MAX regions, no name twice; every value at most
 *   PT_DRM_VALUE_MAX and set only with its has bit; the memory sum at most
 *   PT_DRM_REGIONS_MAX times that;
 * - a last line without its newline is dropped: the input followed by
 *   "drm-engine-zz:\t5" parses as the input alone when that ends with a
 *   newline (or is empty);
 * - the devices scanner gives 0 or a major in 1..4095. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/drmfdinfo.h"
#include "fuzz_check.h"
#include "gpu/gpu.h"

static bool name_ok(const char *s, bool may_be_empty, bool pdev)
{
    size_t n = strnlen(s, PT_DRM_NAME_MAX);
    if (n == PT_DRM_NAME_MAX || (n == 0 && !may_be_empty))
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                  ch == '.' || ch == '-' || (pdev && ch == ':');
        if (!ok)
            return false;
    }
    return true;
}

static void check_client(const struct pt_drm_client *c)
{
    CHECK(name_ok(c->driver, false, false));
    CHECK(name_ok(c->pdev, true, true));
    CHECK(c->n_engines <= PT_DRM_ENGINES_MAX && c->n_regions <= PT_DRM_REGIONS_MAX);
    for (size_t i = 0; i < c->n_engines; i++) {
        const struct pt_drm_engine *e = &c->engine[i];
        CHECK(name_ok(e->name, false, false));
        CHECK(e->has != 0);
        CHECK(e->ns <= PT_DRM_VALUE_MAX && e->cycles <= PT_DRM_VALUE_MAX && e->total_cycles <= PT_DRM_VALUE_MAX);
        CHECK((e->has & PT_DRM_HAS_NS) || e->ns == 0);
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(c->engine[k].name, e->name) != 0);
    }
    for (size_t i = 0; i < c->n_regions; i++) {
        const struct pt_drm_region *r = &c->region[i];
        CHECK(name_ok(r->name, false, false));
        CHECK(r->has != 0);
        CHECK(r->total <= PT_DRM_VALUE_MAX && r->resident <= PT_DRM_VALUE_MAX && r->memory <= PT_DRM_VALUE_MAX);
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(c->region[k].name, r->name) != 0);
    }
    uint64_t bytes;
    if (pt_drmfdinfo_client_memory(c, &bytes))
        CHECK(bytes <= PT_DRM_REGIONS_MAX * PT_DRM_VALUE_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    static struct pt_drm_client a, b, c;
    memset(&a, 0x00, sizeof(a));
    memset(&b, 0xA5, sizeof(b));
    int ra = pt_drmfdinfo_parse(buf, size, &a);
    int rb = pt_drmfdinfo_parse(buf, size, &b);
    CHECK(ra == 0 || ra == -1);
    CHECK(ra == rb);
    CHECK(memcmp(&a, &b, sizeof(a)) == 0);
    if (ra == 0)
        check_client(&a);
    if (size == 0 || buf[size - 1] == '\n') {
        static const char tail[] = "drm-engine-zz:\t5";
        char *longer = malloc(size + sizeof(tail) - 1);
        memcpy(longer, buf, size);
        memcpy(longer + size, tail, sizeof(tail) - 1);
        int rc = pt_drmfdinfo_parse(longer, size + sizeof(tail) - 1, &c);
        CHECK(rc == ra);
        CHECK(memcmp(&a, &c, sizeof(a)) == 0);
        free(longer);
    }
    unsigned major = pt_gpu_drm_major_parse(buf, size);
    CHECK(major < 4096);
    free(buf);
    return 0;
}
