//go:build !unix

package main

import "os"

// peakRSS is not measured here (the bench runs on Unix).
func peakRSS(*os.ProcessState) int64 { return 0 }
