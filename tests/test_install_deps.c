/* tools/install-deps.sh, the one installer behind make, ./run.sh and .ci/run, with stand-ins for
 * apt-get and sudo (nothing is installed): silent when nothing is missing; apt-get as root;
 * sudo -n where it needs no password; otherwise one line with the exact command and status 2;
 * --check installs nothing; a failed install is retried after an update, then named.
 * matplotlib for the python3 first on PATH: apt-get's python3-matplotlib for the system's only;
 * pip into a python3 of its own (virtual environment, pyenv, conda), else one line with the pip
 * command for that interpreter; the import checked again after either. Those tests put a stand-in
 * python3 first on PATH (tests/fixtures/install-deps-python.sh: a sh script that answers exactly
 * the probes the installer makes, from files beside it, and logs pip installs), or a real virtual
 * environment made with `python3 -m venv --without-pip` (no pip: no network either way). */
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
    assert_int_equal(run_shell("chmod +x '%s'", path)->exit_code, 0);
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
    /* INSTALL_DEPS_SKIP_STB: this machine may keep stb elsewhere; the rest is here (make test
     * runs). */
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

/* A folder bin/ with the stand-in python3 (state files beside it: has-pip, pip-works, ...) and a
 * stand-in GNU parallel, inc/ with ISA-L's and cmocka's headers: only python3 can be missing. */
static void python_stand_in(const char *state_files)
{
    struct command_result *r =
        run_shell("mkdir -p '%s/bin' '%s/inc/isa-l' && touch '%s/inc/isa-l/igzip_lib.h' '%s/inc/cmocka.h' && "
                  "cp tests/fixtures/install-deps-python.sh '%s/bin/python3' && chmod +x '%s/bin/python3' && "
                  "printf '#!/bin/sh\n' >'%s/bin/parallel' && chmod +x '%s/bin/parallel' && "
                  "cd '%s/bin' && for f in %s; do touch \"$f\"; done",
                  folder, folder, folder, folder, folder, folder, folder, folder, folder, state_files);
    assert_int_equal(r->exit_code, 0);
}

/* A stand-in apt-get that logs its words; installing python3-matplotlib gives the stand-in python3
 * matplotlib when gives is 1. */
static void apt_get_for_python(int gives)
{
    char path[256];
    snprintf(path, sizeof path, "%s/apt-get", folder);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\necho \"apt-get $*\" >>'%s/log'\n", folder);
    if (gives)
        fprintf(f, "case \"$*\" in *python3-matplotlib*) touch '%s/bin/has-matplotlib' ;; esac\n", folder);
    fprintf(f, "exit 0\n");
    fclose(f);
    assert_int_equal(run_shell("chmod +x '%s'", path)->exit_code, 0);
}

/* tools/install-deps.sh with arguments args as root (stand-in apt-get), FOLDER/bin first on PATH.
 */
static struct command_result *install_deps(const char *environment, const char *args)
{
    return run_shell("unset PYTHONPATH PYTHONHOME; PATH='%s/bin':\"$PATH\" INSTALL_DEPS_SKIP_STB=1 "
                     "INSTALL_DEPS_INCLUDE_DIRS='%s/inc' CPATH= INSTALL_DEPS_UID=0 INSTALL_DEPS_APT='%s/apt-get' "
                     "%s " TOOL " %s",
                     folder, folder, folder, environment, args);
}

/* "install-deps: PY cannot import matplotlib<why>; install it with: PY -m pip install matplotlib\n"
 */
static const char *pip_line(const char *python, const char *why)
{
    static char line[1024];
    snprintf(line, sizeof line,
             "install-deps: %s/%s cannot import matplotlib%s; install it with: %s/%s -m pip install matplotlib\n",
             folder, python, why, folder, python);
    return line;
}

/* The old installer apt-got python3-matplotlib for whatever python3 was on PATH, returned 0, and
 * that python3 still could not import it. */
static void a_virtual_environment_without_pip_gets_the_command_not_apt_get(void **state)
{
    (void)state;
    python_stand_in("");
    apt_get_for_python(1);
    struct command_result *r = run_shell("unset PYTHONPATH PYTHONHOME; rm -r '%s/bin/python3' && "
                                         "python3 -m venv --without-pip '%s/venv' && '%s/venv/bin/python3' -c ''",
                                         folder, folder, folder);
    if (r->exit_code != 0) {
        print_message("# skipped: no python3 -m venv here (%.200s)\n", r->err);
        skip();
    }
    char environment[512];
    snprintf(environment, sizeof environment, "PATH='%s/venv/bin':\"$PATH\"", folder);
    r = install_deps(environment, "run");
    char expected[1024];
    snprintf(expected, sizeof expected,
             "install-deps: %s/venv/bin/python3 cannot import matplotlib and has no pip; install it with: "
             "%s/venv/bin/python3 -m ensurepip && %s/venv/bin/python3 -m pip install matplotlib\n",
             folder, folder, folder);
    assert_string_equal(r->err, expected);
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(log_text(), ""); /* apt-get not called */
    /* --check says the same. */
    r = install_deps(environment, "test --check");
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, expected);
}

static void pip_installs_into_a_python_of_its_own(void **state)
{
    (void)state;
    python_stand_in("has-pip pip-works"); /* prefix FOLDER (writable), base prefix /usr: a venv */
    apt_get_for_python(1);
    struct command_result *r = install_deps("", "run");
    char expected[512];
    snprintf(expected, sizeof expected, "install-deps: installing matplotlib (%s/bin/python3 -m pip install)\n",
             folder);
    assert_string_equal(r->err, expected);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(log_text(), "python3 -m pip install --quiet matplotlib\n");
    /* Now it imports it: nothing to do, nothing said. */
    r = install_deps("", "test");
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(r->err, "");
    assert_string_equal(log_text(), "python3 -m pip install --quiet matplotlib\n");
}

static void check_names_the_pip_command_and_installs_nothing(void **state)
{
    (void)state;
    python_stand_in("has-pip pip-works");
    apt_get_for_python(1);
    struct command_result *r = install_deps("", "run --check");
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, pip_line("bin/python3", ""));
    assert_string_equal(log_text(), "");
    /* INSTALL_DEPS_PYTHON names the interpreter instead of PATH's python3. */
    r = run_shell("INSTALL_DEPS_PYTHON='%s/bin/python3' INSTALL_DEPS_SKIP_STB=1 INSTALL_DEPS_INCLUDE_DIRS='%s/inc' "
                  "CPATH= " TOOL " test --check 2>&1 | grep matplotlib",
                  folder, folder);
    assert_string_equal(r->out, pip_line("bin/python3", ""));
    assert_string_equal(log_text(), "");
}

static void pip_that_fails_or_cannot_write_gives_the_command(void **state)
{
    (void)state;
    python_stand_in("has-pip");
    apt_get_for_python(1);
    /* pip fails */
    struct command_result *r = install_deps("", "run");
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, pip_line("bin/python3", " (pip could not install it)")));
    assert_string_equal(log_text(), "python3 -m pip install --quiet matplotlib\n");
    /* pip says it did, the import still fails; INSTALL_DEPS_PIP_ARGS goes to pip and the line */
    python_stand_in("pip-works pip-no-effect");
    r = install_deps("INSTALL_DEPS_PIP_ARGS='--no-index --find-links /w'", "run");
    assert_int_equal(r->exit_code, 2);
    char expected[1024];
    snprintf(expected, sizeof expected,
             "install-deps: %s/bin/python3 cannot import matplotlib even after pip installed it; install it with: "
             "%s/bin/python3 -m pip install --no-index --find-links /w matplotlib\n",
             folder, folder);
    assert_non_null(strstr(r->err, expected));
    assert_string_equal(log_text(), "python3 -m pip install --quiet matplotlib\n"
                                    "python3 -m pip install --quiet --no-index --find-links /w matplotlib\n");
    /* A prefix this user cannot write (someone else's conda, not the system's): no pip, no apt-get.
     */
    python_stand_in("");
    r = run_shell("rm -f '%s/bin/pip-no-effect' && echo /nonexistent-conda >'%s/bin/prefix' && "
                  "echo /nonexistent-conda >'%s/bin/base-prefix' && : >'%s/log'",
                  folder, folder, folder, folder);
    assert_int_equal(r->exit_code, 0);
    r = install_deps("", "run");
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, pip_line("bin/python3", ""));
    assert_string_equal(log_text(), "");
}

static void the_system_python_goes_through_apt_get_then_is_checked(void **state)
{
    (void)state;
    python_stand_in("has-pip pip-works");
    struct command_result *r =
        run_shell("echo /usr >'%s/bin/prefix' && echo /usr >'%s/bin/base-prefix'", folder, folder);
    assert_int_equal(r->exit_code, 0);
    apt_get_for_python(1);
    r = install_deps("", "run --check");
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, "install-deps: missing for 'run': python3-matplotlib (install with: sudo apt-get "
                                "install -y python3-matplotlib)\n");
    r = install_deps("", "run");
    char expected[2048];
    snprintf(expected, sizeof expected, "install-deps: installing python3-matplotlib (%s/apt-get install)\n", folder);
    assert_string_equal(r->err, expected);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(log_text(), "apt-get install -y -qq python3-matplotlib\n"); /* not pip */
    /* apt-get installed it, and python3 still cannot import it: said, status 2. */
    r = run_shell("rm '%s/bin/has-matplotlib' && : >'%s/log'", folder, folder);
    assert_int_equal(r->exit_code, 0);
    apt_get_for_python(0);
    r = install_deps("", "run");
    assert_int_equal(r->exit_code, 2);
    snprintf(expected, sizeof expected,
             "install-deps: installing python3-matplotlib (%s/apt-get install)\n%s", folder,
             pip_line("bin/python3", " even after apt-get installed python3-matplotlib"));
    assert_string_equal(r->err, expected);
    assert_string_equal(log_text(), "apt-get install -y -qq python3-matplotlib\n");
}

/* Slurm and munge are a purpose of their own (tools/local-slurm.sh), which no other asks for:
 * looked up on PATH (here one that holds bash alone), installed without their recommended plugins. */
static void slurm_is_optional_and_a_purpose_of_its_own(void **state)
{
    (void)state;
    stand_in("apt-get", 0);
    struct command_result *r =
        run_shell("mkdir '%s/bare' && ln -s \"$(command -v bash)\" '%s/bare/bash'", folder, folder);
    assert_int_equal(r->exit_code, 0);
    char bare[512];
    snprintf(bare, sizeof bare, "PATH='%s/bare' INSTALL_DEPS_UID=0 INSTALL_DEPS_APT='%s/apt-get'", folder, folder);
    r = run_shell("%s " TOOL " slurm --check", bare);
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, "install-deps: missing for 'slurm': slurm-wlm munge (install with: sudo apt-get "
                                "install -y --no-install-recommends slurm-wlm munge)\n");
    assert_string_equal(log_text(), "");
    r = run_shell("%s " TOOL " slurm", bare);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(log_text(), "apt-get install -y -qq --no-install-recommends slurm-wlm munge\n");
    /* The other purposes never name them. */
    r = run_shell("%s INSTALL_DEPS_INCLUDE_DIRS='%s' CPATH= " TOOL " test --check", bare, folder);
    assert_int_equal(r->exit_code, 2);
    assert_null(strstr(r->err, "slurm-wlm"));
    assert_null(strstr(r->err, "munge"));
    /* Where the programs are (stand-ins on PATH), nothing is missing and nothing said. */
    r = run_shell("for p in munged slurmctld slurmd sbatch srun scontrol; do printf '#!/bin/sh\\n' >'%s/bare/'$p && "
                  "chmod +x '%s/bare/'$p; done && : >'%s/log' && %s " TOOL " slurm",
                  folder, folder, folder, bare);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(r->err, "");
    assert_string_equal(log_text(), "");
}

static void bad_arguments(void **state)
{
    (void)state;
    struct command_result *r = run_shell(TOOL);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "say what for: build, test, run or slurm"));
    r = run_shell(TOOL " build --force");
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "unexpected argument '--force'"));
    r = run_shell(TOOL " --help");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "usage: tools/install-deps.sh build|test|run|slurm"));
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
        cmocka_unit_test_setup_teardown(a_virtual_environment_without_pip_gets_the_command_not_apt_get, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(pip_installs_into_a_python_of_its_own, setup, teardown),
        cmocka_unit_test_setup_teardown(check_names_the_pip_command_and_installs_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(pip_that_fails_or_cannot_write_gives_the_command, setup, teardown),
        cmocka_unit_test_setup_teardown(the_system_python_goes_through_apt_get_then_is_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(slurm_is_optional_and_a_purpose_of_its_own, setup, teardown),
        cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
