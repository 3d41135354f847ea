/* spawntree N TAG: build a tree of N sleeping processes (this one included) and wait.
 *
 * Node i (0 = this process) forks nodes 8i+1 .. 8i+8 that are < N, so a 1000-process tree is
 * 4 levels deep. Every node writes one byte to stdout once it is up, then points stdout at
 * /dev/null and sleeps in pause(): the caller reads N bytes to know the tree is complete.
 * Every node gets PR_SET_PDEATHSIG SIGKILL, so killing a node (or the caller dying) removes
 * its whole subtree.
 * The root keeps argv[2] = "root"; the others overwrite it in place with "node", so a
 * matcher can select the root alone (process-exporter + -children) or every member.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define FANOUT 8

int main(int argc, char **argv)
{
    if (argc != 4 || strcmp(argv[2], "root") != 0) {
        fprintf(stderr, "usage: spawntree N root TAG\n");
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
    if (n < 1) {
        fprintf(stderr, "spawntree: N must be >= 1\n");
        return 2;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the caller's death takes the tree with it */
    long self = 0;
    for (long c = 1; c <= FANOUT; c++) {
        long child = self * FANOUT + c;
        if (child >= n)
            break;
        pid_t pid = fork();
        if (pid < 0) {
            perror("spawntree: fork");
            return 1;
        }
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() == 1)
                _exit(1);
            memcpy(argv[2], "node", 4);
            self = child;
            c = 0; /* restart the loop as the child: fork its own children */
        }
    }
    if (write(STDOUT_FILENO, "x", 1) != 1)
        return 1;
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        close(null);
    }
    for (;;)
        pause();
}
