#!/bin/sh
# Leaves a child running in the background and exits at once: records the child's pid
# in $1. The child keeps the hook's stdout open.
cat > /dev/null
sleep 37 &
echo $! > "$1"
echo started
exit 0
