#!/bin/sh
# Prints $1 verbatim on stdout, exit code $2 (default 0).
cat > /dev/null
printf '%s\n' "$1"
exit "${2:-0}"
