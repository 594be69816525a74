#!/bin/sh
# Rewrites a Bash call: the updated input replaces the whole input.
input=$(cat)
case "$input" in
  *'"tool_name":"Bash"'*) ;;
  *) echo "not a Bash call" >&2; exit 1 ;;
esac
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"npm test -- --ci"}}}'
