//go:build !linux

package worker

// killChildGroups has nothing to do outside Linux: no parent-death signal tells the
// worker that the engine died.
func killChildGroups() {}
