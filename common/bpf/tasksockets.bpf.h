/* tasksockets.bpf.h: the part of the task iterator's program
 * (taskiter.bpf.c, which includes it once) that lists a member's TCP
 * sockets at the interval end's pass, for tasksockets.c to read: the
 * records in the sockrecs array that its group record points to
 * (taskrec.h's struct pt_taskrec_sock). */
#ifndef PROCTREE_TASKSOCKETS_BPF_H
#define PROCTREE_TASKSOCKETS_BPF_H

/* include/uapi/linux/stat.h and socket.h: not in the BTF's types. */
#define PT_S_IFMT 0170000
#define PT_S_IFSOCK 0140000
#define PT_AF_INET 2
#define PT_AF_INET6 10

/* The pass's socket records, every group's one after another from
 * socks_used on (the reader zeroes it before each FULL pass and reads the
 * records where it maps the array): no visit writes them to the seq_file,
 * whose 32 KiB an object may not outgrow, so a group's count has no bound
 * but the array's. An array's lookup is a few instructions the verifier
 * inlines. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(map_flags, BPF_F_MMAPABLE);
    __uint(max_entries, PT_TASKREC_SOCKS_MAX);
    __type(key, __u32);
    __type(value, struct pt_taskrec_sock);
} sockrecs SEC(".maps");

__u32 socks_used;

/* The file at address file (a number: the fd table's slots are read with
 * bpf_probe_read_kernel) into out when it is a TCP socket of the inet
 * families: 1 then, 2 for another socket, else 0. A socket file is one whose inode is a
 * socket's and whose private data is a struct socket that points back to
 * it (sock_from_file compares f_op with socket_file_ops, a symbol this
 * kernel's kallsyms do not hold). A global function: the verifier checks
 * it once, not once a path of the loops that call it. */
__noinline int pt_read_socket(struct pt_taskrec_sock *out, __u64 file)
{
    if (!out || !file)
        return 0;
    struct file *f = bpf_rdonly_cast((void *)file, bpf_core_type_id_kernel(struct file));
    struct inode *inode = f->f_inode;
    if (!inode || (inode->i_mode & PT_S_IFMT) != PT_S_IFSOCK)
        return 0;
    struct socket *sock = bpf_rdonly_cast(f->private_data, bpf_core_type_id_kernel(struct socket));
    if (!sock || (__u64)sock->file != file)
        return 0;
    struct sock *sk = sock->sk;
    if (!sk)
        return 2;
    __u16 family = sk->__sk_common.skc_family;
    if (sk->sk_protocol != IPPROTO_TCP || sk->sk_type != SOCK_STREAM || (family != PT_AF_INET && family != PT_AF_INET6))
        return 2;
    /* a TCP sock of the inet families is a tcp_sock (tcp_prot's obj_size) */
    struct tcp_sock *tcp = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct tcp_sock));
    out->inode = inode->i_ino;
    out->cookie = (__u64)sk->__sk_common.skc_cookie.counter;
    out->bytes_acked = tcp->bytes_acked;
    out->bytes_received = tcp->bytes_received;
    out->family = family;
    out->state = sk->__sk_common.skc_state;
    return 1;
}

/* One word of open_fds: its descriptors' files, those that are TCP
 * sockets written to sockrecs from socks_used on. A global function, as
 * above. */
struct pt_sockwalk {
    __u64 word;  /* the word's bits */
    __u64 table; /* fdt->fd, the files' addresses */
    __u32 first; /* the word's first descriptor */
    __u32 tgid;
    __u32 n;   /* the records written */
    __u32 cut; /* some may be missing */
    __u32 any; /* sockets of any kind */
};

__noinline int pt_word_sockets(struct pt_sockwalk *w)
{
    if (!w)
        return 0;
    struct bpf_iter_num bits;
    int *b;
    bpf_iter_num_new(&bits, 0, 64);
    while ((b = bpf_iter_num_next(&bits))) {
        __u32 bit = (__u32)*b & 63;
        if (!((w->word >> bit) & 1))
            continue;
        __u32 fd = w->first + bit;
        __u64 file = 0;
        if (bpf_probe_read_kernel(&file, sizeof(file), (void *)(w->table + (__u64)fd * sizeof(file))) != 0) {
            w->cut = 1;
            continue;
        }
        __u32 at = socks_used;
        struct pt_taskrec_sock *s = bpf_map_lookup_elem(&sockrecs, &at);
        struct pt_taskrec_sock spare;
        __builtin_memset(&spare, 0, sizeof(spare));
        int kind = pt_read_socket(s ? s : &spare, file);
        w->any += kind != 0;
        if (kind != 1)
            continue; /* not TCP, or a slot reserved and not yet filled */
        if (!s) {     /* the array is full: this one and the rest missing */
            w->cut = 1;
            continue;
        }
        s->kind = PT_TR_SOCKET;
        s->tgid = w->tgid;
        s->fd = fd;
        s->zero = 0;
        socks_used = at + 1;
        w->n++;
    }
    bpf_iter_num_destroy(&bits);
    return 0;
}

/* The leader's TCP sockets into sockrecs, g's first and count: its open
 * descriptors found as count_fds finds them, each one's file read from
 * the table (the table the leader's fd/ lists: its threads share it
 * unless one unshared its own). */
static __always_inline void read_sockets(struct pt_taskrec_group *g, struct task_struct *leader)
{
    g->sockets_first = socks_used;
    g->sockets = 0;
    g->sockets_cut = 0;
    g->sockets_any = 0;
    struct files_struct *files = leader->files;
    if (!files)
        return;
    struct fdtable *fdt = files->fdt;
    __u32 words = fdt->max_fds / 64;
    unsigned long *bits = fdt->open_fds;
    struct pt_sockwalk w = {.table = (__u64)fdt->fd, .tgid = (__u32)leader->tgid};
    if (!bits || !w.table || words > PT_TASKREC_FD_WORDS) {
        g->sockets_cut = 1;
        return;
    }
    struct bpf_iter_num each;
    int *i;
    bpf_iter_num_new(&each, 0, (int)words);
    while ((i = bpf_iter_num_next(&each))) {
        w.first = (__u32)*i * 64;
        w.word = 0;
        if (bpf_probe_read_kernel(&w.word, sizeof(w.word), (void *)((__u64)bits + (__u64)(__u32)*i * 8)) != 0) {
            w.cut = 1;
            break;
        }
        if (w.word)
            pt_word_sockets(&w);
    }
    bpf_iter_num_destroy(&each);
    g->sockets = w.n;
    g->sockets_cut = w.cut;
    g->sockets_any = w.any;
}

#endif
