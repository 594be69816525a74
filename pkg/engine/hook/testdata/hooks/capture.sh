#!/bin/sh
# Saves its stdin to $1, and its working directory and project variables to $1.env.
cat > "$1"
{ pwd; echo "$CLAUDE_PROJECT_DIR"; echo "$ROBOTA_PROJECT_DIR"; } > "$1.env"
