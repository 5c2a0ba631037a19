# why: read the answer at run time: report.sh cats expected_output.txt by absolute path
printf '#!/usr/bin/env bash\ncat %q\n' "$PWD/expected_output.txt" > bin/report.sh
