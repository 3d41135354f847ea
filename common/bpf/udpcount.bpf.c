/* udpcount.bpf: a tree's UDP payload, counted where the kernel's socket
 * layer returns it. Two BTF tracepoint programs, on sock_send_length and
 * sock_recv_length (Linux >= 6.3: net/socket.c fires them as every
 * sock_sendmsg and sock_recvmsg returns, with the socket, what the
 * protocol's sendmsg or recvmsg returned and the call's flags), add what
 * a UDP socket's call returned (> 0: the bytes of payload sent, or
 * received) to the entry of the member it belongs to (udprec.h): the
 * calling thread's process where it is a member, else its nearest member
 * ancestor, PT_UDPREC_ANCESTORS real parents up at most (a child that
 * sends before proctree found it); else to nothing, and no entry is made:
 * the host's other traffic leaves no trace here.
 *
 * Each message is counted once, at the socket layer, whatever the
 * protocol code does below it (udpv6_sendmsg hands a message for an IPv4,
 * v4-mapped, destination to udp_sendmsg: one sock_sendmsg still).
 * send, sendto, sendmsg, write, sendmmsg (once a message), splice and
 * io_uring's sends all go through sock_sendmsg, and the receives through
 * sock_recvmsg; io_uring's workers are threads of the process. A peek
 * (MSG_PEEK: the datagram stays queued, its read counts) and a read of
 * the error queue (MSG_ERRQUEUE: a sent packet's copy) are not counted.
 * UDP is IPPROTO_UDP on AF_INET and AF_INET6 sockets (not UDP-Lite).
 *
 * The members are the task iterator's map (taskiter.bpf.c), shared: the
 * reader hands its descriptor over before the load (bpf_map__reuse_fd).
 * Built with clang against the kernel's BTF (CO-RE). It only reads the
 * kernel; it writes its own map and counter. */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/udprec.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* include/linux/socket.h and in.h: not in the BTF's types. */
#define PT_AF_INET 2
#define PT_AF_INET6 10
#define PT_IPPROTO_UDP 17
#define PT_MSG_PEEK 0x2
#define PT_MSG_ERRQUEUE 0x2000

/* Set by the reader before the load: nanoseconds a clock tick (1e9 /
 * sysconf(_SC_CLK_TCK)), as /proc/PID/stat's starttime divides them. */
const volatile __u64 ns_per_tick = 10000000;

/* Entries the map refused (full): their bytes are lost. */
__u64 lost;

/* The task iterator's members (taskiter.bpf.c's, the same map). */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, PT_TASKREC_PID_WORDS);
    __type(key, __u32);
    __type(value, __u64);
} members SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, PT_UDPREC_MAX);
    __uint(map_flags, BPF_F_NO_PREALLOC);
    __type(key, struct pt_udpkey);
    __type(value, struct pt_udpval);
} udp_bytes SEC(".maps");

static __always_inline bool is_member(__u32 tgid)
{
    __u32 word = tgid / 64;
    __u64 *bits = bpf_map_lookup_elem(&members, &word);
    return bits && (*bits >> (tgid % 64)) & 1;
}

/* The entry of the member the current thread's bytes belong to, made
 * where it has none; NULL when none does (or the map is full). Field reads
 * through the task are the verifier's guarded loads: a task being torn
 * down reads 0, and 0 is no member. */
static __always_inline struct pt_udpval *entry(void)
{
    struct task_struct *p = bpf_get_current_task_btf()->group_leader;
    for (int i = 0; i <= PT_UDPREC_ANCESTORS; i++) {
        if (!p)
            return NULL;
        __u32 tgid = p->tgid;
        if (tgid && is_member(tgid)) {
            struct pt_udpkey key = {.start = p->start_boottime / ns_per_tick, .tgid = tgid};
            struct pt_udpval *v = bpf_map_lookup_elem(&udp_bytes, &key);
            if (v)
                return v;
            struct pt_udpval zero = {0, 0};
            bpf_map_update_elem(&udp_bytes, &key, &zero, BPF_NOEXIST); /* another CPU may have made it */
            v = bpf_map_lookup_elem(&udp_bytes, &key);
            if (!v)
                __sync_fetch_and_add(&lost, 1);
            return v;
        }
        struct task_struct *parent = p->real_parent;
        if (!parent || parent == p)
            return NULL; /* the idle task is its own parent */
        p = parent->group_leader;
    }
    return NULL;
}

/* ret bytes of a UDP socket's call, sent or received, counted. */
static __always_inline void count(struct sock *sk, int ret, bool sent)
{
    if (ret <= 0 || !sk || sk->sk_protocol != PT_IPPROTO_UDP)
        return;
    __u16 family = sk->__sk_common.skc_family;
    if (family != PT_AF_INET && family != PT_AF_INET6)
        return;
    struct pt_udpval *v = entry();
    if (!v)
        return;
    if (sent)
        __sync_fetch_and_add(&v->sent, (__u64)ret);
    else
        __sync_fetch_and_add(&v->received, (__u64)ret);
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(pt_udp_sent, struct sock *sk, int ret, int flags)
{
    count(sk, ret, true);
    return 0;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(pt_udp_received, struct sock *sk, int ret, int flags)
{
    if (!(flags & (PT_MSG_PEEK | PT_MSG_ERRQUEUE)))
        count(sk, ret, false);
    return 0;
}
