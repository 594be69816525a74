// Command hello is the baseline of the process benchmarks: the smallest Go program that
// writes a line, built with the same flags as robota.
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
