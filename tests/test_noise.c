/* tools/noise.py, the noise-at-equal-time table of stages p08b-p08d: its Python tests
 * (tests/test_noise.py: the PPM reader, the RMS difference, the CSV, a whole measurement with
 * stand-in stages; no GPU) and its --help. Run from the repository root. */
#include "test_support.h"

static void python_tests_of_noise_py_pass(void **state)
{
    (void)state;
    struct command_result *r = run_shell("python3 tests/test_noise.py");
    if (r->exit_code != 0)
        fail_msg("python3 tests/test_noise.py: status %d:\n%s%s", r->exit_code, r->out, r->err);
    assert_non_null(strstr(r->err, "\nOK"));
}

static void help_says_how_to_use_it(void **state)
{
    (void)state;
    struct command_result *r = run_shell("python3 tools/noise.py --help");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "usage: tools/noise.py"));
    assert_non_null(strstr(r->out, "--samples"));
    assert_non_null(strstr(r->out, "--converged"));
    assert_non_null(strstr(r->out, "equal time"));
    /* A stage that is not there: one line, status 2, before anything runs. */
    r = run_shell("python3 tools/noise.py build/no-such-stage");
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "build/no-such-stage: not an executable file"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(python_tests_of_noise_py_pass),
        cmocka_unit_test(help_says_how_to_use_it),
    };
    return cmocka_run_group_tests_name("tools/noise.py", tests, NULL, NULL);
}
