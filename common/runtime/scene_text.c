#include "runtime/scene_text.h"

#include "runtime/files.h"
#include "raytrace/scene.h" /* SCENE_MAX_FILE_BYTES, SCENE_ERROR_BYTES */

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int scene_text_fail(const struct scene_text_reader *reader, const char *format, ...)
{
    char message[SCENE_ERROR_BYTES];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    if (reader->line > 0)
        snprintf(reader->error, reader->error_size, "%s:%d: %s", reader->name, reader->line,
                 message);
    else
        snprintf(reader->error, reader->error_size, "%s: %s", reader->name, message);
    return -1;
}

int scene_text_number(const struct scene_text_reader *reader, const char *keyword,
                      const char *token, double *value)
{
    if (strlen(token) > SCENE_TEXT_MAX_VALUE)
        return scene_text_fail(reader, "'%s': value too long", keyword);
    char *end;
    errno = 0;
    double v = strtod(token, &end);
    if (end == token || *end != '\0')
        return scene_text_fail(reader, "'%s': '%s' is not a number", keyword, token);
    if (!isfinite(v))
        return scene_text_fail(reader, "'%s': '%s' is not a finite number", keyword, token);
    /* Values are stored as float: beyond FLT_MAX they would become infinite, and below
     * FLT_MIN (or underflowing in strtod) they would lose precision or become 0, which would
     * for instance let 'sphere 1e-60 ...' through as a positive radius of 0. */
    if (fabs(v) > 3.0e38)
        return scene_text_fail(reader, "'%s': '%s' is too large (magnitude at most 3e38)",
                               keyword, token);
    if ((v != 0 && fabs(v) < FLT_MIN) || errno == ERANGE)
        return scene_text_fail(reader,
                               "'%s': '%s' is too close to 0 (use 0 or a magnitude of at least "
                               "1.2e-38)",
                               keyword, token);
    *value = v;
    return 0;
}

/* Plain ASCII only, and named when not: a CR that does not end a CRLF line (old Mac line ends
 * run the whole file into one line), a byte above 0x7F (UTF-8, for example a non-breaking space
 * pasted from a document), a control byte. Reports the first, with its column. */
static int scan_line(const struct scene_text_reader *reader, const unsigned char *line,
                     size_t length)
{
    for (size_t k = 0; k < length; ++k) {
        unsigned char c = line[k];
        int column = (int)k + 1;
        if (c == '\r')
            return scene_text_fail(reader,
                                   "a carriage return (CR) in column %d that does not end the "
                                   "line: line ends must be LF or CRLF, not CR alone (old Mac "
                                   "line ends)",
                                   column);
        if (c == 0xC2 && k + 1 < length && line[k + 1] == 0xA0)
            return scene_text_fail(reader,
                                   "unexpected character (bytes 0xC2 0xA0, a UTF-8 non-breaking "
                                   "space) in column %d: scene files are plain ASCII",
                                   column);
        if (c > 0x7E)
            return scene_text_fail(reader,
                                   "unexpected character (byte 0x%02x, not ASCII) in column %d: "
                                   "scene files are plain ASCII",
                                   c, column);
        if (c < 0x20 && c != '\t')
            return scene_text_fail(reader,
                                   "unexpected character (byte 0x%02x, a control byte) in "
                                   "column %d",
                                   c, column);
    }
    return 0;
}

/* One line, its comment stripped, into tokens; handle_line for a line that has any. */
static int split_line(const struct scene_text_reader *reader, char *line, int max_tokens,
                      scene_text_line_fn handle_line, void *context)
{
    char *comment = strchr(line, '#');
    if (comment)
        *comment = '\0';

    char *tokens[SCENE_TEXT_MAX_TOKENS + 1];
    int count = 0;
    for (char *cursor = line;;) {
        while (*cursor == ' ' || *cursor == '\t' || *cursor == '\r')
            ++cursor;
        if (*cursor == '\0')
            break;
        if (count == max_tokens)
            return scene_text_fail(reader, "too many values on one line");
        tokens[count++] = cursor;
        while (*cursor && *cursor != ' ' && *cursor != '\t' && *cursor != '\r')
            ++cursor;
        if (*cursor)
            *cursor++ = '\0';
    }
    if (count == 0)
        return 0;
    tokens[count] = NULL;

    for (const char *c = tokens[0]; *c; ++c)
        if (!isprint((unsigned char)*c))
            return scene_text_fail(reader, "unexpected character (byte 0x%02x)",
                                   (unsigned char)*c);
    return handle_line(reader, count, tokens, context);
}

int scene_text_parse(const char *text, size_t length, const char *name, int max_tokens,
                     scene_text_line_fn handle_line, void *context, char *error,
                     size_t error_size)
{
    struct scene_text_reader reader = {name, 0, error, error_size};
    char line[SCENE_TEXT_MAX_LINE + 1];

    if (max_tokens < 1 || max_tokens > SCENE_TEXT_MAX_TOKENS)
        return scene_text_fail(&reader, "internal error: %d tokens a line", max_tokens);
    if (length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        reader.line = 1;
        return scene_text_fail(&reader, "the file starts with a UTF-8 byte-order mark (bytes "
                                        "0xEF 0xBB 0xBF): save it as plain ASCII");
    }
    size_t at = 0;
    while (at < length) {
        ++reader.line;
        size_t end = at;
        while (end < length && text[end] != '\n')
            ++end;
        size_t line_length = end - at;
        /* A CRLF line is as long as its LF twin: the CR before the LF is not counted. */
        size_t counted = line_length > 0 && text[end - 1] == '\r' ? line_length - 1 : line_length;
        if (scan_line(&reader, (const unsigned char *)text + at, counted))
            return -1;
        if (counted > SCENE_TEXT_MAX_LINE)
            return scene_text_fail(&reader, "line longer than %d characters", SCENE_TEXT_MAX_LINE);
        memcpy(line, text + at, counted);
        line[counted] = '\0';
        if (split_line(&reader, line, max_tokens, handle_line, context))
            return -1;
        at = end + 1;
    }
    return 0;
}

int scene_text_load(const char *path, const char *what, char **text, size_t *length,
                    char *error, size_t error_size)
{
    *text = NULL;
    *length = 0;
    FILE *file = open_regular_file(path, what, SCENE_MAX_FILE_BYTES, error, error_size);
    if (!file)
        return -1;
    char *buffer = malloc(SCENE_MAX_FILE_BYTES + 1);
    if (!buffer) {
        fclose(file);
        snprintf(error, error_size, "%s: out of memory reading the scene", path);
        return -1;
    }
    size_t got = fread(buffer, 1, SCENE_MAX_FILE_BYTES + 1, file);
    int read_error = ferror(file);
    int saved_errno = errno;
    fclose(file);
    if (read_error) {
        snprintf(error, error_size, "%s: cannot read %s: %s", path, what, strerror(saved_errno));
    } else if (got > SCENE_MAX_FILE_BYTES) { /* it grew since it was opened */
        snprintf(error, error_size, "%s: %s larger than %d bytes", path, what,
                 SCENE_MAX_FILE_BYTES);
    } else {
        *text = buffer;
        *length = got;
        return 0;
    }
    free(buffer);
    return -1;
}
