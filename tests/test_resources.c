/* What the compiler's resource report (build/NN-name.resources.txt, ptxas -v) must show for the
 * lessons to be real; needs no GPU. */
#include "test_support.h"

#define MAX_ARCHS 32

struct kernel_resources {
    char arch[16];
    int registers, stack_frame, barriers;
    int spill_stores, spill_loads; /* bytes */
};

/* The render kernel's numbers for each architecture in a stage's report; returns the count. */
static int read_resources(const char *stage, struct kernel_resources *out)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s.resources.txt", test_build_dir(), stage);
    FILE *file = fopen(path, "r");
    if (!file) {
        print_message("# cannot open %s (run make first)\n", path);
        fail();
    }
    char line[1024];
    int count = 0, in_render_kernel = 0;
    while (fgets(line, sizeof line, file) && count < MAX_ARCHS) {
        const char *arch = strstr(line, "' for '");
        if (strstr(line, "Compiling entry function")) {
            in_render_kernel = strstr(line, "render_kernel") && arch;
            if (in_render_kernel) {
                sscanf(arch + strlen("' for '"), "%15[^']", out[count].arch);
                out[count].stack_frame = -1;
                out[count].registers = -1;
                out[count].spill_stores = out[count].spill_loads = 0;
            }
            continue;
        }
        if (!in_render_kernel)
            continue;
        const char *stack = strstr(line, " bytes stack frame");
        if (stack) {
            const char *number = stack;
            while (number > line && number[-1] >= '0' && number[-1] <= '9')
                --number;
            out[count].stack_frame = atoi(number);
            sscanf(stack, " bytes stack frame, %d bytes spill stores, %d bytes spill loads",
                   &out[count].spill_stores, &out[count].spill_loads);
        }
        const char *used = strstr(line, "Used ");
        if (used) {
            sscanf(used, "Used %d registers", &out[count].registers);
            const char *barriers = strstr(line, "used ");
            out[count].barriers = barriers ? atoi(barriers + 5) : 0;
            ++count;
            in_render_kernel = 0;
        }
    }
    fclose(file);
    assert_true(count > 0);
    return count;
}

static const struct kernel_resources *find_arch(const struct kernel_resources *list, int count,
                                                const char *arch)
{
    for (int k = 0; k < count; ++k)
        if (strcmp(list[k].arch, arch) == 0)
            return &list[k];
    return NULL;
}

static void stage_02_needs_fewer_registers_and_no_stack(void **state)
{
    (void)state;
    struct kernel_resources base[MAX_ARCHS], clean[MAX_ARCHS];
    int base_count = read_resources("01-base", base);
    int clean_count = read_resources("02-static-registers", clean);
    for (int k = 0; k < clean_count; ++k) {
        const struct kernel_resources *before = find_arch(base, base_count, clean[k].arch);
        assert_non_null(before);
        print_message("# %s: 01 uses %d registers and %d bytes of stack, 02 %d and %d\n",
                      clean[k].arch, before->registers, before->stack_frame, clean[k].registers,
                      clean[k].stack_frame);
        assert_true(before->stack_frame >= 19 * 4); /* the per-thread distance array */
        assert_int_equal(clean[k].stack_frame, 0);
        assert_true(clean[k].registers < before->registers);
    }
}

static void only_stage_07_synchronises_a_block(void **state)
{
    (void)state;
    struct kernel_resources list[MAX_ARCHS];
    int count = read_resources("06-no-framebuffer-upload", list);
    for (int k = 0; k < count; ++k)
        assert_int_equal(list[k].barriers, 0);
    count = read_resources("07-shared-spheres", list);
    for (int k = 0; k < count; ++k)
        assert_true(list[k].barriers >= 1); /* __syncthreads after filling shared memory */
}

/* Dynamic shared memory does not show in ptxas's report; the compiled code does: loads from
 * shared memory (ld.shared in the PTX) in stage 07's kernel and none in stage 06's. */
static int shared_loads_in(const char *stage)
{
    struct command_result *r = run_shell(
        "nvcc -ptx -arch=compute_75 -Icommon stages/%s/render.cu -o /dev/stdout | grep -c 'ld.shared'",
        stage);
    return atoi(r->out);
}

static void stage_07_reads_spheres_from_shared_memory(void **state)
{
    (void)state;
    int loads = shared_loads_in("07-shared-spheres");
    print_message("# stage 07: %d loads from shared memory in its PTX\n", loads);
    assert_true(loads > 0);
    assert_int_equal(shared_loads_in("06-no-framebuffer-upload"), 0);
}

/* Whether two blocks of 1024 threads fit on one multiprocessor of an architecture ("sm_90"):
 * not where it holds 1024 threads (7.5) or 1536 (8.6 to 8.9, 11.0, 12.x). Mirrors BLOCKS_PER_SM
 * in stages/07f-register-cap/render.cu. */
static int holds_two_blocks_of_1024(const char *arch)
{
    int capability = atoi(arch + strcspn(arch, "0123456789"));
    return !(capability == 75 || (capability >= 86 && capability < 90) || capability >= 110);
}

/* Stage 07f asks for 2 blocks of 1024 threads per multiprocessor: 65,536 registers / 2048
 * threads = 32 each, below stage 07's, so the rest spills to local memory. Where two blocks do
 * not fit, it asks for one and the compiler keeps stage 07's registers. */
static void stage_07f_fits_in_32_registers(void **state)
{
    (void)state;
    struct kernel_resources plain[MAX_ARCHS], capped[MAX_ARCHS];
    int plain_count = read_resources("07-shared-spheres", plain);
    int capped_count = read_resources("07f-register-cap", capped);
    int checked = 0;
    for (int k = 0; k < capped_count; ++k) {
        const struct kernel_resources *before = find_arch(plain, plain_count, capped[k].arch);
        assert_non_null(before);
        print_message("# %s: 07 uses %d registers, 07f %d with %d bytes of stack, %d bytes of "
                      "spill stores and %d of spill loads\n",
                      capped[k].arch, before->registers, capped[k].registers,
                      capped[k].stack_frame, capped[k].spill_stores, capped[k].spill_loads);
        assert_true(capped[k].registers <= before->registers);
        if (holds_two_blocks_of_1024(capped[k].arch)) {
            assert_true(capped[k].registers <= 32);
            assert_true(capped[k].registers < before->registers);
            ++checked;
        }
    }
    if (!checked)
        print_message("# no architecture in this build holds 2048 threads per multiprocessor: "
                      "only checked that 07f uses no more registers than 07\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stage_02_needs_fewer_registers_and_no_stack),
        cmocka_unit_test(only_stage_07_synchronises_a_block),
        cmocka_unit_test(stage_07_reads_spheres_from_shared_memory),
        cmocka_unit_test(stage_07f_fits_in_32_registers),
    };
    return cmocka_run_group_tests_name("resource usage", tests, NULL, NULL);
}
