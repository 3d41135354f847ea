/* Unit tests for the exit-record parser: datagrams built by hand as the
 * kernel sends them (a netlink header, a generic netlink header, an
 * AGGR_PID attribute nesting PID and STATS, maybe an AGGR_TGID), and
 * hostile ones (truncated, lengths that lie). Each parse runs on an exact
 * heap copy, so a read past the end is caught by the sanitizers. */
#include <check.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stdlib.h>
#include <string.h>

#include "netlink/exitrecords.h"
#include "unit.h"

#define FAMILY 27

struct msg {
    _Alignas(struct nlmsghdr) char data[4096];
    size_t len;
};

static void put(struct msg *m, const void *data, size_t len)
{
    ck_assert_uint_le(m->len + NLA_ALIGN(len), sizeof(m->data));
    memcpy(m->data + m->len, data, len);
    m->len += NLA_ALIGN(len);
}

static void attr(struct msg *m, uint16_t type, const void *payload, size_t len)
{
    struct nlattr a = {.nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type};
    put(m, &a, sizeof(a));
    if (len)
        put(m, payload, len);
}

static struct taskstats stats(uint32_t pid, uint32_t tgid, uint32_t ppid, uint32_t code)
{
    struct taskstats ts;
    memset(&ts, 0, sizeof(ts));
    ts.version = TASKSTATS_VERSION;
    ts.ac_pid = pid;
    ts.ac_tgid = tgid;
    ts.ac_ppid = ppid;
    ts.ac_exitcode = code;
    ts.nvcsw = 40;
    ts.nivcsw = 3;
    ts.hiwater_rss = 524288 + pid;
    return ts;
}

/* One record message as the kernel sends it; the stats block cut to
 * stats_len; with a TGID aggregate after it when tgid_too. */
static void record(struct msg *m, const struct taskstats *ts, size_t stats_len, bool tgid_too)
{
    size_t start = m->len;
    struct nlmsghdr nl = {.nlmsg_type = FAMILY};
    struct genlmsghdr genl = {.cmd = TASKSTATS_CMD_NEW, .version = TASKSTATS_GENL_VERSION};
    put(m, &nl, sizeof(nl));
    put(m, &genl, sizeof(genl));
    struct msg inner = {0};
    attr(&inner, TASKSTATS_TYPE_PID, &ts->ac_pid, sizeof(ts->ac_pid));
    attr(&inner, TASKSTATS_TYPE_STATS, ts, stats_len);
    attr(m, TASKSTATS_TYPE_AGGR_PID | NLA_F_NESTED, inner.data, inner.len);
    if (tgid_too) {
        struct msg tg = {0};
        attr(&tg, TASKSTATS_TYPE_TGID, &ts->ac_tgid, sizeof(ts->ac_tgid));
        attr(&tg, TASKSTATS_TYPE_STATS, ts, stats_len);
        attr(m, TASKSTATS_TYPE_AGGR_TGID, tg.data, tg.len);
    }
    ((struct nlmsghdr *)(m->data + start))->nlmsg_len = (uint32_t)(m->len - start);
}

static void parse(struct pt_exitrecords *x, const struct msg *m, size_t len)
{
    char *copy = exact_copy(m->data, len);
    pt_exitrecords_parse(x, copy, len);
    free(copy);
}

START_TEST(test_records_of_threads_and_processes)
{
    struct pt_exitrecords x = {.fd = -1, .family = FAMILY};
    struct msg m = {0};
    struct taskstats thread = stats(101, 100, 1, 0), leader = stats(100, 100, 1, 1 << 8);
    record(&m, &thread, sizeof(thread), false);
    record(&m, &leader, sizeof(leader), true);
    parse(&x, &m, m.len);
    ck_assert_uint_eq(x.n_records, 2);
    ck_assert_int_eq(x.records[0].pid, 101);
    ck_assert_int_eq(x.records[0].tgid, 100);
    ck_assert_int_eq(x.records[1].pid, 100);
    ck_assert_int_eq(x.records[1].ppid, 1);
    ck_assert_uint_eq(x.records[1].exitcode, 256);
    ck_assert_int_eq(x.records[1].nvcsw, 40);
    ck_assert_int_eq(x.records[1].nivcsw, 3);
    ck_assert_int_eq(x.records[1].rss_peak_kb, 524388);
    pt_exitrecords_close(&x);
}
END_TEST

/* The exact run time comes in microseconds; a record whose run time is 0
 * though it has samples (a kernel without delay accounting built in)
 * lacks it (-1), one that never ran a tick has none to lack. */
START_TEST(test_run_time)
{
    struct pt_exitrecords x = {.fd = -1, .family = FAMILY};
    struct msg m = {0};
    struct taskstats ran = stats(7, 7, 1, 0), unknown = stats(8, 8, 1, 0), idle = stats(9, 9, 1, 0);
    ran.cpu_run_virtual_total = 1234567890;
    ran.ac_utime = 1000000;
    unknown.ac_stime = 10000;
    record(&m, &ran, sizeof(ran), false);
    record(&m, &unknown, sizeof(unknown), false);
    record(&m, &idle, sizeof(idle), false);
    parse(&x, &m, m.len);
    ck_assert_uint_eq(x.n_records, 3);
    ck_assert_int_eq(x.records[0].run_us, 1234567);
    ck_assert_int_eq(x.records[0].utime_us, 1000000);
    ck_assert_int_eq(x.records[1].run_us, -1);
    ck_assert_int_eq(x.records[2].run_us, 0);
    pt_exitrecords_close(&x);
}
END_TEST

/* Another family's message, or a netlink control message, is not ours. */
START_TEST(test_other_family_ignored)
{
    struct pt_exitrecords x = {.fd = -1, .family = FAMILY + 1};
    struct msg m = {0};
    struct taskstats ts = stats(7, 7, 1, 0);
    record(&m, &ts, sizeof(ts), false);
    parse(&x, &m, m.len);
    ck_assert_uint_eq(x.n_records, 0);
    pt_exitrecords_close(&x);
}
END_TEST

/* A kernel before ac_tgid (a short stats block) gives nothing, and is
 * known; a longer one (a newer kernel) is read up to what we know. */
START_TEST(test_stats_sizes)
{
    struct pt_exitrecords x = {.fd = -1, .family = FAMILY};
    struct msg m = {0};
    struct taskstats ts = stats(7, 7, 1, 9);
    record(&m, &ts, offsetof(struct taskstats, ac_tgid), false);
    parse(&x, &m, m.len);
    ck_assert_uint_eq(x.n_records, 0);
    ck_assert(x.too_old);
    x.too_old = false;
    struct {
        struct taskstats ts;
        char newer[64];
    } big;
    memset(&big, 0x5a, sizeof(big));
    big.ts = ts;
    m.len = 0;
    record(&m, (const struct taskstats *)&big, sizeof(big), false);
    parse(&x, &m, m.len);
    ck_assert_uint_eq(x.n_records, 1);
    ck_assert_uint_eq(x.records[0].exitcode, 9);
    ck_assert(!x.too_old);
    pt_exitrecords_close(&x);
}
END_TEST

/* A record as Linux 5.x sends it: taskstats version 12, its block ending
 * where ac_tgid begins. It is known for what it is (the version named),
 * and none of its drain is used, even a full-sized block that says 12. */
START_TEST(test_version_12_detected)
{
    struct pt_exitrecords x = {.fd = -1, .family = FAMILY};
    struct msg m = {0};
    struct taskstats ts = stats(7, 7, 1, 0);
    ts.version = 12;
    record(&m, &ts, offsetof(struct taskstats, ac_tgid), true);
    parse(&x, &m, m.len);
    ck_assert_uint_eq(x.n_records, 0);
    ck_assert(x.too_old);
    ck_assert_uint_eq(x.old_version, 12);
    x = (struct pt_exitrecords){.fd = -1, .family = FAMILY};
    m.len = 0;
    record(&m, &ts, sizeof(ts), false);
    parse(&x, &m, m.len);
    ck_assert_uint_eq(x.n_records, 0);
    ck_assert(x.too_old);
    ck_assert_uint_eq(x.old_version, 12);
    /* too short to say its version */
    x = (struct pt_exitrecords){.fd = -1, .family = FAMILY};
    m.len = 0;
    record(&m, &ts, 1, false);
    parse(&x, &m, m.len);
    ck_assert(x.too_old);
    ck_assert_uint_eq(x.old_version, 0);
    pt_exitrecords_close(&x);
}
END_TEST

/* Every truncation of a valid datagram parses without reading past it,
 * and yields a record only when the whole message is there. */
START_TEST(test_truncated_everywhere)
{
    struct pt_exitrecords x = {.fd = -1, .family = FAMILY};
    struct msg m = {0};
    struct taskstats ts = stats(7, 7, 1, 0);
    record(&m, &ts, sizeof(ts), true);
    for (size_t len = 0; len < m.len; len++) {
        x.n_records = 0;
        parse(&x, &m, len);
        ck_assert_uint_eq(x.n_records, 0);
    }
    pt_exitrecords_close(&x);
}
END_TEST

/* Lengths that lie: an attribute longer than its message, a nested one
 * longer than its parent, a zero-length attribute, a message length past
 * the datagram, pids out of range. */
START_TEST(test_lying_lengths)
{
    struct pt_exitrecords x = {.fd = -1, .family = FAMILY};
    struct taskstats ts = stats(7, 7, 1, 0);
    size_t aggr = NLMSG_HDRLEN + GENL_HDRLEN; /* the AGGR_PID attribute's offset */
    size_t stats_attr = aggr + NLA_HDRLEN + NLA_HDRLEN + NLA_ALIGN(sizeof(uint32_t));
    const struct {
        size_t offset;
        uint16_t value;
    } lies[] = {
        {aggr, 0xffff}, {aggr, 0}, {aggr, 2}, {stats_attr, 0xffff}, {stats_attr, 3}, {stats_attr, 0},
    };
    for (int i = 0; i < COUNT(lies); i++) {
        struct msg m = {0};
        record(&m, &ts, sizeof(ts), false);
        memcpy(m.data + lies[i].offset, &lies[i].value, sizeof(uint16_t));
        x.n_records = 0;
        parse(&x, &m, m.len);
        ck_assert_uint_eq(x.n_records, 0);
    }
    struct msg m = {0};
    record(&m, &ts, sizeof(ts), false);
    ((struct nlmsghdr *)m.data)->nlmsg_len = (uint32_t)m.len + 4; /* past the datagram */
    parse(&x, &m, m.len);
    ck_assert_uint_eq(x.n_records, 0);
    struct taskstats bad = stats(0x80000000u, 7, 1, 0);
    m.len = 0;
    record(&m, &bad, sizeof(bad), false);
    parse(&x, &m, m.len);
    ck_assert_uint_eq(x.n_records, 0);
    pt_exitrecords_close(&x);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("exitrecords");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_records_of_threads_and_processes);
    tcase_add_test(tc, test_run_time);
    tcase_add_test(tc, test_other_family_ignored);
    tcase_add_test(tc, test_stats_sizes);
    tcase_add_test(tc, test_version_12_detected);
    tcase_add_test(tc, test_truncated_everywhere);
    tcase_add_test(tc, test_lying_lengths);
    suite_add_tcase(suite, tc);
    return unit_run(suite);
}
