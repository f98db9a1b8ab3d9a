// Command floor is the benchmark's baseline: the least a compiled hook can
// do, read its stdin and exit.
package main

import (
	"io"
	"os"
)

func main() { io.Copy(io.Discard, os.Stdin) }
