/* The walk of a warp's rays from the camera as one packet: search_tree_together. */

/* The stack of a warp's walk, one entry a lane: entry e in lane e % 32, in register slot e / 32
 * (slots chosen by constant indices, so they stay in registers). A warp of fewer lanes (a block
 * whose threads are no multiple of 32) holds as many entries a slot as it has lanes: a warp of one
 * lane two, so that its walks of a deep tree finish over every sphere (exact, not fast). */
#define WARP_STACK_SLOTS ((TREE_STACK + 31) / 32)

/* Which lanes of the warp of thread `thread` (counted across the block) exist: all 32, but in the
 * last warp of a block whose thread count is no multiple of 32. */
__device__ inline unsigned int warp_lanes(int thread)
{
    const int count = blockDim.x * blockDim.y - thread / 32 * 32;
    return count >= 32 ? 0xffffffffu : (1u << count) - 1u;
}

/* Walks the tree for the warp's rays from the camera (direction d, a = d.d) together: each lane
 * with a pixel (`has_pixel`) tests the children of the node the warp is at for its own ray,
 * when the node is on its way (its bit in `reached`), as search_tree does. The warp goes on to the
 * child that most of the lanes entering any child enter first, with the lanes that enter it, and
 * pushes the other child with its lanes; with none to take, it pops. A lane whose best hit came
 * nearer since a child was pushed tests that child's children for nothing: their boxes, entered
 * past its best t, let it drop out one level later. Called by every lane of `lanes` with the
 * same scene. Returns the lane's sphere (or -1) and its t in *distance. */
__device__ __forceinline__ int search_tree_together(const Scene *scene, unsigned int lanes,
                                                    int lane, bool has_pixel, float3 direction,
                                                    float a, float *distance)
{
    float best = FAR_PLANE;
    const float3 origin = constant_camera.origin;
    const struct spec_bvh_cone cone =
        cone_of_walk(scene, spec_v3(origin.x, origin.y, origin.z),
                     spec_v3(direction.x, direction.y, direction.z), best);
    int hit = -1;
    int stack_node[WARP_STACK_SLOTS];
    unsigned int stack_lanes[WARP_STACK_SLOTS];
    const int lane_count = __popc(lanes);
    const int stack_size = lane_count * WARP_STACK_SLOTS < TREE_STACK
                               ? lane_count * WARP_STACK_SLOTS
                               : TREE_STACK;
    int top = 0;
    /* The node whose children are tested next, and the lanes whose walks reached it. */
    int current = scene->root;
    unsigned int reached = __ballot_sync(lanes, has_pixel);
    int children[2] = {scene->root, -1};
    int child_count = 1;
    if (current >= 0) {
        load_children(scene->nodes, current, children);
        child_count = 2;
    }
    for (;;) {
        const bool on_way = (reached >> lane) & 1u;
        float enter[2] = {INFINITY, INFINITY};
        if (on_way) {
#pragma unroll
            for (int k = 0; k < 2; k++) {
                if (k < child_count && children[k] >= 0) {
                    struct spec_bvh_node box;
                    load_child_box(scene->nodes, current, k, &box);
                    enter[k] = spec_bvh_cone_entry(&box, &cone, best);
                }
            }
#pragma unroll
            for (int k = 0; k < 2; k++) {
                const int child = children[k];
                if (k >= child_count || child >= 0) {
                    continue;
                }
                const float4 from_camera = __ldg(&scene->leaf_from_camera[~child]);
                const float3 oc = make_float3(from_camera.x, from_camera.y, from_camera.z);
                float t;
                if (!has_intersection(oc, from_camera.w, direction, a, &t)) {
                    continue;
                }
                if (t <= best) {
                    /* Only now the sphere's index: it decides a tie. */
                    const int s = __ldg(&scene->order[~child]);
                    if (t < best || (hit >= 0 && s < hit)) {
                        best = t;
                        hit = s;
                    }
                }
            }
        }
        /* A tree deeper than the warp's stack: the rest of each answer from every sphere. */
        if (top + 1 > stack_size) {
            if (!has_pixel) {
                return -1;
            }
            return every_sphere(scene, NEAREST_FROM_CAMERA, origin, direction, a, best, hit,
                                distance);
        }
        /* The votes: which children each lane enters before its best t, and which it enters
         * first. */
        const bool enters_left = enter[0] != INFINITY && !(enter[0] > best);
        const bool enters_right = enter[1] != INFINITY && !(enter[1] > best);
        const bool right_first = enters_right && (!enters_left || enter[1] < enter[0]);
        const unsigned int to_left = __ballot_sync(lanes, enters_left);
        const unsigned int to_right = __ballot_sync(lanes, enters_right);
        const unsigned int right_votes = __ballot_sync(lanes, right_first);
        const bool right_next = 2 * __popc(right_votes) > __popc(to_left | to_right);
        const unsigned int next_lanes = right_next ? to_right : to_left;
        const unsigned int later_lanes = right_next ? to_left : to_right;
        int next = -1;
        if (next_lanes != 0) {
            if (later_lanes != 0) {
                const int later = right_next ? children[0] : children[1];
#pragma unroll
                for (int slot = 0; slot < WARP_STACK_SLOTS; slot++) {
                    if (top == slot * lane_count + lane) {
                        stack_node[slot] = later;
                        stack_lanes[slot] = later_lanes;
                    }
                }
                top++;
            }
            next = right_next ? children[1] : children[0];
            reached = next_lanes;
        } else if (top > 0) {
            /* The last child pushed, read from the lane that holds it. */
            top--;
            int node = 0;
            unsigned int node_lanes = 0;
#pragma unroll
            for (int slot = 0; slot < WARP_STACK_SLOTS; slot++) {
                if (top / lane_count == slot) {
                    node = stack_node[slot];
                    node_lanes = stack_lanes[slot];
                }
            }
            next = __shfl_sync(lanes, node, top % lane_count);
            reached = __shfl_sync(lanes, node_lanes, top % lane_count);
        }
        if (next < 0) {
            break;
        }
        current = next;
        load_children(scene->nodes, current, children);
        child_count = 2;
    }
    *distance = best;
    return hit;
}
