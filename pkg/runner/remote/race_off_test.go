//go:build !race

package remote

// raceDetector is set in a -race build (race_on_test.go).
const raceDetector = false
