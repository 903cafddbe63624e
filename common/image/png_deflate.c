#include "image/png_deflate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isa-l/igzip_lib.h>

/* Rows are filtered into a buffer of about this size, then deflated from it: small enough to stay
 * in the core's L2 cache between the filter, the Adler-32 and the deflate that read it, large
 * enough that ISA-L is called only every few rows (an 8192-pixel row is 24577 bytes). */
#define BATCH_BYTES (256 * 1024)

/* Makes room in the output for the next isal_deflate() call: the buffer doubles when full (on
 * the first call it is a quarter of the input; the benchmark image filtered with Up needs a
 * thirtieth, noise a little more than the input: ISA-L then writes stored blocks). ISA-L counts
 * the room left in 32 bits. */
static int make_room(struct isal_zstream *stream, struct png_deflated *out, size_t *capacity)
{
    size_t used = (size_t)(stream->next_out - out->data);
    if (used == *capacity) {
        size_t larger = *capacity * 2;
        unsigned char *grown = realloc(out->data, larger);
        if (!grown)
            return -1;
        out->data = grown;
        *capacity = larger;
    }
    size_t room = *capacity - used;
    stream->next_out = out->data + used;
    stream->avail_out = room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
    return 0;
}

/* Feeds one buffer of filtered rows to the deflate. Done when ISA-L has taken all the input and,
 * on the chunk's last buffer, written all it holds: up to the end of the final block (ZSTATE_END)
 * or the sync flush's empty stored block (ISA-L: room left in the output after a flush means the
 * flush is complete). */
static int deflate_buffer(struct isal_zstream *stream, int flushes, struct png_deflated *out,
                          size_t *capacity, char *error, size_t error_size)
{
    for (;;) {
        if (make_room(stream, out, capacity)) {
            snprintf(error, error_size, "out of memory for the compressed image");
            return -1;
        }
        int status = isal_deflate(stream);
        if (status != COMP_OK) {
            snprintf(error, error_size, "ISA-L's isal_deflate failed (status %d)", status);
            return -1;
        }
        if (stream->avail_in > 0)
            continue;
        if (!flushes)
            return 0;
        if (stream->end_of_stream ? stream->internal_state.state == ZSTATE_END
                                  : stream->avail_out > 0)
            return 0;
    }
}

int png_deflate_rows(const struct image *image, int first_row, int row_count,
                     enum png_filter filter, int last, struct png_deflated *out, char *error,
                     size_t error_size)
{
    memset(out, 0, sizeof *out);
    out->adler = 1; /* the Adler-32 of no bytes */
    size_t row_bytes = (size_t)image->width * 3, filtered_bytes = row_bytes + 1;
    size_t batch_rows = BATCH_BYTES / filtered_bytes ? BATCH_BYTES / filtered_bytes : 1;
    out->raw_bytes = (uint64_t)row_count * filtered_bytes;
    size_t capacity = (size_t)(out->raw_bytes / 4) + 4096;

    struct isal_zstream stream;
    unsigned char *batch = malloc(batch_rows * filtered_bytes);
    unsigned char *scratch = filter == PNG_FILTER_ADAPTIVE ? malloc(4 * filtered_bytes) : NULL;
    unsigned char *level_buffer = malloc(ISAL_DEF_LVL2_DEFAULT);
    out->data = malloc(capacity);
    int status = -1;
    if (!batch || (filter == PNG_FILTER_ADAPTIVE && !scratch) || !level_buffer || !out->data) {
        snprintf(error, error_size, "out of memory for the PNG encoder's buffers");
        goto done;
    }
    isal_deflate_init(&stream);
    stream.level = PNG_DEFLATE_LEVEL;
    stream.level_buf = level_buffer;
    stream.level_buf_size = ISAL_DEF_LVL2_DEFAULT;
    stream.gzip_flag = IGZIP_DEFLATE; /* raw: png_encode.c writes the one zlib header and trailer */
    stream.next_out = out->data;

    int end = first_row + row_count;
    for (int row = first_row; row < end;) {
        int rows = end - row < (int)batch_rows ? end - row : (int)batch_rows;
        for (int k = 0; k < rows; ++k) {
            const unsigned char *pixels = image->rgb + (size_t)(row + k) * row_bytes;
            png_filter_row(filter, pixels, row + k > 0 ? pixels - row_bytes : NULL, row_bytes,
                           batch + (size_t)k * filtered_bytes, scratch);
        }
        size_t bytes = (size_t)rows * filtered_bytes;
        out->adler = isal_adler32(out->adler, batch, bytes);
        row += rows;
        int final_batch = row == end;
        stream.next_in = batch;
        stream.avail_in = (uint32_t)bytes;
        stream.flush = final_batch && !last ? SYNC_FLUSH : NO_FLUSH;
        stream.end_of_stream = (uint16_t)(final_batch && last);
        if (deflate_buffer(&stream, final_batch, out, &capacity, error, error_size))
            goto done;
    }
    out->bytes = (size_t)(stream.next_out - out->data);
    status = 0;
done:
    free(batch);
    free(scratch);
    free(level_buffer);
    if (status) {
        free(out->data);
        out->data = NULL;
    }
    return status;
}
