#!/bin/sh
# Hangs: records its pid and its child's pid in $1, then waits on a long sleep.
echo $$ > "$1"
sleep 300 &
echo $! >> "$1"
wait
