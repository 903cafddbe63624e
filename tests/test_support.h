/* Helpers the cmocka tests share: running a program and capturing what it printed, temporary
 * folders, and whether a GPU is here (GPU tests skip with the reason when not). */
#ifndef TEST_SUPPORT_H
#define TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define TEST_OUTPUT_BYTES (256 * 1024)

struct command_result {
    int exit_code; /* 128 + signal when killed by one */
    char out[TEST_OUTPUT_BYTES];
    char err[TEST_OUTPUT_BYTES];
};

static inline void test_read_file(const char *path, char *buffer, size_t size)
{
    FILE *file = fopen(path, "rb");
    size_t length = file ? fread(buffer, 1, size - 1, file) : 0;
    buffer[length] = '\0';
    if (file)
        fclose(file);
}

/* Writes text to path, replacing it; the test fails when it cannot. */
static inline void test_write_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    assert_int_equal(fputs(text, file) >= 0, 1);
    assert_int_equal(fclose(file), 0);
}

/* Runs command through /bin/sh with stdout and stderr captured. */
static inline struct command_result *run_shell(const char *format, ...)
{
    static struct command_result result;
    char command[8192], out_path[] = "/tmp/rt-test-out-XXXXXX", err_path[] = "/tmp/rt-test-err-XXXXXX";
    va_list args;
    va_start(args, format);
    vsnprintf(command, sizeof command, format, args);
    va_end(args);
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    assert_true(out_fd >= 0 && err_fd >= 0);
    fflush(stdout);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    close(out_fd);
    close(err_fd);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    test_read_file(out_path, result.out, sizeof result.out);
    test_read_file(err_path, result.err, sizeof result.err);
    unlink(out_path);
    unlink(err_path);
    return &result;
}

static inline const char *test_build_dir(void)
{
    const char *build = getenv("BUILD");
    return build && *build ? build : "build";
}

/* 1 when a stage can reach a GPU here; otherwise 0 and why in reason. */
static inline int gpu_available(char *reason, size_t size)
{
    static int known = 0, available = 0;
    static char why[512];
    if (!known) {
        struct command_result *r =
            run_shell("%s/01-base --scene scenes/quick.scene --size 16x16", test_build_dir());
        available = r->exit_code == 0;
        snprintf(why, sizeof why, "%.500s", r->err);
        why[strcspn(why, "\n")] = '\0';
        known = 1;
    }
    snprintf(reason, size, "%.*s", (int)(size > 1 ? size - 1 : 0), why);
    return available;
}

#define SKIP_WITHOUT_GPU()                                                                        \
    do {                                                                                          \
        char skip_reason_[512];                                                                   \
        if (!gpu_available(skip_reason_, sizeof skip_reason_)) {                                  \
            print_message("# skipped: no GPU here (%s)\n", skip_reason_);                           \
            skip();                                                                               \
        }                                                                                         \
    } while (0)

/* A fresh folder under /tmp, removed by remove_temporary_folder. */
static inline char *make_temporary_folder(void)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/rt-test-XXXXXX");
    assert_non_null(mkdtemp(path));
    return path;
}

static inline void remove_temporary_folder(const char *path)
{
    char command[256];
    snprintf(command, sizeof command, "rm -rf '%s'", path);
    assert_int_equal(system(command), 0);
}

#endif
