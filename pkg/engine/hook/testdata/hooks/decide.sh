#!/bin/sh
# Answers PreToolUse with the permission decision given as $1.
cat > /dev/null
printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"%s","permissionDecisionReason":"hook said %s"}}\n' "$1" "$1"
