package memory

import "errors"

// Sentinel errors; callers test them with errors.Is.
var (
	// ErrInvalidTopic: the topic name is not one ValidTopic accepts.
	ErrInvalidTopic = errors.New("invalid memory topic")
	// ErrInvalidType: the memory type is not user, feedback, project or reference.
	ErrInvalidType = errors.New("invalid memory type")
	// ErrEmptyText: there is nothing to store.
	ErrEmptyText = errors.New("empty memory text")
	// ErrUnknownTopic: no topic file has this name.
	ErrUnknownTopic = errors.New("unknown memory topic")
	// ErrUnknownCandidate: no pending candidate has this id.
	ErrUnknownCandidate = errors.New("unknown memory candidate")
	// ErrRefused: the policy refused the text (Verdict.Reason says why).
	ErrRefused = errors.New("memory refused by the sensitive-data policy")
)
