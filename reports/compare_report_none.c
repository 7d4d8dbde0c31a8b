/*
 * compare_report_none.c -- compare_report_write in a build without cairo
 * (no viz/): the tabular outputs are still written.
 */
#include "compare_report.h"

int compare_report_write(const struct compare_result *r,
                         const char *const *dirs, int n_dirs, const char *pdf,
                         const char *html, sb_err *e)
{
    (void)r;
    (void)dirs;
    (void)n_dirs;
    (void)pdf;
    (void)html;
    return err_set(e, "this stormbench was built without cairo, so it "
                      "cannot draw report.pdf and report.html; pass "
                      "--no-report for the tables alone");
}
