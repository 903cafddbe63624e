/* The shell from a test, for the tests of the shell tools (test_runner.c, test_scaling.c): sh()
 * runs a command built like printf and returns its exit status; sh_num() returns the number it
 * prints. Include after <cmocka.h>'s prerequisites; CMD_MAX bounds a command. */
#ifndef SHELL_COMMANDS_H
#define SHELL_COMMANDS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#ifndef CMD_MAX
#define CMD_MAX 16384
#endif

/* Runs a shell command built like printf from the repository root; returns its exit status. */
static int sh(const char *fmt, ...) {
    char cmd[CMD_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The number a shell command prints (-1 when it prints none). */
static long sh_num(const char *fmt, ...) {
    char cmd[CMD_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    long value = -1;
    if (p) {
        if (fscanf(p, "%ld", &value) != 1) value = -1;
        pclose(p);
    }
    return value;
}

#endif
