/* fuzz_netdev: the /proc/PID/net/dev parser of common/net/netdev.h, and
 * the ledger of common/net/netnsbytes.h fed what it parses, on arbitrary
 * bytes.
 *
 * The input is the file's text, copied into a malloc'd buffer of exactly
 * its length, never NUL-terminated, so ASan reports any read past len.
 * Beyond "no crash, no sanitizer report", checked for every input:
 * - the parser returns -1 or a number of interfaces up to its max, and is
 *   deterministic: two calls with the output pre-filled with different
 *   byte patterns agree;
 * - on success: every name is NUL-terminated, 1..15 bytes, of no colon,
 *   space, tab, newline or '/', none twice; every counter at most
 *   PT_MAX_COUNT; cut says exactly whether the text ends without its
 *   newline, and the text cut back to its last newline parses the same
 *   with cut false;
 * - a text that ends with its newline, followed by a line cut short,
 *   parses as the text alone, cut;
 * - the ledger handed the same reading twice gives a known growth of 0,
 *   no interface unknown; handed it after a reading of every counter 0,
 *   at most the reading's sums (but lo's). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "net/netdev.h"
#include "net/netnsbytes.h"
#include "procfs/procmax.h"

#define MAX 64

static bool name_ok(const char *s)
{
    size_t n = strnlen(s, PT_NETDEV_NAME_MAX);
    if (n == 0 || n == PT_NETDEV_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ':' || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '/')
            return false;
    return true;
}

/* What the ledger's sums are: each growth added, saturating at INT64_MAX. */
static uint64_t sat_add(uint64_t sum, uint64_t v)
{
    return sum > INT64_MAX - v ? INT64_MAX : sum + v;
}

static void check_ledger(const struct pt_netdev_if *ifs, int n)
{
    static struct pt_netdev_if zero[MAX];
    uint64_t rx = 0, tx = 0;
    for (int i = 0; i < n; i++) {
        zero[i] = ifs[i];
        zero[i].rx_bytes = zero[i].rx_packets = zero[i].tx_bytes = zero[i].tx_packets = 0;
        if (!pt_netnsbytes_is_loopback(ifs[i].name)) {
            rx = sat_add(rx, ifs[i].rx_bytes);
            tx = sat_add(tx, ifs[i].tx_bytes);
        }
    }
    struct pt_netnsbytes l = {0};
    pt_netnsbytes_take(&l, 7, ifs, (size_t)n);
    CHECK(!l.known);
    pt_netnsbytes_take(&l, 7, ifs, (size_t)n);
    CHECK(l.known && l.unknown == 0);
    CHECK(l.rx_bytes == 0 && l.rx_packets == 0 && l.tx_bytes == 0 && l.tx_packets == 0);
    pt_netnsbytes_forget(&l);
    pt_netnsbytes_take(&l, 7, zero, (size_t)n);
    pt_netnsbytes_take(&l, 7, ifs, (size_t)n);
    CHECK(l.known && l.unknown == 0);
    CHECK(l.rx_bytes == rx && l.tx_bytes == tx);
    pt_netnsbytes_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    static struct pt_netdev_if a[MAX], b[MAX], c[MAX];
    memset(a, 0x00, sizeof(a));
    memset(b, 0xA5, sizeof(b));
    bool cut_a = false, cut_b = true;
    int ra = pt_netdev_parse(buf, size, a, MAX, &cut_a);
    int rb = pt_netdev_parse(buf, size, b, MAX, &cut_b);
    CHECK(ra >= -1 && ra <= MAX);
    CHECK(ra == rb);
    if (ra >= 0) {
        CHECK(cut_a == cut_b);
        CHECK(memcmp(a, b, (size_t)ra * sizeof(*a)) == 0);
        CHECK(cut_a == (size > 0 && buf[size - 1] != '\n'));
        for (int i = 0; i < ra; i++) {
            CHECK(name_ok(a[i].name));
            CHECK(a[i].rx_bytes <= PT_MAX_COUNT && a[i].rx_packets <= PT_MAX_COUNT);
            CHECK(a[i].tx_bytes <= PT_MAX_COUNT && a[i].tx_packets <= PT_MAX_COUNT);
            for (int k = 0; k < i; k++)
                CHECK(strcmp(a[k].name, a[i].name) != 0);
        }
        if (cut_a) {
            size_t whole = size;
            while (whole > 0 && buf[whole - 1] != '\n')
                whole--;
            bool cut_c = true;
            CHECK(pt_netdev_parse(buf, whole, c, MAX, &cut_c) == ra && !cut_c);
            CHECK(memcmp(a, c, (size_t)ra * sizeof(*a)) == 0);
        }
        check_ledger(a, ra);
    }
    if (size > 0 && buf[size - 1] == '\n') {
        static const char tail[] = "  eth9: 1 2 3";
        char *longer = malloc(size + sizeof(tail) - 1);
        memcpy(longer, buf, size);
        memcpy(longer + size, tail, sizeof(tail) - 1);
        bool cut_c = false;
        int rc = pt_netdev_parse(longer, size + sizeof(tail) - 1, c, MAX, &cut_c);
        CHECK(rc == ra);
        CHECK(ra < 0 || (cut_c && memcmp(a, c, (size_t)ra * sizeof(*a)) == 0));
        free(longer);
    }
    free(buf);
    return 0;
}
