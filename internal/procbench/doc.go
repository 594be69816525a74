// Package procbench measures whole robota processes from outside, as a user meets them:
// wall time and peak RSS (VmHWM at exit, see PeakRSS) of `robota --version` and of a
// two-turn headless Write run with the script provider, each next to a hello-world Go
// binary built with the same flags and measured in the same run, so the figures come as
// ratios against what any Go program costs on this machine. Beside them it measures the
// floor of robota's link: a program of every package robota links, running only their
// inits (BuildInitsOnly).
//
// The benchmarks (bench_test.go, run by `make bench`) build robota and the hello-world
// binary from source with the build's tags and CGO setting ($ROBOTA_BENCH_TAGS,
// $ROBOTA_BENCH_CGO; the Makefile passes its own), or take robota from $ROBOTA_BIN_DIR.
//
// Peak RSS is not rusage's maxrss: a child started by a Go program inherits its parent's
// high-water mark there (vfork), so a small child reports the test binary's size. PeakRSS
// stops the child at exit under ptrace and reads its own VmHWM.
//
// Page cache: a Go binary's RSS depends on how its pages came into the page cache
// (PERF-NOTES.md). Each benchmark first evicts both binaries with
// posix_fadvise(DONTNEED), runs each once, and then measures, so variants are compared
// in the same state.
package procbench
