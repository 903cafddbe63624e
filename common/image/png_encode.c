#include "image/png_encode.h"

#include "image/adler32_combine.h"
#include "image/png_deflate.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <isa-l/crc.h>

/* The row filter, measured on the 8192x8192 benchmark image (build/cpu-reference --size
 * 8192x8192 --output b.ppm, then build/png-bench --input b.ppm --runs 7; a 2-core Xeon VM,
 * medians of 7 encodes into memory, ISA-L level 2):
 *
 *   filter            1 thread   2 threads   file (2 chunks)
 *   none                 94 ms     59-66 ms   9,756,263 bytes
 *   Sub                  96 ms     58-66 ms   7,133,857 bytes
 *   Up                   88 ms     53-73 ms   6,505,005 bytes
 *   Paeth               400 ms   214-272 ms   6,669,610 bytes
 *   per row, libpng's   700 ms   364-442 ms   6,148,913 bytes  (PNG_FILTER_ADAPTIVE)
 *   heuristic
 *   before issue 25     218-229 ms, 1 thread  9,748,288 bytes  (stb_image_write, filter none)
 *
 * Up is the fastest and a third smaller than before: the background and the floor's shading
 * change little from one row to the next, so Up leaves mostly zeros and small numbers, which
 * deflate finds faster than the 3-byte repeats of unfiltered pixels. Filter none would be 8 to
 * 10 KB larger than before, even on one thread (likely because the stateful deflate, fed 256 KB at
 * a time, ends its blocks elsewhere than one stateless call did). Paeth and the per-row choice
 * cost more than the whole deflate (Paeth is not vectorised); the per-row choice would save 5%
 * more. ISA-L level 1 with Up: 6,505,664 bytes and no faster (94 ms on 2 threads); level 3:
 * 6,788,223 bytes in 164 ms. The rows go to the deflate in batches of 256 KB: 128 KB to 4 MB
 * measured the same (a later run of png-bench is results/reference/host-2core-vm/png-write.txt).
 * On an H100's 16-core host, stage 21 writes the benchmark's PNG in 22 ms, median of 15
 * (results/reference/nvidia-h100-80gb-hbm3/image-write/write-cost.txt). */
struct png_options png_default_options(void)
{
    struct png_options options = {0, PNG_FILTER_UP, 0};
    return options;
}

int png_chunk_count(const struct image *image, const struct png_options *options)
{
    int chunks = options->threads;
    if (chunks <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        chunks = cores < 1 ? 1 : cores < PNG_MAX_THREADS ? (int)cores : PNG_MAX_THREADS;
        uint64_t raw_bytes = (uint64_t)image->height * (1 + 3 * (uint64_t)image->width);
        uint64_t by_size = raw_bytes / PNG_MIN_CHUNK_BYTES;
        if ((uint64_t)chunks > by_size)
            chunks = by_size > 0 ? (int)by_size : 1;
    }
    if (chunks > PNG_MAX_THREADS)
        chunks = PNG_MAX_THREADS;
    if (chunks > image->height)
        chunks = image->height;
    return chunks;
}

/* One chunk of rows and what its thread made of it. */
struct chunk {
    const struct image *image;
    int first_row, row_count, last;
    enum png_filter filter;
    struct png_deflated deflated;
    int status;
    char error[IMAGE_ERROR_BYTES];
    pthread_t thread;
};

static void *deflate_chunk(void *argument)
{
    struct chunk *chunk = argument;
    chunk->status = png_deflate_rows(chunk->image, chunk->first_row, chunk->row_count,
                                     chunk->filter, chunk->last, &chunk->deflated, chunk->error,
                                     sizeof chunk->error);
    return NULL;
}

/* Every chunk deflated: chunks 1.. on threads of their own, chunk 0 on the calling thread, and
 * any chunk whose thread could not start after it, on the calling thread too. */
static void deflate_chunks(struct chunk *chunks, int count)
{
    int started[PNG_MAX_THREADS] = {0};
    for (int k = 1; k < count; ++k)
        started[k] = pthread_create(&chunks[k].thread, NULL, deflate_chunk, &chunks[k]) == 0;
    deflate_chunk(&chunks[0]);
    for (int k = 1; k < count; ++k) {
        if (started[k]) {
            int joined = pthread_join(chunks[k].thread, NULL);
            if (joined != 0) { /* cannot happen for a thread this function started; never ignored */
                chunks[k].status = -1;
                snprintf(chunks[k].error, sizeof chunks[k].error, "pthread_join: %s",
                         strerror(joined));
            }
        } else {
            deflate_chunk(&chunks[k]);
        }
    }
}

static unsigned char *put_u32(unsigned char *at, uint32_t value)
{
    at[0] = (unsigned char)(value >> 24), at[1] = (unsigned char)(value >> 16);
    at[2] = (unsigned char)(value >> 8), at[3] = (unsigned char)value;
    return at + 4;
}

/* A PNG chunk's CRC-32 covers its type and its data; type points at the type. ISA-L's
 * crc32_gzip_refl is the CRC-32 of gzip, zlib and PNG. */
static unsigned char *end_chunk(unsigned char *type, unsigned char *end)
{
    return put_u32(end, crc32_gzip_refl(0, type, (uint64_t)(end - type)));
}

/* Writes the zlib stream into IDAT chunks of at most idat_bytes each, as it comes. */
struct idat_writer {
    unsigned char *at;   /* the next byte of the file */
    unsigned char *type; /* the open IDAT's type field */
    size_t open_left;    /* bytes the open IDAT still takes */
    size_t stream_left;  /* bytes of the zlib stream not yet written */
    size_t idat_bytes;
};

static void idat_write(struct idat_writer *w, const unsigned char *data, size_t bytes)
{
    while (bytes > 0) {
        if (w->open_left == 0) {
            w->open_left = w->stream_left < w->idat_bytes ? w->stream_left : w->idat_bytes;
            w->at = put_u32(w->at, (uint32_t)w->open_left);
            w->type = w->at;
            memcpy(w->at, "IDAT", 4);
            w->at += 4;
        }
        size_t take = bytes < w->open_left ? bytes : w->open_left;
        memcpy(w->at, data, take);
        w->at += take, data += take, bytes -= take;
        w->open_left -= take, w->stream_left -= take;
        if (w->open_left == 0)
            w->at = end_chunk(w->type, w->at);
    }
}

/* The file: signature, IHDR, the IDATs holding the zlib header (CMF 0x78: deflate with a 32 KiB
 * window; FLG 0x01: "fastest" and the header's check bits), the chunks' deflate streams end to
 * end and the Adler-32 of all the filtered rows, combined from the chunks' own; then IEND. */
unsigned char *png_assemble(int width, int height, const struct png_deflated *chunks, int count,
                            size_t idat_bytes, size_t *png_bytes)
{
    static const unsigned char zlib_header[2] = {0x78, 0x01};
    if (idat_bytes == 0)
        idat_bytes = PNG_IDAT_BYTES;
    size_t stream_bytes = sizeof zlib_header + 4;
    uint32_t adler = 1;
    for (int k = 0; k < count; ++k) {
        stream_bytes += chunks[k].bytes;
        adler = adler32_combine(adler, chunks[k].adler, chunks[k].raw_bytes);
    }
    size_t idat_count = (stream_bytes + idat_bytes - 1) / idat_bytes;
    size_t total = 8 + (12 + 13) + stream_bytes + 12 * idat_count + 12;
    unsigned char *png = malloc(total);
    if (!png)
        return NULL;
    unsigned char *at = png;
    memcpy(at, "\x89PNG\r\n\x1a\n", 8);
    at = put_u32(at + 8, 13);
    unsigned char *type = at;
    memcpy(at, "IHDR", 4);
    at = put_u32(at + 4, (uint32_t)width);
    at = put_u32(at, (uint32_t)height);
    /* 8 bits per channel, colour type 2 (RGB), deflate, adaptive filtering (per-row filter
     * bytes), no interlacing. */
    memcpy(at, "\x08\x02\x00\x00\x00", 5);
    at = end_chunk(type, at + 5);

    struct idat_writer w = {at, NULL, 0, stream_bytes, idat_bytes};
    idat_write(&w, zlib_header, sizeof zlib_header);
    for (int k = 0; k < count; ++k)
        idat_write(&w, chunks[k].data, chunks[k].bytes);
    unsigned char trailer[4];
    put_u32(trailer, adler);
    idat_write(&w, trailer, sizeof trailer);

    at = put_u32(w.at, 0);
    memcpy(at, "IEND", 4);
    at = end_chunk(at, at + 4);
    *png_bytes = (size_t)(at - png);
    return png;
}

int png_encode(const struct image *image, const struct png_options *options, unsigned char **png,
               size_t *png_bytes, char *error, size_t error_size)
{
    *png = NULL;
    *png_bytes = 0;
    if (image->width < 1 || image->height < 1) {
        snprintf(error, error_size, "cannot encode an image of %dx%d pixels as PNG", image->width,
                 image->height);
        return -1;
    }
    int count = png_chunk_count(image, options);
    struct chunk *chunks = calloc((size_t)count, sizeof *chunks);
    if (!chunks) {
        snprintf(error, error_size, "out of memory for the PNG encoder");
        return -1;
    }
    for (int k = 0; k < count; ++k) {
        /* Rows shared out evenly: chunk k takes rows [k * height / count, (k + 1) * ...). */
        int first = (int)((long long)k * image->height / count);
        int next = (int)((long long)(k + 1) * image->height / count);
        chunks[k] = (struct chunk){.image = image, .first_row = first, .row_count = next - first,
                                   .last = k == count - 1, .filter = options->filter};
    }
    deflate_chunks(chunks, count);
    int status = 0;
    for (int k = 0; k < count && status == 0; ++k)
        if (chunks[k].status) {
            snprintf(error, error_size, "%s", chunks[k].error);
            status = -1;
        }
    if (status == 0) {
        struct png_deflated deflated[PNG_MAX_THREADS];
        for (int k = 0; k < count; ++k)
            deflated[k] = chunks[k].deflated;
        *png = png_assemble(image->width, image->height, deflated, count, options->idat_bytes,
                            png_bytes);
        if (!*png) {
            snprintf(error, error_size, "out of memory for the PNG file");
            status = -1;
        }
    }
    for (int k = 0; k < count; ++k)
        free(chunks[k].deflated.data);
    free(chunks);
    return status;
}

/* ---- The same file from rows that arrive in bands (png_stream_*, png_encode.h) -------------- */

struct png_stream {
    struct image image; /* its size and where its rows will be; they are read once announced */
    enum png_filter filter;
    size_t idat_bytes;
    int chunk_count;
    int *first_rows;                /* chunk k: rows first_rows[k] .. first_rows[k + 1] - 1 */
    struct png_deflated *deflated;  /* what chunk k became */
    int *status;                    /* png_deflate_rows()'s for chunk k */
    char (*errors)[IMAGE_ERROR_BYTES];
    pthread_mutex_t lock;
    pthread_cond_t arrived; /* broadcast when rows_ready grows */
    int rows_ready;         /* under lock: rows 0 .. rows_ready - 1 are there */
    int next_chunk;         /* under lock: the first chunk no thread has taken */
    int thread_count;       /* background threads started */
    pthread_t threads[PNG_MAX_THREADS];
};

/* Takes the chunks in order, each once its rows (and the row above, which the filter reads) are
 * there, until none is left: the background threads' loop, and the finishing thread's. */
static void stream_work(struct png_stream *s)
{
    pthread_mutex_lock(&s->lock);
    while (s->next_chunk < s->chunk_count) {
        int k = s->next_chunk;
        if (s->rows_ready < s->first_rows[k + 1]) {
            pthread_cond_wait(&s->arrived, &s->lock);
            continue;
        }
        s->next_chunk++;
        pthread_mutex_unlock(&s->lock);
        s->status[k] = png_deflate_rows(&s->image, s->first_rows[k],
                                        s->first_rows[k + 1] - s->first_rows[k], s->filter,
                                        k == s->chunk_count - 1, &s->deflated[k], s->errors[k],
                                        sizeof s->errors[k]);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
}

static void *stream_thread(void *argument)
{
    stream_work(argument);
    return NULL;
}

static void stream_free(struct png_stream *s)
{
    if (s->deflated)
        for (int k = 0; k < s->chunk_count; ++k)
            free(s->deflated[k].data);
    free(s->first_rows);
    free(s->deflated);
    free(s->status);
    free(s->errors);
    free(s);
}

int png_stream_chunks_of_band(int width, int band_row_count, int threads)
{
    uint64_t band_bytes = (uint64_t)band_row_count * (1 + 3 * (uint64_t)width);
    uint64_t pieces = band_bytes / PNG_MIN_CHUNK_BYTES;
    if (pieces > (uint64_t)threads)
        pieces = (uint64_t)threads;
    if (pieces > (uint64_t)band_row_count)
        pieces = (uint64_t)band_row_count;
    return pieces > 0 ? (int)pieces : 1;
}

struct png_stream *png_stream_start(const struct image *image, int band_rows,
                                    const struct png_options *options, char *error,
                                    size_t error_size)
{
    if (image->width < 1 || image->height < 1 || band_rows < 1) {
        snprintf(error, error_size, "cannot encode an image of %dx%d pixels in bands of %d rows",
                 image->width, image->height, band_rows);
        return NULL;
    }
    int threads = options->threads;
    if (threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores < 1 ? 1 : cores < PNG_MAX_THREADS ? (int)cores : PNG_MAX_THREADS;
    }
    if (threads > PNG_MAX_THREADS)
        threads = PNG_MAX_THREADS;
    struct png_stream *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(error, error_size, "out of memory for the PNG encoder");
        return NULL;
    }
    s->image = *image;
    s->filter = options->filter;
    s->idat_bytes = options->idat_bytes;
    for (int first = 0; first < image->height; first += band_rows) {
        int rows = image->height - first < band_rows ? image->height - first : band_rows;
        s->chunk_count += png_stream_chunks_of_band(image->width, rows, threads);
    }
    s->first_rows = malloc(((size_t)s->chunk_count + 1) * sizeof *s->first_rows);
    s->deflated = calloc((size_t)s->chunk_count, sizeof *s->deflated);
    s->status = calloc((size_t)s->chunk_count, sizeof *s->status);
    s->errors = calloc((size_t)s->chunk_count, sizeof *s->errors);
    if (!s->first_rows || !s->deflated || !s->status || !s->errors) {
        stream_free(s);
        snprintf(error, error_size, "out of memory for the PNG encoder");
        return NULL;
    }
    /* Each band's rows shared out evenly among its chunks, as png_encode() shares the image's. */
    int k = 0;
    for (int first = 0; first < image->height; first += band_rows) {
        int rows = image->height - first < band_rows ? image->height - first : band_rows;
        int pieces = png_stream_chunks_of_band(image->width, rows, threads);
        for (int p = 0; p < pieces; ++p)
            s->first_rows[k++] = first + (int)((long long)p * rows / pieces);
    }
    s->first_rows[k] = image->height;
    int failed = pthread_mutex_init(&s->lock, NULL);
    if (!failed && (failed = pthread_cond_init(&s->arrived, NULL)) != 0)
        pthread_mutex_destroy(&s->lock);
    if (failed) {
        stream_free(s);
        snprintf(error, error_size, "cannot start the PNG encoder: %s", strerror(failed));
        return NULL;
    }
    /* One thread fewer than the cores while the rows arrive (the thread that announces them, or
     * waits for them, keeps its own); the finishing thread makes up the number. A thread that
     * cannot start leaves its share to the others. */
    int background = threads - 1 < s->chunk_count ? threads - 1 : s->chunk_count;
    for (int t = 0; t < background; ++t)
        if (pthread_create(&s->threads[s->thread_count], NULL, stream_thread, s) == 0)
            s->thread_count++;
    return s;
}

void png_stream_rows_ready(struct png_stream *s, int rows)
{
    pthread_mutex_lock(&s->lock);
    if (rows > s->image.height)
        rows = s->image.height;
    if (rows > s->rows_ready) {
        s->rows_ready = rows;
        pthread_cond_broadcast(&s->arrived);
    }
    pthread_mutex_unlock(&s->lock);
}

int png_stream_chunk_count(const struct png_stream *s)
{
    return s->chunk_count;
}

int png_stream_finish(struct png_stream *s, unsigned char **png, size_t *png_bytes, char *error,
                      size_t error_size)
{
    *png = NULL;
    *png_bytes = 0;
    png_stream_rows_ready(s, s->image.height);
    stream_work(s);
    int status = 0;
    for (int t = 0; t < s->thread_count; ++t) {
        int joined = pthread_join(s->threads[t], NULL);
        if (joined != 0 && status == 0) { /* cannot happen for a thread started here */
            snprintf(error, error_size, "pthread_join: %s", strerror(joined));
            status = -1;
        }
    }
    pthread_cond_destroy(&s->arrived);
    pthread_mutex_destroy(&s->lock);
    for (int k = 0; k < s->chunk_count && status == 0; ++k)
        if (s->status[k]) {
            snprintf(error, error_size, "%s", s->errors[k]);
            status = -1;
        }
    if (status == 0) {
        *png = png_assemble(s->image.width, s->image.height, s->deflated, s->chunk_count,
                            s->idat_bytes, png_bytes);
        if (!*png) {
            snprintf(error, error_size, "out of memory for the PNG file");
            status = -1;
        }
    }
    stream_free(s);
    return status;
}
