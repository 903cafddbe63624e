/* PNG files made on every core: the image cut into one chunk of rows per thread, each chunk
 * filtered and deflated on its own thread (png_deflate.c), the streams put end to end behind one
 * zlib header, and the whole file returned in one buffer for one write (image.c). */
#ifndef PNG_ENCODE_H
#define PNG_ENCODE_H

#include <stddef.h>

#include "image/image.h"
#include "image/png_deflate.h"
#include "image/png_filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many threads, and chunks: each holds ISA-L's level buffer (about 0.3 MB) and its
 * own output. */
#define PNG_MAX_THREADS 64

/* With threads 0, an image is cut into chunks of at least this many bytes of rows: below it a
 * thread's start and the chunk's own deflate header and history cost more than they save. */
#define PNG_MIN_CHUNK_BYTES (1 << 20)

/* The IDAT chunks' largest payload: the compressed stream is cut into pieces of this size (the
 * PNG specification allows up to 2^31 - 1 bytes; decoders do not mind either way). */
#define PNG_IDAT_BYTES (1 << 20)

struct png_options {
    int threads;           /* 0: one per core, at most PNG_MAX_THREADS and one per
                            * PNG_MIN_CHUNK_BYTES; else that many (at most PNG_MAX_THREADS). Never
                            * more than the image has rows. */
    enum png_filter filter; /* every row's filter */
    size_t idat_bytes;     /* 0: PNG_IDAT_BYTES */
};

/* The encoder's defaults: what image_write() uses. */
struct png_options png_default_options(void);

/* Encodes an 8-bit RGB image as a PNG file in memory: *png (malloc'd; free() it), *png_bytes
 * long. Returns 0, or -1 with a one-line reason in error (out of memory, a deflate failure). */
int png_encode(const struct image *image, const struct png_options *options, unsigned char **png,
               size_t *png_bytes, char *error, size_t error_size);

/* How many chunks (and threads) png_encode() cuts the image into with these options. */
int png_chunk_count(const struct image *image, const struct png_options *options);

/* The PNG file of a width x height image from the deflated chunks of its rows, top to bottom
 * (png_deflate_rows(): each a raw stream ending in a sync flush, the last in the final block):
 * signature, IHDR, the zlib header, the streams end to end and the Adler-32 combined from the
 * chunks' own, in IDATs of at most idat_bytes (0: PNG_IDAT_BYTES), IEND. What png_encode()
 * does once its chunks are deflated. Returns the file (malloc'd; free() it), *png_bytes long, or
 * NULL when out of memory. */
unsigned char *png_assemble(int width, int height, const struct png_deflated *chunks, int count,
                            size_t idat_bytes, size_t *png_bytes);

/* ---- The same file, encoded while the rows arrive -------------------------------------------
 *
 * For a program whose rows reach the host in bands, top to bottom (stage 21a-streamed-png: each
 * band as its copy from the GPU ends). png_stream_start() cuts the image into chunks that follow
 * the bands (png_stream_chunks_of_band() chunks a band) and starts threads - 1 background threads
 * (options->threads, 0: one per core, at most PNG_MAX_THREADS). Each takes the next chunk in
 * order as soon as png_stream_rows_ready() has announced its rows, and deflates it
 * (png_deflate_rows()). png_stream_finish() makes the calling thread one more worker until every
 * chunk is done, then assembles the file (png_assemble()). The file is a PNG like png_encode()'s,
 * with the same filter and pixels; its bytes differ where its chunks do. */
struct png_stream;

/* Starts the encoder of an image whose rows are not there yet: image->rgb is where they will be,
 * and must stay there until png_stream_finish(); a row is read only once announced. band_rows:
 * the rows of a band (the last may be shorter). Returns NULL with a one-line reason in error
 * (out of memory, a bad size). */
struct png_stream *png_stream_start(const struct image *image, int band_rows,
                                    const struct png_options *options, char *error,
                                    size_t error_size);

/* Rows 0 .. rows - 1 are there and will not change. Safe from any thread (a CUDA host function
 * included: it takes a lock for a moment and calls no CUDA); rows never announced before are
 * never read. */
void png_stream_rows_ready(struct png_stream *stream, int rows);

/* Every row is there: deflates what is left on the calling thread beside the background ones,
 * joins them, and returns the file as png_encode() does: 0, or -1 with a one-line reason. Frees
 * the stream either way. */
int png_stream_finish(struct png_stream *stream, unsigned char **png, size_t *png_bytes,
                      char *error, size_t error_size);

/* The chunks of the stream, and the chunks a band of band_row_count rows is cut into, given the
 * threads: one per PNG_MIN_CHUNK_BYTES of filtered rows, at most threads, at least 1. */
int png_stream_chunk_count(const struct png_stream *stream);
int png_stream_chunks_of_band(int width, int band_row_count, int threads);

#ifdef __cplusplus
}
#endif

#endif
