/* The regeneration kernel: new paths from the camera, into a stream's empty slots. */

/* Fills the empty slots of stream `stream` (its count up to the capacity) from the queue, then
 * it is the next iteration's input. Thread t starts path next_path + t in slot count + t. */
__global__ void regenerate_kernel(struct path_stream paths, struct stream_counters *counters,
                                  int stream, int capacity, unsigned long long total_paths,
                                  struct spec_vec3 camera, int width, int height, int *work_left)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int count = counters->count[stream];
    unsigned long long queue_head = counters->next_path[stream];
    unsigned long long queued = total_paths - queue_head;
    int taken = (unsigned long long)(capacity - count) < queued ? capacity - count : (int)queued;
    if (t == 0) {
        counters->live = count + taken;
        counters->next_path[1 - stream] = queue_head + taken;
        counters->count[1 - stream] = 0; /* the next output starts empty */
        counters->iterations_with_work += count + taken > 0;
        if (work_left) /* the batch's last kernel: the host reads this */
            *work_left = count + taken > 0;
    }
    if (t >= taken)
        return;
    unsigned long long q = queue_head + (unsigned long long)t;
    unsigned long long pixels = (unsigned long long)width * (unsigned long long)height;
    int p = (int)(q % pixels);
    struct path path;
    path.pixel = (unsigned)p;
    path.frame = (unsigned)(q / pixels);
    path.segment = 0;
    pt_camera_ray(camera, width, height, p % width, p / width, path.frame, &path.ray.origin,
                  &path.ray.direction);
    path.attenuation = spec_v3(1.0f, 1.0f, 1.0f);
    store_path(paths, count + t, path);
}
