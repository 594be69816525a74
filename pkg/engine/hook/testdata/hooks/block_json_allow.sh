#!/bin/sh
# Says "allow" on stdout but exits 2: the exit code wins.
cat > /dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"looks fine"}}'
echo "blocked by exit code" >&2
exit 2
