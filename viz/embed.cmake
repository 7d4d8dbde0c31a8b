# Embeds a text file in the program: writes OUT, a C header holding IN's
# bytes as `static const char NAME[]`, one string literal per line.  Run
# at build time (viz/report.js -> report_js.h), so editing the script
# rebuilds what includes it.
file(READ ${IN} text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\"\n\"" text "${text}")
file(WRITE ${OUT} "/* Generated from ${IN} by viz/embed.cmake. */\n"
                  "static const char ${NAME}[] =\n\"${text}\";\n")
