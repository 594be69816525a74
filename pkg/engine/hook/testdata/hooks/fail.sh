#!/bin/sh
# A broken hook: any exit code other than 0 and 2 is a non-blocking error.
cat > /dev/null
echo "linter crashed" >&2
exit 1
