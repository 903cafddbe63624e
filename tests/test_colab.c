/* The Colab notebook (colab/course.ipynb): every command in it exists and takes the words it
 * gives, every Python cell parses (tests/check_notebook.py says how each is checked; no GPU
 * needed), the checker catches what it should, and the README links the notebook. Run from the
 * repository root. */
#include "test_support.h"

#define NOTEBOOK "colab/course.ipynb"
#define CHECKER "python3 tests/check_notebook.py"

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
    /* The README's commands: clone or unpack, make list, make test, a stage, the campaign. */
    assert_true(commands >= 8);
    assert_true(cells >= 5);
    assert_non_null(strstr(r->out, ", 0 problems"));
    /* Nobody's address in it: a form field, empty, and the archive to upload when it stays so;
     * the campaign's results read from results/local/. */
    static char notebook[256 * 1024];
    test_read_file(NOTEBOOK, notebook, sizeof notebook);
    assert_non_null(strstr(notebook, "REPO_URL = \\\"\\\"  #@param {type:\\\"string\\\"}"));
    assert_non_null(strstr(notebook, "files.upload()"));
    assert_non_null(strstr(notebook, "git archive --format=tar.gz -o course.tar.gz HEAD"));
    assert_non_null(strstr(notebook, "results/local/*/runs.csv.gz"));
    assert_non_null(strstr(notebook, "!make list"));
}

/* The notebook's way to the repository: a form field for an address, and when it is empty an
 * archive made by `git archive` (the markdown cell says how), uploaded and unpacked into course/.
 */
#define ARCHIVE_MARKDOWN "Leave REPO_URL empty and upload `git archive --format=tar.gz -o course.tar.gz HEAD`."
#define CLONE_CELL                                          \
    "REPO_URL = \"\"  #@param {type:\"string\"}\n"          \
    "if REPO_URL:\n"                                        \
    "    !git clone --depth 1 \"$REPO_URL\" course\n"       \
    "else:\n"                                               \
    "    from google.colab import files\n"                  \
    "    archive = next(iter(files.upload()))\n"            \
    "    !mkdir -p course && tar -xzf \"$archive\" -C course\n" \
    "%cd course\n"
/* The clone cell with its else branch's unpacking line replaced. */
#define UNPACKED_BY(line)                                   \
    "REPO_URL = \"\"  #@param {type:\"string\"}\n"          \
    "if REPO_URL:\n"                                        \
    "    !git clone --depth 1 \"$REPO_URL\" course\n"       \
    "else:\n"                                               \
    "    from google.colab import files\n"                  \
    "    archive = next(iter(files.upload()))\n"            \
    "    " line "\n"                                        \
    "%cd course\n"

/* TEXT as a JSON string. */
static void json_string(FILE *file, const char *text)
{
    fputc('"', file);
    for (const char *c = text; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(file, "\\%c", *c);
        else if (*c == '\n')
            fputs("\\n", file);
        else
            fputc(*c, file);
    }
    fputc('"', file);
}

static void json_cell(FILE *file, const char *type, const char *source)
{
    fprintf(file, "{\"cell_type\": \"%s\", \"metadata\": {}, \"source\": [", type);
    json_string(file, source);
    fputs(strcmp(type, "code") == 0 ? "], \"outputs\": [], \"execution_count\": null}" : "]}", file);
}

/* A notebook of a markdown cell, the clone cell (NULL: CLONE_CELL) and one more code cell; the
 * checker's verdict on it. */
static struct command_result *check_notebook(const char *folder, const char *metadata, const char *markdown,
                                             const char *clone, const char *source)
{
    char path[256];
    snprintf(path, sizeof path, "%s/bad.ipynb", folder);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fprintf(file, "{\"nbformat\": 4, \"nbformat_minor\": 0, \"metadata\": %s, \"cells\": [", metadata);
    json_cell(file, "markdown", markdown);
    fputs(", ", file);
    json_cell(file, "code", clone ? clone : CLONE_CELL);
    fputs(", ", file);
    json_cell(file, "code", source);
    fputs("]}\n", file);
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
    /* Only in a git checkout can the checker make the archive and unpack it. */
    int git_checkout = run_shell("git rev-parse --is-inside-work-tree")->exit_code == 0;
    static const struct {
        const char *metadata, *markdown, *clone, *source, *expected;
        int needs_git;
    } cases[] = {
        {T4, ARCHIVE_MARKDOWN, NULL, "!./run.sh --runs 10 --bogus", "./run.sh --help does not list --bogus", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "!./run.sh --runs many", "should stop at 'no NVIDIA GPU found'", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "!make no-such-goal", "make -n fails", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "!tools/no-such-tool.sh", "no such file in the repository", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "!build/99-no-such-stage", "make builds no such program", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "!build/01-base --bogus", "status 2", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "!no-such-program-here --version", "no such program", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "!python3 tools/plot.py --bogus results", "--help does not list --bogus", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "!git clone $NOT_SET elsewhere", "$NOT_SET is not set", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "for x in", "Python does not parse", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "%cd /somewhere", "not the folder a `git clone` of the notebook made", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "show('results/local/tesla-t4/no-such-plot.png')",
         "neither run.sh nor plot.py writes", 0},
        {"{}", ARCHIVE_MARKDOWN, NULL, "!make help", "does not ask Colab for a T4 GPU", 0},
        /* The results layout: run.sh writes results/local/, not results/. */
        {T4, ARCHIVE_MARKDOWN, NULL, "show('results/tesla-t4/summary.md')", "nor in ./run.sh's results folder", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "show('results/gpus.png')", "nor in ./run.sh's results folder", 0},
        /* Placeholder addresses: in the form field, in a git clone, in a variable. */
        {T4, ARCHIVE_MARKDOWN,
         "REPO_URL = \"https://github.com/YOUR-ACCOUNT/cuda-raytracer-course.git\"  #@param {type:\"string\"}\n"
         "!git clone --depth 1 \"$REPO_URL\" course\n%cd course\n",
         "!make help", "is a placeholder address", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "!git clone https://example.com/course.git elsewhere", "is a placeholder address", 0},
        {T4, ARCHIVE_MARKDOWN, NULL, "FORK = '<the address of your fork>'\n!git clone \"$FORK\" elsewhere",
         "is a placeholder address", 0},
        /* An empty form field cloned without `if REPO_URL:`. */
        {T4, ARCHIVE_MARKDOWN,
         "REPO_URL = \"\"  #@param {type:\"string\"}\n!git clone \"$REPO_URL\" course\n%cd course\n",
         "!make help", "$REPO_URL may be empty", 0},
        /* The upload: each branch must make the folder entered, a folder of its own, made first,
         * from the uploaded file. */
        {T4, ARCHIVE_MARKDOWN, UNPACKED_BY("!mkdir -p other && tar -xzf \"$archive\" -C other"), "!make help",
         "not the folder a `git clone` of the notebook made, or the archive", 0},
        {T4, ARCHIVE_MARKDOWN, UNPACKED_BY("!tar -xzf \"$archive\" -C course"), "!make help",
         "course is not made before it", 0},
        {T4, ARCHIVE_MARKDOWN, UNPACKED_BY("!mkdir -p course && tar -xzf course.tar.gz -C course"), "!make help",
         "not a file the notebook uploads", 0},
        {T4, ARCHIVE_MARKDOWN, UNPACKED_BY("!tar -xzf \"$archive\""), "!make help",
         "tar unpacks into the current folder", 0},
        /* The markdown must say how to make the archive, and an archive that unpacks into the
         * folder: no --prefix, a format git knows, a file. */
        {T4, "Upload an archive of the repository.", NULL, "!make help", "no markdown cell says how to make it", 0},
        {T4, "`git archive --format=tar.gz --prefix=course/ -o course.tar.gz HEAD`", NULL, "!make help",
         "the archive's files are not at its top", 0},
        {T4, "`git archive --format=rar -o course.rar HEAD`", NULL, "!make help", "git archive knows no --format=rar", 0},
        {T4, "`git archive --format=tar.gz HEAD`", NULL, "!make help", "says no -o FILE", 0},
        /* Made here and unpacked by the notebook's line, the archive must hold the repository in
         * the folder entered. */
        {T4, ARCHIVE_MARKDOWN,
         UNPACKED_BY("!mkdir -p course && tar -xzf \"$archive\" --strip-components=1 -C course"), "!make help",
         "no course/Makefile", 1},
    };
    char *folder = make_temporary_folder();
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        if (cases[k].needs_git && !git_checkout) {
            print_message("# not a git checkout: `%s` not tried\n", cases[k].clone);
            continue;
        }
        struct command_result *r =
            check_notebook(folder, cases[k].metadata, cases[k].markdown, cases[k].clone, cases[k].source);
        if (r->exit_code != 1 || !strstr(r->out, cases[k].expected))
            fail_msg("`%s` after `%s` (markdown `%s`): expected status 1 and '%s'; status %d, stdout: %s, stderr: %s",
                     cases[k].source, cases[k].clone ? cases[k].clone : "the clone cell", cases[k].markdown,
                     cases[k].expected, r->exit_code, r->out, r->err);
    }
    /* The same notebook with a good cell passes, and so does one that clones an address. */
    struct command_result *r = check_notebook(folder, T4, ARCHIVE_MARKDOWN, NULL, "!make help");
    if (r->exit_code != 0)
        fail_msg("a good notebook: status %d: %s%s", r->exit_code, r->out, r->err);
    r = check_notebook(folder, T4, "Clone it.",
                       "REPO_URL = 'https://github.com/someone/course.git'\n!git clone \"$REPO_URL\" course\n%cd course",
                       "!make help");
    if (r->exit_code != 0)
        fail_msg("a notebook that clones: status %d: %s%s", r->exit_code, r->out, r->err);
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
