/* alloccount.so: counts a program's heap allocations, for bench/run's "allocations in the steady
 * state" row. LD_PRELOAD it with PTB_ALLOC_COUNT naming an existing file of 8 bytes: every
 * malloc, calloc and realloc (glibc's own internal calls included, since glibc routes them through
 * the interposable symbols) adds one to the little-endian uint64 that the file holds, mapped
 * shared, so the driver reads the count at any moment without stopping the program.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);

static uint64_t before_setup; /* allocations made before the constructor ran (the loader's) */
static uint64_t *counter = &before_setup;

__attribute__((constructor)) static void setup(void)
{
    const char *path = getenv("PTB_ALLOC_COUNT");
    int fd = path ? open(path, O_RDWR | O_CLOEXEC) : -1;
    if (fd < 0)
        return;
    void *shared = mmap(NULL, sizeof(*counter), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (shared != MAP_FAILED)
        counter = shared;
}

static void count(void)
{
    __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size)
{
    count();
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    count();
    return __libc_calloc(n, size);
}

void *realloc(void *ptr, size_t size)
{
    count();
    return __libc_realloc(ptr, size);
}
