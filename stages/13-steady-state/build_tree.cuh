/* What a frame builds before its bands, on the host before the upload (build_tree_on_host) or on
 * the GPU after it (build_tree): nothing yet (stage 14's bins are launched with the bands; stage
 * 22 builds a tree over the spheres). So frames 2..N have no builds to report (steady_report). */
static void build_tree_on_host(struct frame_resources *, const struct scene *, struct report *) {}
static void build_tree(const struct frame_resources *, struct report *) {}
static struct report *steady_report(struct frame_resources *, struct report *) { return NULL; }
