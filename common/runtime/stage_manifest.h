/* What a stage is, as its folder's manifest says (stages/<stage>/manifest): the build turns the
 * manifest into C with `tools/stages c-source STAGE` and links it into the stage, so that its
 * --help, its options and its messages say what the manifest says and nothing else. */
#ifndef STAGE_MANIFEST_H
#define STAGE_MANIFEST_H

#ifdef __cplusplus
extern "C" {
#endif

struct stage_manifest {
    const char *name;      /* the folder name, e.g. "21-persistent-rows" */
    const char *id;        /* its short id, e.g. "21", "07a", "p5a" */
    const char *lesson;    /* one line */
    const char *builds_on; /* the folder of the stage it builds on, or "none" */
    const char *chapter;
    const char *options;   /* the options it takes beyond its track's, e.g. "--block --frames" */
    const char *estimator; /* a path-tracing stage's (SPEC-PATH-TRACING.md section 6); "" */
    const char *launcher;  /* "ranks": one process a GPU (runtime/ranks.h); "" for one process */
};

extern const struct stage_manifest stage_manifest;

#ifdef __cplusplus
}
#endif

#endif
