#!/bin/sh
# Prints $1 as plain text.
cat > /dev/null
echo "$1"
