// Package checkpoint owns a session's edit checkpoints (spec: agent-sdk "Edit
// Checkpointing"): what each prompt's Write and Edit calls changed, kept so that a rewind
// puts the files back.
//
// Every prompt of a session with a project directory begins a checkpoint (Store.Begin),
// recorded as one line appended to .robota/checkpoints/{sessionId}/checkpoints.jsonl: a
// prompt costs one small append, and one that edits nothing is still listed after a
// resume. Before the first Write or Edit of a file within that prompt (Store.Capture) the
// file's prior content, or its absence, is copied under
// .robota/checkpoints/{sessionId}/{checkpointId}/ (manifest.json plus files/N), so a
// resumed session can still restore it. Changes made by Bash commands are not seen.
//
// Guarantees:
//   - A crash loses at most the line being written: a line cut short is skipped when the
//     index is read, and the next append starts on a new line.
//   - Restore never follows a link out of the project: a link at a restored path is
//     replaced, not written through, and a file whose content differs from what the
//     session last wrote there (someone else changed it) is kept and reported.
//   - Files and directories are private to the user (0600, 0700).
package checkpoint
