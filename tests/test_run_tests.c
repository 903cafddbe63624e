/* tests/run-tests.sh, the runner of make test: each program's output shown in the order given,
 * the passed, failed and skipped lines counted, a program that dies counted as failed even when
 * its lines look fine, and programs run TEST_JOBS at a time. Made-up programs (shell scripts). */
#include "test_support.h"

static char folder[256];

static int setup(void **state)
{
    (void)state;
    snprintf(folder, sizeof folder, "%s", make_temporary_folder());
    char path[512];
    snprintf(path, sizeof path, "%s/slow", folder);
    test_write_file(path, "#!/bin/sh\nsleep 2\necho 'ok 1 - slow'\necho 'not ok 2 # SKIP no GPU'\n");
    snprintf(path, sizeof path, "%s/failing", folder);
    test_write_file(path, "#!/bin/sh\necho 'ok 1 - first'\necho 'not ok 2 - second'\nexit 1\n");
    snprintf(path, sizeof path, "%s/dying", folder);
    test_write_file(path, "#!/bin/sh\necho 'ok 1 - looked fine'\nexit 3\n");
    return sh("chmod +x '%s/slow' '%s/failing' '%s/dying'", folder, folder, folder) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    remove_temporary_folder(folder);
    return 0;
}

static void counts_in_the_order_given(void **state)
{
    (void)state;
    struct command_result *r =
        run_shell("TEST_JOBS=3 tests/run-tests.sh '%s/slow' '%s/failing' '%s/dying' '%s/slow'", folder,
                  folder, folder, folder);
    assert_int_equal(r->exit_code, 1);
    /* The slow program, given first, is shown first though the others ended before it. */
    const char *first = strstr(r->out, "# ---- slow\nok 1 - slow\n");
    const char *second = strstr(r->out, "# ---- failing\n");
    const char *third = strstr(r->out, "# ---- dying\n");
    assert_non_null(first);
    assert_non_null(second);
    assert_non_null(third);
    assert_true(first < second && second < third);
    assert_non_null(strstr(r->out, "# crashed: dying (exit status 3)\n"));
    assert_non_null(strstr(r->out, "\n4 passed, 2 failed, 2 skipped\n"));

    r = run_shell("tests/run-tests.sh '%s/slow'", folder);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "\n1 passed, 0 failed, 1 skipped\n"));
}

/* Two programs of 2 s each: about 2 s two at a time, about 4 s one after the other. */
static void runs_programs_at_once(void **state)
{
    (void)state;
    long together = sh_num("s=$(date +%%s%%N); TEST_JOBS=2 tests/run-tests.sh '%s/slow' '%s/slow' >/dev/null; "
                           "echo $(( ($(date +%%s%%N) - s) / 1000000 ))", folder, folder);
    long apart = sh_num("s=$(date +%%s%%N); TEST_JOBS=1 tests/run-tests.sh '%s/slow' '%s/slow' >/dev/null; "
                        "echo $(( ($(date +%%s%%N) - s) / 1000000 ))", folder, folder);
    print_message("# two programs of 2 s: %ld ms at once, %ld ms one after the other\n", together, apart);
    assert_true(apart >= 4000);
    assert_true(together < 3500);
    struct command_result *r = run_shell("TEST_JOBS=0 tests/run-tests.sh '%s/slow'", folder);
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, "run-tests: TEST_JOBS must be a positive number, got '0'\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_in_the_order_given),
        cmocka_unit_test(runs_programs_at_once),
    };
    return cmocka_run_group_tests_name("tests/run-tests.sh", tests, setup, teardown);
}
