/* tools/install-deps.sh, the one installer behind make, ./run.sh and .ci/run, with stand-ins for
 * apt-get and sudo (nothing is installed): silent when nothing is missing; apt-get as root;
 * sudo -n where it needs no password; otherwise one line with the exact command and status 2;
 * --check installs nothing; a failed install is retried after an update, then named. */
#include "test_support.h"

#define TOOL "tools/install-deps.sh"
/* stb "missing": a folder without stb_image_write.h. */
#define NO_STB "STB_INCLUDE_DIR=/nonexistent-stb"

static char folder[64];

/* A stand-in command in the test folder that logs its words and exits with status. */
static void stand_in(const char *name, int status)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\necho \"%s $*\" >>'%s/log'\nexit %d\n", name, folder, status);
    fclose(f);
    char command[512];
    snprintf(command, sizeof command, "chmod +x '%s'", path);
    assert_int_equal(system(command), 0);
}

static const char *log_text(void)
{
    static char text[4096];
    char path[256];
    snprintf(path, sizeof path, "%s/log", folder);
    test_read_file(path, text, sizeof text);
    return text;
}

static int setup(void **state)
{
    (void)state;
    snprintf(folder, sizeof folder, "%s", make_temporary_folder());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove_temporary_folder(folder);
    return 0;
}

static void nothing_missing_is_silent(void **state)
{
    (void)state;
    stand_in("apt-get", 0);
    /* INSTALL_DEPS_SKIP_STB: this machine may keep stb elsewhere; the rest is here (make test runs). */
    struct command_result *r =
        run_shell("INSTALL_DEPS_SKIP_STB=1 INSTALL_DEPS_APT='%s/apt-get' " TOOL " build", folder);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(r->out, "");
    assert_string_equal(r->err, "");
    assert_string_equal(log_text(), "");
}

static void root_installs_with_apt_get(void **state)
{
    (void)state;
    stand_in("apt-get", 0);
    struct command_result *r =
        run_shell(NO_STB " INSTALL_DEPS_UID=0 INSTALL_DEPS_APT='%s/apt-get' " TOOL " build", folder);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(log_text(), "apt-get install -y -qq libstb-dev\n");
    assert_non_null(strstr(r->err, "install-deps: installing libstb-dev"));
}

/* ISA-L (the PNG encoder's deflate) is part of every purpose, cmocka of the tests': headers
 * looked for in INSTALL_DEPS_INCLUDE_DIRS (an empty folder here) and CPATH. */
static void isal_for_a_build_cmocka_for_the_tests(void **state)
{
    (void)state;
    stand_in("apt-get", 0);
    struct command_result *r = run_shell("INSTALL_DEPS_SKIP_STB=1 INSTALL_DEPS_INCLUDE_DIRS='%s' CPATH= "
                                         "INSTALL_DEPS_UID=0 INSTALL_DEPS_APT='%s/apt-get' " TOOL " build",
                                         folder, folder);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(log_text(), "apt-get install -y -qq libisal-dev\n");
    r = run_shell("INSTALL_DEPS_SKIP_STB=1 INSTALL_DEPS_INCLUDE_DIRS='%s' CPATH= INSTALL_DEPS_UID=0 " TOOL
                  " test --check",
                  folder);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "missing for 'test': libisal-dev libcmocka-dev"));
    /* Found through CPATH: nothing missing. */
    r = run_shell("mkdir -p '%s/inc/isa-l' && touch '%s/inc/isa-l/igzip_lib.h' && INSTALL_DEPS_SKIP_STB=1 "
                  "INSTALL_DEPS_INCLUDE_DIRS='%s' CPATH='/nonexistent:%s/inc' " TOOL " build --check",
                  folder, folder, folder, folder);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(r->err, "");
}

static void a_user_with_passwordless_sudo_installs_through_it(void **state)
{
    (void)state;
    stand_in("apt-get", 0);
    stand_in("sudo", 0);
    struct command_result *r = run_shell(NO_STB " INSTALL_DEPS_UID=1000 INSTALL_DEPS_SUDO='%s/sudo' "
                                         "INSTALL_DEPS_APT=apt-get " TOOL " build",
                                         folder);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(log_text(), "sudo -n true\nsudo -n apt-get install -y -qq libstb-dev\n");
}

static void otherwise_one_line_with_the_command(void **state)
{
    (void)state;
    stand_in("apt-get", 0);
    stand_in("sudo", 1); /* sudo wants a password */
    struct command_result *r =
        run_shell(NO_STB " INSTALL_DEPS_UID=1000 INSTALL_DEPS_SUDO='%s/sudo' INSTALL_DEPS_APT='%s/apt-get' " TOOL
                  " build",
                  folder, folder);
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, "install-deps: missing for 'build': libstb-dev; install with: sudo apt-get "
                                "install -y libstb-dev\n");
    assert_string_equal(log_text(), "sudo -n true\n");
    /* No apt-get at all: the packages are named. */
    r = run_shell(NO_STB " INSTALL_DEPS_UID=0 INSTALL_DEPS_APT=/nonexistent/apt-get " TOOL " build");
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "this machine has no apt-get"));
}

static void check_installs_nothing(void **state)
{
    (void)state;
    stand_in("apt-get", 0);
    struct command_result *r =
        run_shell(NO_STB " INSTALL_DEPS_UID=0 INSTALL_DEPS_APT='%s/apt-get' " TOOL " run --check", folder);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "missing for 'run': libstb-dev"));
    assert_string_equal(log_text(), "");
}

static void a_failed_install_is_retried_after_an_update_then_named(void **state)
{
    (void)state;
    stand_in("apt-get", 100);
    struct command_result *r =
        run_shell(NO_STB " INSTALL_DEPS_UID=0 INSTALL_DEPS_APT='%s/apt-get' " TOOL " build", folder);
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(log_text(), "apt-get install -y -qq libstb-dev\napt-get update -qq\n"
                                    "apt-get install -y -qq libstb-dev\n");
    assert_non_null(strstr(r->err, "could not install libstb-dev"));
}

static void bad_arguments(void **state)
{
    (void)state;
    struct command_result *r = run_shell(TOOL);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "say what for: build, test or run"));
    r = run_shell(TOOL " build --force");
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "unexpected argument '--force'"));
    r = run_shell(TOOL " --help");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "usage: tools/install-deps.sh build|test|run"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(nothing_missing_is_silent, setup, teardown),
        cmocka_unit_test_setup_teardown(root_installs_with_apt_get, setup, teardown),
        cmocka_unit_test_setup_teardown(isal_for_a_build_cmocka_for_the_tests, setup, teardown),
        cmocka_unit_test_setup_teardown(a_user_with_passwordless_sudo_installs_through_it, setup, teardown),
        cmocka_unit_test_setup_teardown(otherwise_one_line_with_the_command, setup, teardown),
        cmocka_unit_test_setup_teardown(check_installs_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(a_failed_install_is_retried_after_an_update_then_named, setup, teardown),
        cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
