package main

import "errors"

// peerReport times claude-mem's hooks beside ccmem's (make bench-peers).
func peerReport(o options) error { return errors.New("not yet") }
