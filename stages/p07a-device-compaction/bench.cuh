/* --record, which saves the paths before one segment, and the kernel benchmark
 * (build/<stage>-bench), which times each per-segment kernel alone on them. */

/* --record: the paths of frame 0 before segment `segment`, in the record's pixel order. The
 * render's streams mix samples and depths, so this pass of the same kernels renders frame 0
 * alone into streams that hold all its paths at once: after `segment` iterations every path
 * left is at that segment. Ended paths have added their colour to the sums, which are not
 * kept: the record's colour is 0 for them (the benchmark reads only the live paths). */
static void record_paths(const struct pt_render_job *job, int segment)
{
    const struct pt_world *world = &job->world;
    int pixels = job->width * job->height;
    struct device_paths d;
    paths_alloc(&d, pixels, pixels);
    paths_upload_scene(&d, world);
    launch_regenerate(&d, world, 0, (unsigned long long)pixels, NULL);
    int input = 0;
    for (int s = 0; s < segment; ++s) {
        launch_intersect(&d, world, input);
        launch_scatter(&d, world, input);
        launch_regenerate(&d, world, 1 - input, (unsigned long long)pixels, NULL);
        input = 1 - input;
    }
    struct stream_counters counters;
    CUDA_CHECK(cudaMemcpy(&counters, d.counters, sizeof counters, cudaMemcpyDeviceToHost));
    struct path_stream live;
    host_stream_alloc(&live, counters.live);
    stream_copy(live, d.streams[input], counters.live, cudaMemcpyDeviceToHost);

    struct pt_record record;
    if (pt_record_alloc(&record, job->width, job->height)) {
        fprintf(stderr, "%s: error: out of host memory for --record\n", stage_manifest.name);
        exit(1);
    }
    for (int p = 0; p < pixels; ++p) {
        record.origin[p] = record.direction[p] = spec_v3(0.0f, 0.0f, 0.0f);
        record.colour[p] = record.attenuation[p] = spec_v3(0.0f, 0.0f, 0.0f);
        record.done[p] = 1;
    }
    for (int i = 0; i < counters.live; ++i) {
        unsigned p = live.pixel[i];
        record.origin[p] = live.origin[i];
        record.direction[p] = live.direction[i];
        record.attenuation[p] = live.attenuation[i];
        record.done[p] = 0;
    }
    record.sample = 0;
    record.segment = segment;
    record.max_depth = job->max_depth;
    char error[PT_RECORD_ERROR_BYTES];
    if (pt_record_write(job->record_dir, job->scene_path, &record, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", stage_manifest.name, error);
        exit(1);
    }
    pt_record_free(&record);
    host_stream_free(&live);
    paths_free(&d);
}

/* The kernel benchmark: the recorded live paths packed into an input stream, as the compaction
 * leaves them, then each extension kernel alone over it. */
void stage_bench(const struct pt_record *record, const struct pt_scene *scene, int repeats,
                 struct pt_bench_times *times)
{
    struct pt_world world = pt_scene_world(scene, record->width, record->height);
    world.max_depth = record->max_depth;
    int count = record->width * record->height;
    struct path_stream live;
    host_stream_alloc(&live, count);
    times->active = 0;
    for (int p = 0; p < count; ++p) {
        if (record->done[p])
            continue;
        int i = times->active++;
        live.pixel[i] = (unsigned)p;
        live.frame[i] = (unsigned)record->sample;
        live.segment[i] = record->segment;
        live.origin[i] = record->origin[p];
        live.direction[i] = record->direction[p];
        live.attenuation[i] = record->attenuation[p];
    }

    struct device_paths d;
    paths_alloc(&d, times->active > 0 ? times->active : 1, count);
    paths_upload_scene(&d, &world);
    stream_copy(d.streams[0], live, times->active, cudaMemcpyHostToDevice);
    struct stream_counters counters = {{0, 0}, {0, 0}, 0, 0};
    counters.count[0] = counters.live = times->active;
    double *intersect_us = (double *)host_alloc_or_exit((size_t)repeats * sizeof(double), "times");
    double *scatter_us = (double *)host_alloc_or_exit((size_t)repeats * sizeof(double), "times");
    cudaEvent_t marks[3];
    for (int k = 0; k < 3; ++k)
        CUDA_CHECK(cudaEventCreate(&marks[k]));
    for (int r = 0; r < repeats; ++r) {
        /* The scatter kernel counted what it wrote to stream 1; the input it read is intact. */
        CUDA_CHECK(cudaMemcpy(d.counters, &counters, sizeof counters, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaEventRecord(marks[0], 0));
        launch_intersect(&d, &world, 0);
        CUDA_CHECK(cudaEventRecord(marks[1], 0));
        launch_scatter(&d, &world, 0);
        CUDA_CHECK(cudaEventRecord(marks[2], 0));
        CUDA_CHECK(cudaEventSynchronize(marks[2]));
        float ms[2];
        CUDA_CHECK(cudaEventElapsedTime(&ms[0], marks[0], marks[1]));
        CUDA_CHECK(cudaEventElapsedTime(&ms[1], marks[1], marks[2]));
        intersect_us[r] = ms[0] * 1000.0;
        scatter_us[r] = ms[1] * 1000.0;
    }
    pt_bench_median_min(intersect_us, repeats, times->intersect_us);
    pt_bench_median_min(scatter_us, repeats, times->scatter_us);
    for (int k = 0; k < 3; ++k)
        CUDA_CHECK(cudaEventDestroy(marks[k]));
    paths_free(&d);
    host_stream_free(&live);
    free(intersect_us);
    free(scatter_us);
}
