//go:build !unix

package search

import "os"

// mapFile maps nothing here: the caller reads the file (Windows has
// mappings too, but an index read whole is correct everywhere, and only
// slower for a very large store).
func mapFile(f *os.File, size int64) ([]byte, func()) { return nil, nil }
