/* The lexical layer of scene files (SPEC.md section 1), shared by the main chain's parser
 * (common/raytrace/scene.c) and the path-tracing track's (common/pathtrace/pt_scene.c): reading a
 * file, plain-ASCII lines of at most 1,024 characters (LF or CRLF), '#' comments, blank-separated
 * tokens, strict numbers, and one-line messages "NAME:LINE: what is wrong". Each parser keeps its
 * own keywords. */
#ifndef SCENE_TEXT_H
#define SCENE_TEXT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCENE_TEXT_MAX_LINE 1024  /* characters a line, the CR of a CRLF not counted */
#define SCENE_TEXT_MAX_TOKENS 16  /* the most max_tokens scene_text_parse accepts */
#define SCENE_TEXT_MAX_VALUE 64   /* characters a number may have */

#if defined(__GNUC__) || defined(__clang__)
#define SCENE_TEXT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SCENE_TEXT_PRINTF(f, a)
#endif

/* Where a message goes and what it names: line > 0 gives "NAME:LINE: message", line 0 (after
 * the last line, for what is missing) "NAME: message". */
struct scene_text_reader {
    const char *name;
    int line;
    char *error;
    size_t error_size;
};

/* Called for each line with at least one token (the comment stripped): tokens[0] is the
 * keyword, tokens[1..count-1] its values, each NUL-terminated and writable. Returns 0, or -1
 * after writing the message (scene_text_fail), which ends the parse. */
typedef int (*scene_text_line_fn)(const struct scene_text_reader *reader, int count,
                                  char **tokens, void *context);

/* Splits text (length bytes, NUL bytes included: they are refused) into lines and tokens and
 * calls handle_line for every line that has any. Refuses, with the line and column, a UTF-8
 * byte-order mark, a CR that does not end a line, bytes above 0x7E and control bytes other than
 * a tab, a line longer than SCENE_TEXT_MAX_LINE, and more than max_tokens tokens on one line
 * (max_tokens at most SCENE_TEXT_MAX_TOKENS). Returns 0, or -1 with the message in error. */
int scene_text_parse(const char *text, size_t length, const char *name, int max_tokens,
                     scene_text_line_fn handle_line, void *context, char *error,
                     size_t error_size);

/* Writes "NAME:LINE: " (or "NAME: ") and the formatted message to the reader's error; returns
 * -1. */
int scene_text_fail(const struct scene_text_reader *reader, const char *format, ...)
    SCENE_TEXT_PRINTF(2, 3);

/* A strict number for keyword's value token: at most SCENE_TEXT_MAX_VALUE characters, the whole
 * token, finite, and one a float holds (magnitude at most 3e38, and 0 or at least FLT_MIN).
 * Returns 0 with *value, or -1 with a message naming keyword and token. */
int scene_text_number(const struct scene_text_reader *reader, const char *keyword,
                      const char *token, double *value);

/* Reads path, a regular file of at most SCENE_MAX_FILE_BYTES (scene.h); what names it in
 * messages ("scene file"). Returns 0 with *text (malloc'ed, for free) and *length, or -1 with a
 * one-line message "PATH: ..." in error. */
int scene_text_load(const char *path, const char *what, char **text, size_t *length,
                    char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
