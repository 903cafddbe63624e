/* The Colab notebook (colab/course.ipynb): every command in it exists and takes the words it
 * gives, every Python cell parses (tests/check_notebook.py says how each is checked; no GPU
 * needed), the checker catches what it should, and the README links the notebook. Run from the
 * repository root. */
#include "test_support.h"

#define NOTEBOOK "colab/course.ipynb"
#define CHECKER "python3 tests/check_notebook.py"

/* The notebook runs ./run.sh, which installs GNU parallel as root when it is missing: not here. */
static int has_parallel(void)
{
    return run_shell("command -v parallel")->exit_code == 0;
}

static void every_command_of_the_notebook_exists_and_parses(void **state)
{
    (void)state;
    if (!has_parallel()) {
        print_message("# skipped: no GNU parallel here (./run.sh would install it)\n");
        skip();
    }
    struct command_result *r = run_shell(CHECKER " " NOTEBOOK " --build '%s'", test_build_dir());
    if (r->exit_code != 0)
        fail_msg("%s: status %d:\n%s%s", NOTEBOOK, r->exit_code, r->out, r->err);
    int commands = 0, cells = 0;
    const char *summary = strstr(r->out, NOTEBOOK ": ");
    assert_non_null(summary);
    assert_int_equal(sscanf(summary, NOTEBOOK ": %d commands and %d Python cells", &commands, &cells), 2);
    /* The README's commands: clone, make test, a stage, the campaign, the plots. */
    assert_true(commands >= 8);
    assert_true(cells >= 5);
    assert_non_null(strstr(r->out, ", 0 problems"));
}

/* A notebook of the clone cell and one more code cell; the checker's verdict on it. */
static struct command_result *check_cell(const char *folder, const char *metadata, const char *source)
{
    char path[256];
    snprintf(path, sizeof path, "%s/bad.ipynb", folder);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fprintf(file,
            "{\"nbformat\": 4, \"nbformat_minor\": 0, \"metadata\": %s, \"cells\": ["
            "{\"cell_type\": \"code\", \"metadata\": {}, \"outputs\": [], \"execution_count\": null,"
            " \"source\": [\"REPO_URL = 'https://example.org/course.git'\\n\","
            " \"!git clone \\\"$REPO_URL\\\" course\\n\", \"%%cd course\\n\"]},"
            "{\"cell_type\": \"code\", \"metadata\": {}, \"outputs\": [], \"execution_count\": null,"
            " \"source\": [\"%s\"]}]}\n",
            metadata, source);
    fclose(file);
    return run_shell(CHECKER " '%s' --build '%s'", path, test_build_dir());
}

#define T4 "{\"accelerator\": \"GPU\", \"colab\": {\"gpuType\": \"T4\"}}"

static void the_checker_finds_what_is_wrong(void **state)
{
    (void)state;
    if (!has_parallel()) {
        print_message("# skipped: no GNU parallel here (./run.sh would install it)\n");
        skip();
    }
    static const struct {
        const char *metadata, *source, *expected;
    } cases[] = {
        {T4, "!./run.sh --runs 10 --bogus", "./run.sh --help does not list --bogus"},
        {T4, "!./run.sh --runs many", "should stop at 'no NVIDIA GPU found'"},
        {T4, "!make no-such-goal", "make -n fails"},
        {T4, "!tools/no-such-tool.sh", "no such file in the repository"},
        {T4, "!build/99-no-such-stage", "make builds no such program"},
        {T4, "!build/01-base --bogus", "status 2"},
        {T4, "!no-such-program-here --version", "no such program"},
        {T4, "!python3 tools/plot.py --bogus results", "--help does not list --bogus"},
        {T4, "!git clone $NOT_SET elsewhere", "$NOT_SET is not set"},
        {T4, "for x in", "Python does not parse"},
        {T4, "%cd /somewhere", "not the folder a `git clone` of the notebook made"},
        {T4, "show('results/tesla-t4/no-such-plot.png')", "neither run.sh nor plot.py writes"},
        {"{}", "!make help", "does not ask Colab for a T4 GPU"},
    };
    char *folder = make_temporary_folder();
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct command_result *r = check_cell(folder, cases[k].metadata, cases[k].source);
        if (r->exit_code != 1 || !strstr(r->out, cases[k].expected))
            fail_msg("`%s`: expected status 1 and '%s'; status %d, stdout: %s, stderr: %s", cases[k].source,
                     cases[k].expected, r->exit_code, r->out, r->err);
    }
    /* The same notebook with a good cell passes. */
    struct command_result *r = check_cell(folder, T4, "!make help");
    if (r->exit_code != 0)
        fail_msg("a good notebook: status %d: %s%s", r->exit_code, r->out, r->err);
    /* A notebook that is not JSON: status 2. */
    r = run_shell("echo '{' >'%s/broken.ipynb' && " CHECKER " '%s/broken.ipynb'", folder, folder);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "cannot read the notebook"));
    remove_temporary_folder(folder);
}

static void the_readme_links_the_notebook(void **state)
{
    (void)state;
    static char readme[512 * 1024];
    test_read_file("README.md", readme, sizeof readme);
    assert_non_null(strstr(readme, "](" NOTEBOOK ")"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_command_of_the_notebook_exists_and_parses),
        cmocka_unit_test(the_checker_finds_what_is_wrong),
        cmocka_unit_test(the_readme_links_the_notebook),
    };
    return cmocka_run_group_tests_name("colab notebook", tests, NULL, NULL);
}
