package main

import (
	"strings"
	"testing"
)

// TestReadSumsRefusesTwoSumsForOneName: SHA256SUMS naming one archive
// twice with different sums is refused (which was built?); the same sum
// twice is one.
func TestReadSumsRefusesTwoSumsForOneName(t *testing.T) {
	a, b := strings.Repeat("a", 64), strings.Repeat("b", 64)
	if _, err := readSums([]byte(a + "  x.tar.gz\n" + b + "  x.tar.gz\n")); err == nil || !strings.Contains(err.Error(), "x.tar.gz is listed twice") {
		t.Fatalf("two sums: %v", err)
	}
	have, err := readSums([]byte(a + "  x.tar.gz\n" + a + "  x.tar.gz\n" + b + "  y.zip\n"))
	if err != nil || have["x.tar.gz"] != a || have["y.zip"] != b {
		t.Fatalf("%v %v", have, err)
	}
}
