#include "gpu/drmfdinfo.h"

#include <string.h>

static bool name_char(char ch, bool pdev)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
           ch == '-' || (pdev && ch == ':');
}

/* s[0..n) as a name: 1 to PT_DRM_NAME_MAX - 1 name characters. */
static bool copy_name(const char *s, size_t n, bool pdev, char out[PT_DRM_NAME_MAX])
{
    if (n == 0 || n >= PT_DRM_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i], pdev))
            return false;
    memset(out, 0, PT_DRM_NAME_MAX); /* the bytes after it too: a name is copied whole */
    memcpy(out, s, n);
    return true;
}

static bool starts(const char *s, size_t n, const char *prefix, size_t *plen)
{
    size_t p = strlen(prefix);
    if (n < p || memcmp(s, prefix, p) != 0)
        return false;
    *plen = p;
    return true;
}

/* v[0..n): digits within uint64, then nothing or one blank and a unit of
 * units (NULL-terminated; each with its multiplier in mult); a number
 * without a unit takes mult[0] only when bare_ok. */
static bool parse_value(const char *v, size_t n, const char *const *units, const uint64_t *mult, bool bare_ok,
                        uint64_t *out)
{
    size_t i = 0;
    uint64_t value = 0;
    for (; i < n && v[i] >= '0' && v[i] <= '9'; i++) {
        unsigned digit = (unsigned)(v[i] - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return false;
        value = value * 10 + digit;
    }
    if (i == 0)
        return false;
    uint64_t m = 1;
    if (i == n) {
        if (!bare_ok)
            return false;
    } else {
        if (v[i] != ' ' || !units)
            return false;
        const char *unit = v + i + 1;
        size_t ulen = n - i - 1;
        bool found = false;
        for (size_t k = 0; units[k]; k++)
            if (strlen(units[k]) == ulen && memcmp(units[k], unit, ulen) == 0) {
                m = mult[k];
                found = true;
                break;
            }
        if (!found)
            return false;
    }
    if (m > 1 && value > PT_DRM_VALUE_MAX / m)
        value = PT_DRM_VALUE_MAX;
    else
        value *= m;
    *out = value < PT_DRM_VALUE_MAX ? value : PT_DRM_VALUE_MAX;
    return true;
}

static const char *const time_units[] = {"ns", NULL};
static const uint64_t time_mult[] = {1};
static const char *const size_units[] = {"B", "KiB", "MiB", "GiB", NULL};
static const uint64_t size_mult[] = {1, 1024, 1024 * 1024, 1024 * 1024 * 1024};

static struct pt_drm_engine *engine_slot(struct pt_drm_client *c, const char *name, size_t n)
{
    char key[PT_DRM_NAME_MAX];
    if (!copy_name(name, n, false, key))
        return NULL;
    for (size_t i = 0; i < c->n_engines; i++)
        if (strcmp(c->engine[i].name, key) == 0)
            return &c->engine[i];
    if (c->n_engines == PT_DRM_ENGINES_MAX)
        return NULL;
    struct pt_drm_engine *e = &c->engine[c->n_engines++];
    memset(e, 0, sizeof(*e));
    memcpy(e->name, key, sizeof(key));
    return e;
}

static struct pt_drm_region *region_slot(struct pt_drm_client *c, const char *name, size_t n)
{
    char key[PT_DRM_NAME_MAX];
    if (!copy_name(name, n, false, key))
        return NULL;
    for (size_t i = 0; i < c->n_regions; i++)
        if (strcmp(c->region[i].name, key) == 0)
            return &c->region[i];
    if (c->n_regions == PT_DRM_REGIONS_MAX)
        return NULL;
    struct pt_drm_region *r = &c->region[c->n_regions++];
    memset(r, 0, sizeof(*r));
    memcpy(r->name, key, sizeof(key));
    return r;
}

enum { SEEN_DRIVER = 1, SEEN_ID = 2, SEEN_PDEV = 4 };

/* One line: key[0..klen) (after "drm-"), value[0..vlen). */
static void take_line(struct pt_drm_client *c, unsigned *seen, const char *key, size_t klen, const char *v, size_t vlen)
{
    size_t p;
    uint64_t value;
    if (klen == 6 && memcmp(key, "driver", 6) == 0) {
        if (!(*seen & SEEN_DRIVER) && copy_name(v, vlen, false, c->driver))
            *seen |= SEEN_DRIVER;
    } else if (klen == 4 && memcmp(key, "pdev", 4) == 0) {
        if (!(*seen & SEEN_PDEV) && copy_name(v, vlen, true, c->pdev))
            *seen |= SEEN_PDEV;
    } else if (klen == 9 && memcmp(key, "client-id", 9) == 0) {
        if (!(*seen & SEEN_ID) && parse_value(v, vlen, NULL, NULL, true, &value)) {
            c->client_id = value;
            *seen |= SEEN_ID;
        }
    } else if (starts(key, klen, "engine-capacity-", &p)) {
        return; /* engines of the class: their busy time is already summed in drm-engine- */
    } else if (starts(key, klen, "engine-", &p)) {
        struct pt_drm_engine *e;
        if (parse_value(v, vlen, time_units, time_mult, false, &value) && (e = engine_slot(c, key + p, klen - p)) &&
            !(e->has & PT_DRM_HAS_NS)) {
            e->ns = value;
            e->has |= PT_DRM_HAS_NS;
        }
    } else if (starts(key, klen, "total-cycles-", &p)) {
        struct pt_drm_engine *e;
        if (parse_value(v, vlen, NULL, NULL, true, &value) && (e = engine_slot(c, key + p, klen - p)) &&
            !(e->has & PT_DRM_HAS_TOTAL_CYCLES)) {
            e->total_cycles = value;
            e->has |= PT_DRM_HAS_TOTAL_CYCLES;
        }
    } else if (starts(key, klen, "cycles-", &p)) {
        struct pt_drm_engine *e;
        if (parse_value(v, vlen, NULL, NULL, true, &value) && (e = engine_slot(c, key + p, klen - p)) &&
            !(e->has & PT_DRM_HAS_CYCLES)) {
            e->cycles = value;
            e->has |= PT_DRM_HAS_CYCLES;
        }
    } else {
        static const struct {
            const char *prefix;
            unsigned bit;
        } sizes[] = {{"total-", PT_DRM_HAS_TOTAL}, {"resident-", PT_DRM_HAS_RESIDENT}, {"memory-", PT_DRM_HAS_MEMORY}};
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            if (!starts(key, klen, sizes[k].prefix, &p))
                continue;
            struct pt_drm_region *r;
            if (!parse_value(v, vlen, size_units, size_mult, true, &value) ||
                !(r = region_slot(c, key + p, klen - p)) || (r->has & sizes[k].bit))
                return;
            r->has |= sizes[k].bit;
            if (sizes[k].bit == PT_DRM_HAS_TOTAL)
                r->total = value;
            else if (sizes[k].bit == PT_DRM_HAS_RESIDENT)
                r->resident = value;
            else
                r->memory = value;
            return;
        }
    }
}

int pt_drmfdinfo_parse(const char *buf, size_t len, struct pt_drm_client *out)
{
    memset(out, 0, sizeof(*out));
    unsigned seen = 0;
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break; /* a line cut short: its value may have lost digits */
        const char *line = p;
        size_t n = (size_t)(nl - p);
        p = nl + 1;
        if (n < 4 || memcmp(line, "drm-", 4) != 0)
            continue;
        const char *colon = memchr(line, ':', n);
        if (!colon)
            continue;
        const char *key = line + 4;
        size_t klen = (size_t)(colon - key);
        const char *v = colon + 1, *vend = line + n;
        if (v >= vend || (*v != '\t' && *v != ' '))
            continue;
        while (v < vend && (*v == '\t' || *v == ' '))
            v++;
        take_line(out, &seen, key, klen, v, (size_t)(vend - v));
    }
    return (seen & (SEEN_DRIVER | SEEN_ID)) == (SEEN_DRIVER | SEEN_ID) ? 0 : -1;
}

bool pt_drmfdinfo_client_memory(const struct pt_drm_client *c, uint64_t *bytes)
{
    uint64_t sum = 0;
    bool any = false;
    for (size_t i = 0; i < c->n_regions; i++) {
        const struct pt_drm_region *r = &c->region[i];
        uint64_t v;
        if (r->has & PT_DRM_HAS_RESIDENT)
            v = r->resident;
        else if (r->has & PT_DRM_HAS_MEMORY)
            v = r->memory;
        else if (r->has & PT_DRM_HAS_TOTAL)
            v = r->total;
        else
            continue;
        sum += v; /* each at most 2^60, at most 8 of them */
        any = true;
    }
    *bytes = sum;
    return any;
}
