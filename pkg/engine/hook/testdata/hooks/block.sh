#!/bin/sh
# Refuses the call: exit 2 with the reason on stderr.
cat > /dev/null
echo "rm is not allowed in this repository" >&2
exit 2
