#include "procfs/proctitle.h"

#include <stdio.h>

size_t pt_proctitle_from_cmdline(char *text, size_t n)
{
    while (n > 0 && text[n - 1] == '\0')
        n--;
    for (size_t i = 0; i < n; i++)
        if (text[i] == '\0')
            text[i] = ' ';
    text[n] = '\0';
    return n;
}

void pt_proctitle_of_comm(char *out, size_t outlen, const char *comm)
{
    snprintf(out, outlen, "[%s]", comm);
}
