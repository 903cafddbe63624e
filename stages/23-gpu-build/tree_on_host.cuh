/* The tree built on the GPU (build_tree.cuh), from the spheres the upload sent: the hooks for a
 * tree built on the host (host.cuh's and upload.cuh's) do nothing. */
static void build_tree_on_host(struct frame_resources *, const struct scene *, struct report *) {}
static size_t upload_tree(const struct frame_resources *) { return 0; }
static void free_tree_on_host(struct frame_resources *) {}
