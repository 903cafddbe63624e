/* tools/lab/fetch-debian-cuda.sh, which CI uses to build every stage with CUDA 11.8 and 12.4,
 * without
 * the network: its arguments, a folder already fetched is reused (the path of its nvcc printed,
 * nothing downloaded), and a machine without apt-get is told so in one line naming the version.
 * The download itself runs in CI (.ci/run). Run from the repository root. */
#include "test_support.h"

#define TOOL "tools/lab/fetch-debian-cuda.sh"

static void arguments(void **state)
{
    (void)state;
    struct command_result *r = run_shell(TOOL " 10.1 /tmp/x");
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, "fetch-debian-cuda: no Debian CUDA '10.1': 11.8 or 12.4 (usage: "
                                "tools/lab/fetch-debian-cuda.sh 11.8|12.4 DIR)\n");
    r = run_shell(TOOL " 11.8");
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "CUDA 11.8: name one folder"));
    r = run_shell(TOOL " 12.4 /tmp/a /tmp/b");
    assert_int_equal(r->exit_code, 2);
    r = run_shell(TOOL " --help");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "usage: tools/lab/fetch-debian-cuda.sh 11.8|12.4 DIR"));
    assert_non_null(strstr(r->out, "NVCC_CCBIN=g++-11"));
}

/* A folder that holds the version's nvcc and CUB already: its path, at once. Without CUB (a
 * folder fetched before the stages used it) it is fetched again: here, without apt-get and
 * dpkg-deb, that is one line naming them. */
static void a_folder_fetched_before_is_reused(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    struct command_result *r = run_shell(
        "mkdir -p '%s/usr/lib/nvidia-cuda-toolkit/bin' '%s/bin' && printf '#!/bin/sh\\necho "
        "\"Cuda compilation tools, release 11.8, V11.8.89\"\\n' >'%s/usr/lib/nvidia-cuda-toolkit/bin/nvcc' "
        "&& chmod +x '%s/usr/lib/nvidia-cuda-toolkit/bin/nvcc' && for tool in bash mkdir grep; do "
        "ln -s \"$(command -v $tool)\" '%s/bin/'$tool; done && PATH='%s/bin' bash " TOOL " 11.8 '%s'",
        folder, folder, folder, folder, folder, folder, folder);
    assert_int_equal(r->exit_code, 1);
    assert_string_equal(r->err, "fetch-debian-cuda: CUDA 11.8: needs apt-get and dpkg-deb (Debian or Ubuntu)\n");
    r = run_shell("mkdir -p '%s/usr/include/cub' && touch '%s/usr/include/cub/cub.cuh' && "
                  "PATH=/nonexistent:$PATH " TOOL " 11.8 '%s'",
                  folder, folder, folder);
    assert_int_equal(r->exit_code, 0);
    char expected[256];
    snprintf(expected, sizeof expected, "%s/usr/lib/nvidia-cuda-toolkit/bin/nvcc\n", folder);
    assert_string_equal(r->out, expected);
    assert_string_equal(r->err, "");
    /* The same folder for 12.4 holds no 12.4: without apt-get that is one line naming it. */
    r = run_shell("PATH='%s/bin' bash " TOOL " 12.4 '%s'", folder, folder);
    assert_int_equal(r->exit_code, 1);
    assert_string_equal(r->err, "fetch-debian-cuda: CUDA 12.4: needs apt-get and dpkg-deb (Debian or Ubuntu)\n");
    assert_string_equal(r->out, "");
    remove_temporary_folder(folder);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arguments),
        cmocka_unit_test(a_folder_fetched_before_is_reused),
    };
    return cmocka_run_group_tests_name("fetch-debian-cuda", tests, NULL, NULL);
}
