/* As many blocks as the GPU holds at once: every thread resident for the whole render. */
static int resident_blocks(const void *kernel)
{
    int device, sms, per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK_THREADS, 0));
    return sms * (per_sm > 0 ? per_sm : 1);
}
