/* The kernel: the block bounds its rays of each kind by a packet and lists the spheres the packet
 * may meet (packets.cuh); then one thread per pixel traces the primary ray, the shadow ray, the
 * reflection ray (each against its list) and the shadow ray where the reflection lands, lights the
 * point and stores its colour. */

/* Renders the rows first_row .. end_row - 1 of the image (one band); blockIdx.y counts from
 * first_row. */
__global__ void render_kernel(unsigned char *framebuffer, int sphere_count, int width, int height,
                              int first_row, int end_row)
{
    const Sphere *spheres = constant_spheres;
    const Light *light = &constant_light;
    const Camera *camera = &constant_camera;
    /* The block's packets and lists. Every thread of the block reaches every barrier below,
     * those past the image's edge too: they only take no part in the work between. */
    __shared__ Packet packets[3]; /* primary, shadow, reflection */
    __shared__ unsigned short primary_list[MAX_CONSTANT_SPHERES];
    __shared__ unsigned short shadow_list[MAX_CONSTANT_SPHERES];
    __shared__ unsigned short reflection_list[MAX_CONSTANT_SPHERES];
    __shared__ int list_counts[3];
    __shared__ int bounds[12];       /* origin min x y z, max x y z, then two direction sums */
    __shared__ int smallest_cosines[2]; /* shadow, reflection */
    const int thread = threadIdx.y * blockDim.x + threadIdx.x;
    const int block_threads = blockDim.x * blockDim.y;
    const int lanes_of_warp0 = block_threads < 32 ? block_threads : 32;
    const int warp_first = thread & ~31;
    const int warp_lanes = block_threads - warp_first < 32 ? block_threads - warp_first : 32;
    const unsigned warp_mask = warp_lanes == 32 ? 0xffffffffu : (1u << warp_lanes) - 1u;
    const float3 origin = camera->origin;

    if (thread == 0) {
        packets[0] = primary_packet(origin, width, height, first_row, end_row);
        for (int b = 0; b < 3; b++) {
            bounds[b] = ordered_int(INFINITY);
            bounds[3 + b] = ordered_int(-INFINITY);
        }
        for (int b = 6; b < 12; b++) {
            bounds[b] = 0;
        }
        smallest_cosines[0] = smallest_cosines[1] = ordered_int(1.0f);
    }
    __syncthreads();
    if (thread < 32) {
        const int count = build_list(&packets[0], sphere_count, primary_list, lanes_of_warp0);
        if (thread == 0) {
            list_counts[0] = count;
        }
    }
    __syncthreads();

    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = first_row + blockIdx.y * blockDim.y + threadIdx.y;
    const bool inside = i < width && j < end_row;
    const int pixel = j * width + i;

    const float x = 2.0f * ((float)i + 0.5f) / (float)(width - 1) - 1.0f;
    const float y = 1.0f - 2.0f * ((float)j + 0.5f) / (float)(height - 1);
    const float3 direction = sub3(make_float3(x, y, -1.0f), origin);

    float t = 0.0f;
    const int hit = inside ? closest_sphere_from_camera(direction, primary_list, list_counts[0], &t)
                           : -1;
    if (inside && hit < 0) {
        store_pixel(framebuffer, pixel, camera->background);
    }
    const bool shaded = hit >= 0;
    const Sphere *sphere = &spheres[shaded ? hit : 0];
    const float3 point = add3(origin, scale3(t, direction));
    const float3 normal = normalize3(sub3(point, sphere->center));
    const float3 to_viewer = normalize3(sub3(origin, point));
    const float3 to_light = normalize3(sub3(light->position, point));
    const float3 from_light = scale3(-1.0f, to_light);
    const float3 reflected_light =
        normalize3(sub3(from_light, scale3(2.0f * dot3(from_light, normal), normal)));
    const float3 lifted = add3(point, scale3(0.001f, normal));
    const float3 lifted_to_light = sub3(light->position, lifted);

    /* The secondary packets: the box around the lifted hit points, and the sums of the rays'
     * unit directions, reduced over each warp, then over the block with shared atomics. */
    const float3 shadow_unit = normalize3(lifted_to_light);
    const float inf = INFINITY;
    const int values[12] = {
        ordered_int(shaded ? lifted.x : inf),  ordered_int(shaded ? lifted.y : inf),
        ordered_int(shaded ? lifted.z : inf),  ordered_int(shaded ? lifted.x : -inf),
        ordered_int(shaded ? lifted.y : -inf), ordered_int(shaded ? lifted.z : -inf),
        shaded ? __float2int_rn(shadow_unit.x * AXIS_FIXED_POINT) : 0,
        shaded ? __float2int_rn(shadow_unit.y * AXIS_FIXED_POINT) : 0,
        shaded ? __float2int_rn(shadow_unit.z * AXIS_FIXED_POINT) : 0,
        shaded ? __float2int_rn(reflected_light.x * AXIS_FIXED_POINT) : 0,
        shaded ? __float2int_rn(reflected_light.y * AXIS_FIXED_POINT) : 0,
        shaded ? __float2int_rn(reflected_light.z * AXIS_FIXED_POINT) : 0};
    const bool warp_leader = thread == warp_first;
    for (int b = 0; b < 3; b++) {
        block_min(&bounds[b], values[b], warp_mask, warp_leader);
        block_max(&bounds[3 + b], values[3 + b], warp_mask, warp_leader);
    }
    for (int b = 6; b < 12; b++) {
        block_add(&bounds[b], values[b], warp_mask, warp_leader);
    }
    __syncthreads();
    if (thread == 0) {
        const float3 low = make_float3(ordered_float(bounds[0]), ordered_float(bounds[1]),
                                       ordered_float(bounds[2]));
        const float3 high = make_float3(ordered_float(bounds[3]), ordered_float(bounds[4]),
                                        ordered_float(bounds[5]));
        const float3 centre = scale3(0.5f, add3(low, high));
        const float3 half_size = scale3(0.5f, sub3(high, low));
        for (int p = 1; p < 3; p++) {
            const int sum = 6 + 3 * (p - 1);
            packets[p].origin_centre = centre;
            packets[p].origin_radius = sqrtf(dot3(half_size, half_size));
            packets[p].axis = normalize3(make_float3((float)bounds[sum], (float)bounds[sum + 1],
                                                     (float)bounds[sum + 2]));
        }
    }
    __syncthreads();
    /* Each packet's spread: the widest angle between its axis and one of its rays. */
    const int cosines[2] = {
        ordered_int(shaded ? dot3(packets[1].axis, shadow_unit) : 1.0f),
        ordered_int(shaded ? dot3(packets[2].axis, reflected_light) : 1.0f)};
    for (int p = 0; p < 2; p++) {
        block_min(&smallest_cosines[p], cosines[p], warp_mask, warp_leader);
    }
    __syncthreads();
    if (thread < 32) {
        if (thread == 0) {
            for (int p = 1; p < 3; p++) {
                packets[p].spread = acosf(fmaxf(ordered_float(smallest_cosines[p - 1]), -1.0f));
            }
        }
        __syncwarp(lanes_of_warp0 == 32 ? 0xffffffffu : (1u << lanes_of_warp0) - 1u);
        /* A block with no hit point has an empty box (its bounds are still infinite): no lists. */
        const bool any_hit = bounds[0] != ordered_int(INFINITY);
        const int shadow_count =
            any_hit ? build_list(&packets[1], sphere_count, shadow_list, lanes_of_warp0) : 0;
        const int reflection_count =
            any_hit ? build_list(&packets[2], sphere_count, reflection_list, lanes_of_warp0) : 0;
        if (thread == 0) {
            list_counts[1] = shadow_count;
            list_counts[2] = reflection_count;
        }
    }
    __syncthreads();
    if (!shaded) {
        return;
    }

    /* Phong lighting with exponent 32, as five squarings (docs/reference.md: same picture).
     * Worked out before the secondary rays, so that two floats, not the vectors they come
     * from, stay alive (in registers) across the shadow and reflection loops. */
    const float diffuse = fmaxf(dot3(to_light, normal), 0.0f);
    float specular = fmaxf(dot3(reflected_light, to_viewer), 0.0f);
    specular = specular * specular;
    specular = specular * specular;
    specular = specular * specular;
    specular = specular * specular;
    specular = specular * specular;

    /* Shadow: is anything between the point (lifted off the surface) and the light? */
    const float shadow = shadow_factor(lifted, lifted_to_light, shadow_list, list_counts[1]);

    /* Reflection: what the mirrored light direction sees from the point. */
    float3 reflection;
    float t_reflection;
    const int reflection_hit =
        closest_sphere(lifted, reflected_light, reflection_list, list_counts[2], &t_reflection);
    if (reflection_hit >= 0) {
        const Sphere *other = &spheres[reflection_hit];
        const float3 q = add3(lifted, scale3(t_reflection, reflected_light));
        const float3 q_normal = normalize3(sub3(q, other->center));
        const float3 q_lifted = add3(q, scale3(0.001f, q_normal));
        const float3 q_to_light = add3(sub3(light->position, q), scale3(0.001f, q_normal));
        const float reflection_shadow = shadow_factor(q_lifted, q_to_light, NULL, sphere_count);
        reflection = scale3(reflection_shadow, other->color);
    } else {
        reflection = make_float3(camera->background.x / 255.0f, camera->background.y / 255.0f,
                                 camera->background.z / 255.0f);
    }

    const float3 lighting = add3(add3(scale3(light->ambient, light->color),
                                      scale3(light->diffuse * diffuse, light->color)),
                                 scale3(light->specular * specular, light->color));
    const float3 surface = add3(scale3(0.55f, sub3(sphere->color, reflection)), reflection);
    const float3 all = mul3(cap3(lighting), cap3(surface));
    store_pixel(framebuffer, pixel, scale3(255.999f * shadow, all));
}
