/* The split of the rows from frame to frame: split_rows's even split (frame.cuh) for every frame. */

/* Before a frame after the first: the GPUs keep the rows they rendered the frame before. */
static void balance_rows(struct frame_resources *frame)
{
    (void)frame;
}
