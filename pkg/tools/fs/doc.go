// Package fs owns the file tools Read, Write and Edit, with Claude Code's names and
// snake_case parameters (file_path, offset, limit, content, old_string, new_string,
// replace_all).
//
// Guarantees:
//   - Every path goes through workspace.Resolve and every file operation through an os.Root
//     of the containing working directory, so no call reads or writes outside the workspace.
//   - Read prints `cat -n` style lines (1-based numbers), at most 2,000 lines by default and
//     2,000 characters a line; binary files are refused, images reported by type and size,
//     and a directory, a missing file and an empty file each get their own message.
//   - Read's memory is bounded whatever the file: lines before offset are skipped without
//     being kept, at most 8,001 bytes of a shown line are held (the rest is only counted
//     for the truncation note), and lines after the window are only counted.
//   - Write and Edit replace files atomically (a temp file in the same directory, fsync,
//     rename, fsync of the directory) and keep an existing file's permission bits; Write
//     creates missing parent directories.
//   - Edit changes nothing unless old_string occurs exactly once (or replace_all is set);
//     its result reports the 1-based line of the first change and a unified diff.
//   - Edit refuses a file over MaxFileSize (32 MiB) from its size, before reading it (and
//     stops reading one that grows past it meanwhile); Write refuses content over
//     MaxFileSize. Both say the size and the limit and change nothing: memory stays at a
//     few times the limit whatever the file.
//   - Each result carries the call record (record.Call) in its metadata.
package fs
