#!/bin/sh
# Checks in under $1 and waits until $2 hooks have checked in: it only succeeds when
# the hooks run at the same time. Gives up (exit 1) after about ten seconds.
cat > /dev/null
mkdir -p "$1"
: > "$1/$$"
i=0
while [ "$(ls "$1" | wc -l)" -lt "$2" ]; do
  i=$((i + 1))
  [ "$i" -gt 500 ] && exit 1
  sleep 0.02
done
exit 0
