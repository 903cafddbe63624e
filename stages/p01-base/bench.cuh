/* --record, which saves the paths before one segment, and the kernel benchmark
 * (build/<stage>-bench), which times each per-segment kernel alone on them. */

/* --record: the paths before segment `segment` of frame 0. */
static void record_paths(const struct pt_render_job *job, const struct device_paths *d,
                         int segment)
{
    struct pt_record record;
    if (pt_record_alloc(&record, job->width, job->height)) {
        fprintf(stderr, "%s: error: out of host memory for --record\n", stage_manifest.name);
        exit(1);
    }
    paths_to_record(d, &record);
    record.sample = 0;
    record.segment = segment;
    record.max_depth = job->max_depth;
    char error[PT_RECORD_ERROR_BYTES];
    if (pt_record_write(job->record_dir, job->scene_path, &record, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", stage_manifest.name, error);
        exit(1);
    }
    pt_record_free(&record);
}

/* The kernel benchmark: the recorded paths in this stage's layout, then each kernel alone. */
void stage_bench(const struct pt_record *record, const struct pt_scene *scene, int repeats,
                 struct pt_bench_times *times)
{
    struct pt_world world = pt_scene_world(scene, record->width, record->height);
    world.max_depth = record->max_depth;
    int count = record->width * record->height;
    times->active = 0;
    for (int p = 0; p < count; ++p)
        times->active += !record->done[p];

    struct device_paths d;
    paths_alloc(&d, count, world.sphere_count);
    paths_upload_scene(&d, &world);
    double *intersect_us = (double *)host_alloc_or_exit((size_t)repeats * sizeof(double), "times");
    double *scatter_us = (double *)host_alloc_or_exit((size_t)repeats * sizeof(double), "times");
    cudaEvent_t marks[3];
    for (int k = 0; k < 3; ++k)
        CUDA_CHECK(cudaEventCreate(&marks[k]));
    for (int r = 0; r < repeats; ++r) {
        paths_from_record(&d, record); /* the scatter kernel changed them */
        CUDA_CHECK(cudaEventRecord(marks[0], 0));
        launch_intersect(&d, &world, count);
        CUDA_CHECK(cudaEventRecord(marks[1], 0));
        launch_scatter(&d, &world, count, (unsigned)record->sample, record->segment);
        CUDA_CHECK(cudaEventRecord(marks[2], 0));
        CUDA_CHECK(cudaEventSynchronize(marks[2]));
        float ms[2];
        CUDA_CHECK(cudaEventElapsedTime(&ms[0], marks[0], marks[1]));
        CUDA_CHECK(cudaEventElapsedTime(&ms[1], marks[1], marks[2]));
        intersect_us[r] = ms[0] * 1000.0;
        scatter_us[r] = ms[1] * 1000.0;
    }
    check_heap(&d);
    pt_bench_median_min(intersect_us, repeats, times->intersect_us);
    pt_bench_median_min(scatter_us, repeats, times->scatter_us);
    for (int k = 0; k < 3; ++k)
        CUDA_CHECK(cudaEventDestroy(marks[k]));
    paths_free(&d);
    free(intersect_us);
    free(scatter_us);
}
