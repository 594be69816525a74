#!/bin/sh
# UserPromptSubmit hook of the wordtools plugin: records each prompt's first line.
prompt=$(sed -n 's/.*"prompt": *"\([^"]*\)".*/\1/p')
echo "wordtools hook saw: ${prompt%%\\n*}" >> "$CLAUDE_PROJECT_DIR/wordtools-hook.log"
