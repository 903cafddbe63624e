/* Tests of a stage's program made of parts (docs/adding-a-stage.md): tools/stages parts, make show
 * (tools/stage-show.sh) and make diff (tools/stage-diff.sh) on a made-up stage tree, the rules
 * tools/stages check holds parts to, that a shown program compiles to its stage's device code, the
 * sizes the layout keeps to, and the committed proof that the layout changed no stage's code or
 * image. No GPU needed; the compilation test needs nvcc and python3. Run from the repository root.
 */
#include "test_support.h"

#define READER "tools/stages"
#define SHOW "tools/stage-show.sh"
#define DIFF "tools/stage-diff.sh"

/* A made-up stage NAME in DIR building on BUILDS_ON, its render.cu holding RENDER and each part a
 * file of its folder: PARTS is "name.cuh=text|name.cuh=text" (or NULL). */
static void stage_with_parts(const char *dir, const char *name, const char *builds_on, const char *render,
                             const char *parts)
{
    make_fake_stage(dir, name, builds_on, NULL, NULL, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/%s/render.cu", dir, name);
    test_write_file(path, render);
    char list[2048];
    snprintf(list, sizeof list, "%s", parts ? parts : "");
    for (char *item = strtok(list, "|"); item; item = strtok(NULL, "|")) {
        char *text = strchr(item, '=');
        assert_non_null(text);
        *text++ = '\0';
        snprintf(path, sizeof path, "%s/%s/%s", dir, name, item);
        test_write_file(path, text);
    }
}

/* The first stage's two parts; the second inherits a.cuh and replaces b.cuh. a.cuh is long enough
 * (ten lines) that the diff's two changes, in render.cu and in b.cuh, are hunks of their own. */
#define A_FILLER "int a1;\nint a2;\nint a3;\nint a4;\nint a5;\nint a6;\nint a7;\nint a8;\nint a9;\n"
static char *two_stage_tree(void)
{
    char *dir = make_temporary_folder();
    stage_with_parts(dir, "01-first", "none", "/* first */\n#include \"a.cuh\"\n#include \"b.cuh\"\nint tail = 1;\n",
                     "a.cuh=int a_part = 1;\n" A_FILLER "|b.cuh=int b_part = 1;\n");
    stage_with_parts(dir, "02-second", "01-first",
                     "/* second */\n#include \"../01-first/a.cuh\"\n#include \"b.cuh\"\nint tail = 1;\n",
                     "b.cuh=int b_part = 2;\n");
    return dir;
}

static void a_stage_inherits_some_parts_and_replaces_others(void **state)
{
    (void)state;
    char *dir = two_stage_tree();
    struct command_result *r = run_shell("STAGES_DIR='%s' " READER " parts 2", dir);
    assert_int_equal(r->exit_code, 0);
    char expected[2048];
    snprintf(expected, sizeof expected, "%s/02-second/render.cu\n%s/01-first/a.cuh\n%s/02-second/b.cuh\n", dir, dir,
             dir);
    assert_string_equal(r->out, expected);
    assert_int_equal(run_shell("STAGES_DIR='%s' " READER " check", dir)->exit_code, 0);

    /* make show: render.cu with each part in place, between lines that name its file. */
    r = run_shell(SHOW " --stages '%s' 2", dir);
    assert_int_equal(r->exit_code, 0);
    snprintf(expected, sizeof expected,
             "/* second */\n/* ======== %s/01-first/a.cuh ======== */\nint a_part = 1;\n" A_FILLER
             "/* ======== end of %s/01-first/a.cuh ======== */\n/* ======== %s/02-second/b.cuh ======== */\n"
             "int b_part = 2;\n/* ======== end of %s/02-second/b.cuh ======== */\nint tail = 1;\n",
             dir, dir, dir, dir);
    assert_string_equal(r->out, expected);

    /* make diff: the whole programs, so the inherited part shows nowhere and the replaced one's
     * change is named by its file. */
    r = run_shell(DIFF " --stages '%s' 2", dir);
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->out, "--- 01-first (make show STAGE=1)\n+++ 02-second (make show STAGE=2)\n"));
    assert_non_null(strstr(r->out, "-/* first */\n+/* second */\n"));
    assert_non_null(strstr(r->out, "-int b_part = 1;\n+int b_part = 2;\n"));
    snprintf(expected, sizeof expected, " @@ %s/02-second/b.cuh\n", dir);
    assert_non_null(strstr(r->out, expected));
    assert_null(strstr(r->out, "+int a_part"));
    assert_null(strstr(r->out, "-int a_part"));
    remove_temporary_folder(dir);
}

/* tools/new-stage.sh: a stage that renders what its parent does, its parent's parts included by
 * where they lie, the part it is to change copied in and included by its bare name. */
static void a_new_stage_starts_as_its_parent(void **state)
{
    (void)state;
    char *dir = two_stage_tree();
    struct command_result *r = run_shell("STAGES_DIR='%s' tools/new-stage.sh 2 03-third --own b.cuh", dir);
    if (r->exit_code != 0)
        fail_msg("tools/new-stage.sh: %s", r->err);
    char path[512], text[4096];
    snprintf(path, sizeof path, "%s/03-third/render.cu", dir);
    test_read_file(path, text, sizeof text);
    assert_non_null(strstr(text, "#include \"../01-first/a.cuh\"\n#include \"b.cuh\"\n"));
    snprintf(path, sizeof path, "%s/03-third/b.cuh", dir);
    test_read_file(path, text, sizeof text);
    assert_string_equal(text, "int b_part = 2;\n");
    snprintf(path, sizeof path, "%s/03-third/manifest", dir);
    test_read_file(path, text, sizeof text);
    assert_non_null(strstr(text, "\nbuilds-on: 02-second\n"));
    /* The same program as its parent's: make diff shows nothing but the render.cu it copied. */
    r = run_shell(DIFF " --stages '%s' 3", dir);
    assert_null(strstr(r->out, "int b_part"));
    assert_null(strstr(r->out, "int a_part"));
    /* Refused in one line: a name taken, a part the parent does not include. */
    r = run_shell("STAGES_DIR='%s' tools/new-stage.sh 2 03-third", dir);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "exists already"));
    r = run_shell("STAGES_DIR='%s' tools/new-stage.sh 2 04-fourth --own nothing.cuh", dir);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "includes no part nothing.cuh"));
    remove_temporary_folder(dir);
}

/* One line naming the problem, status 2, for a part of a stage off the line it builds on, a part
 * that includes a part, and a part that is not there. */
static void check_refuses_parts_from_elsewhere(void **state)
{
    (void)state;
    char *dir = two_stage_tree();
    stage_with_parts(dir, "02a-side", "01-first", "/* side */\n#include \"../02-second/b.cuh\"\n", NULL);
    struct command_result *r = run_shell("STAGES_DIR='%s' " READER " check", dir);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "02a-side/manifest: render.cu includes"));
    assert_non_null(strstr(r->err, "02-second/b.cuh, a part of 02-second, which is not a stage it builds on"));
    /* also-builds-on names a second line whose parts it may include (stage 43: 33's frame with
     * 41's split): the same part is then the stage's to include; a stage that is not there, or
     * that comes after it, is refused. */
    char manifest[512];
    snprintf(manifest, sizeof manifest, "%s/02a-side/manifest", dir);
    r = run_shell("printf 'also-builds-on: 02-second\\n' >> '%s' && STAGES_DIR='%s' " READER " check", manifest, dir);
    if (r->exit_code != 0)
        fail_msg("also-builds-on: 02-second did not let 02a-side include b.cuh: %s", r->err);
    remove_temporary_folder(dir);
    dir = two_stage_tree();
    stage_with_parts(dir, "02a-side", "01-first", "/* side */\n#include \"../02-second/b.cuh\"\n", NULL);
    stage_with_parts(dir, "03-later", "02-second", "/* later */\n", NULL);
    snprintf(manifest, sizeof manifest, "%s/02a-side/manifest", dir);
    r = run_shell("printf 'also-builds-on: 03-later 05-none\\n' >> '%s' && STAGES_DIR='%s' " READER " check",
                  manifest, dir);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "also-builds-on names '03-later', which does not come before it"));
    assert_non_null(strstr(r->err, "also-builds-on names '05-none', which is not a stage folder"));
    remove_temporary_folder(dir);

    dir = two_stage_tree();
    char path[512];
    snprintf(path, sizeof path, "%s/02-second/b.cuh", dir);
    test_write_file(path, "#include \"../01-first/a.cuh\"\nint b_part = 2;\n");
    r = run_shell("STAGES_DIR='%s' " READER " check", dir);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "02-second/b.cuh includes another part: only render.cu includes parts"));
    remove_temporary_folder(dir);

    dir = two_stage_tree();
    stage_with_parts(dir, "03-third", "02-second", "/* third */\n#include \"gone.cuh\"\n", NULL);
    r = run_shell("STAGES_DIR='%s' " READER " parts 3", dir);
    assert_int_equal(r->exit_code, 2);
    assert_int_equal(line_count(r->err), 1);
    assert_non_null(strstr(r->err, "includes \"gone.cuh\": no such file"));
    r = run_shell(SHOW " --stages '%s' 3", dir);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "gone.cuh"));
    remove_temporary_folder(dir);
}

/* The .text sections of two cubins (every function's machine code), compared by python3. */
#define SAME_CODE_SCRIPT                                                                                     \
    "python3 - \"$1\" \"$2\" <<'PY'\n"                                                                       \
    "import struct, sys\n"                                                                                   \
    "def code(path):\n"                                                                                      \
    "    data = open(path, 'rb').read()\n"                                                                   \
    "    shoff, = struct.unpack_from('<Q', data, 0x28)\n"                                                    \
    "    size, count, names = struct.unpack_from('<HHH', data, 0x3a)\n"                                      \
    "    heads = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * size) for i in range(count)]\n"        \
    "    table = heads[names]\n"                                                                             \
    "    def name(h):\n"                                                                                     \
    "        start = table[4] + h[0]\n"                                                                      \
    "        return data[start:data.index(b'\\0', start)].decode()\n"                                        \
    "    return {name(h): data[h[4]:h[4] + h[5]] for h in heads if name(h).startswith('.text.')}\n"          \
    "a, b = code(sys.argv[1]), code(sys.argv[2])\n"                                                          \
    "sys.exit(0 if a and a == b else 1)\n"                                                                   \
    "PY\n"

/* make show's whole program compiles to the same machine code as the stage's render.cu. */
static void a_shown_program_compiles_to_the_stage_code(void **state)
{
    (void)state;
    if (run_shell("command -v nvcc && command -v python3")->exit_code != 0) {
        print_message("# skipped: needs nvcc and python3\n");
        skip();
    }
    const char *stages[] = {"31-compact-nodes", "p09-path-regeneration"};
    for (size_t i = 0; i < sizeof stages / sizeof *stages; i++) {
        char *dir = make_temporary_folder();
        struct command_result *r = run_shell(
            "set -e; d='%s'; s='%s'; flags='-O3 -std=c++17 -fmad=false -arch=sm_75 -Icommon -I/usr/include/stb';"
            SHOW " \"$s\" > \"$d/shown.cu\"; nvcc $flags -cubin \"stages/$s/render.cu\" -o \"$d/stage.cubin\";"
            "nvcc $flags -cubin \"$d/shown.cu\" -o \"$d/shown.cubin\"; set -- \"$d/stage.cubin\" \"$d/shown.cubin\";"
            SAME_CODE_SCRIPT,
            dir, stages[i]);
        if (r->exit_code != 0)
            fail_msg("%s: make show's program does not compile to the stage's code (status %d): %.2000s", stages[i],
                     r->exit_code, r->err);
        remove_temporary_folder(dir);
    }
}

/* The layout's ceilings (issue "a stage is its lesson"): the last ten stages of chapter 4 at most
 * 500 lines of their own, every stage folder together at most 26,000, with common/ 34,500. The
 * totals grow with every stage (25,000 and 33,000 when the layout landed at 88 stages; raised at
 * 95, with chapter 6's stages 40-42 and p07b): they catch a copy of a parent, not a new lesson. */
static void stages_keep_to_their_sizes(void **state)
{
    (void)state;
    struct command_result *r = run_shell("tools/lab/stage-sizes.sh");
    assert_int_equal(r->exit_code, 0);
    static char table[TEST_OUTPUT_BYTES];
    snprintf(table, sizeof table, "%s", r->out);
    char *cursor = table, *line;
    long total_stages = -1, total = -1;
    int checked = 0;
    while ((line = next_line(&cursor)) != NULL) {
        char name[128];
        long own;
        if (sscanf(line, "%127s %ld", name, &own) != 2)
            continue;
        if (strcmp(name, "total-stages") == 0)
            total_stages = own;
        else if (strcmp(name, "total-stages-and-common") == 0)
            total = own;
        else if (name[0] >= '2' && name[0] <= '3' && name[2] == '-' &&
                 atoi(name) >= 22 && atoi(name) <= 31) {
            if (own > 500)
                fail_msg("%s holds %ld lines of its own source (at most 500)", name, own);
            ++checked;
        }
    }
    assert_true(checked >= 10);
    if (total_stages < 0 || total_stages > 26000)
        fail_msg("the stage folders hold %ld lines of source together (at most 26,000)", total_stages);
    if (total < 0 || total > 34500)
        fail_msg("stages/ and common/ hold %ld lines of source together (at most 34,500)", total);
}

/* results/reference/sass-identity.tsv (tools/lab/sass-identity.sh), the proof of the layout
 * change: a line for each of the 74 stages the course had then, each a stage folder of today's
 * (renamed ones under their new names), whose device code and image are identical to the revision
 * before the layout, or changed with a reason. Stages added since have no line: they had no
 * earlier code to compare with. */
#define STAGES_AT_THE_LAYOUT_CHANGE 74
static void the_identity_record_names_every_stage(void **state)
{
    (void)state;
    static char record[TEST_OUTPUT_BYTES];
    test_read_file("results/reference/sass-identity.tsv", record, sizeof record);
    assert_true(strncmp(record, "stage\tdevice_code\timage\treason\n", 31) == 0);
    struct stage_list list;
    list_stages("stages", &list);
    int lines = 0;
    char *cursor = strchr(record, '\n') + 1, *line;
    while ((line = next_line(&cursor)) != NULL) {
        if (line[0] == '\0')
            continue;
        char stage[128], code[32], image[32], reason[512] = "";
        int fields = sscanf(line, "%127[^\t]\t%31[^\t]\t%31[^\t\n]\t%511[^\n]", stage, code, image, reason);
        assert_true(fields >= 3);
        int known = 0;
        for (int i = 0; i < list.count && !known; ++i)
            known = strcmp(list.names[i], stage) == 0;
        if (!known)
            fail_msg("results/reference/sass-identity.tsv names %s, which is no stage folder", stage);
        int code_same = strcmp(code, "identical") == 0, image_same = strcmp(image, "identical") == 0;
        if ((!code_same && strcmp(code, "changed") != 0) || (!image_same && strcmp(image, "changed") != 0))
            fail_msg("%s: device code '%s', image '%s' (identical or changed, each)", stage, code, image);
        if (!(code_same && image_same) && reason[0] == '\0')
            fail_msg("%s changed without a reason in results/reference/sass-identity.tsv", stage);
        lines++;
    }
    if (lines != STAGES_AT_THE_LAYOUT_CHANGE)
        fail_msg("results/reference/sass-identity.tsv has %d stages' lines, the layout change had %d", lines,
                 STAGES_AT_THE_LAYOUT_CHANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_stage_inherits_some_parts_and_replaces_others),
        cmocka_unit_test(check_refuses_parts_from_elsewhere),
        cmocka_unit_test(a_new_stage_starts_as_its_parent),
        cmocka_unit_test(a_shown_program_compiles_to_the_stage_code),
        cmocka_unit_test(stages_keep_to_their_sizes),
        cmocka_unit_test(the_identity_record_names_every_stage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
