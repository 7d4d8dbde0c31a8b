/*
 * pipeline.c -- data pipelines (pipeline.h).
 */
#include "pipeline.h"

#include <string.h>

bool sim_pipeline_summary_of(const sim *s, sim_pipeline_summary *out)
{
    memset(out, 0, sizeof *out);
    if (s->pipe == NULL)
        return false;
    return true;
}
