//go:build race

package remote

// raceDetector is set in a -race build, whose scheduling is too slow and uneven for the
// tests that count how many jobs shared a message.
const raceDetector = true
