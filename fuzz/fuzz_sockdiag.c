/* fuzz_sockdiag: the sock_diag message parser of common/net/sockdiag.h and
 * the descriptor-link parsers of common/net/sockscan.h, on arbitrary bytes.
 *
 * The input is a buffer of netlink messages as a read from the kernel
 * gives them, copied into a malloc'd buffer of exactly its length, so ASan
 * reports any read past len. Beyond "no crash, no sanitizer report",
 * checked for every input:
 * - the parser returns PT_SOCKDIAG_MORE, PT_SOCKDIAG_DONE or a negative
 *   errno, and is deterministic: a second call tells the same sockets;
 * - it tells at most one socket per inet_diag message the buffer can hold;
 * - a sequence number only passes messages over: where the whole buffer
 *   parsed (PT_SOCKDIAG_MORE), a call with one tells no more sockets;
 * - a link parser's non-zero inode comes from text that starts with its
 *   prefix and ends with ']'. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>

#include "fuzz_check.h"
#include "net/sockdiag.h"
#include "net/sockscan.h"

#define KEPT 64

struct told {
    struct pt_tcpsock s[KEPT];
    size_t n;
};

static void keep(const struct pt_tcpsock *s, void *arg)
{
    struct told *t = arg;
    if (t->n < KEPT)
        t->s[t->n] = *s;
    t->n++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    static struct told a, b, c;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    memset(&c, 0, sizeof(c));
    int ra = pt_sockdiag_parse(buf, size, 0, keep, &a);
    int rb = pt_sockdiag_parse(buf, size, 0, keep, &b);
    CHECK(ra == PT_SOCKDIAG_MORE || ra == PT_SOCKDIAG_DONE || ra < 0);
    CHECK(ra == rb && a.n == b.n);
    CHECK(memcmp(a.s, b.s, sizeof(a.s)) == 0);
    CHECK(a.n <= size / NLMSG_LENGTH(sizeof(struct inet_diag_msg)));
    /* a sequence number passes messages over, never makes one */
    uint32_t seq = size >= 4 ? (uint32_t)data[0] | (uint32_t)data[1] << 8 : 1;
    pt_sockdiag_parse(buf, size, seq ? seq : 1, keep, &c);
    CHECK(c.n <= a.n || ra != PT_SOCKDIAG_MORE);

    uint64_t sock = pt_sockscan_inode_parse(buf, size), ns = pt_sockscan_netns_inode_parse(buf, size);
    if (sock)
        CHECK(size > 9 && memcmp(buf, "socket:[", 8) == 0 && buf[size - 1] == ']');
    if (ns)
        CHECK(size > 6 && memcmp(buf, "net:[", 5) == 0 && buf[size - 1] == ']');
    free(buf);
    return 0;
}
