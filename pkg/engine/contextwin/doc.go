// Package contextwin owns context-window accounting: the model catalogue (context window
// and max output per model id), the effective context-token estimate used by status
// displays, compaction policy and the loop's hard guard, usage normalization, and
// human-readable token counts.
//
// Guarantees:
//   - Unknown models get DefaultContextWindow (200,000) and DefaultMaxOutput (16,384).
//   - EstimateContextTokens is deterministic and never sums historical provider usage: the
//     effective estimate is the latest provider usage when it belongs to the terminal
//     message, else max(serialized estimate, latest provider usage, caller floor).
//   - Usage reported as promptTokens/completionTokens is normalized to
//     inputTokens/outputTokens without looking at provider names.
package contextwin
