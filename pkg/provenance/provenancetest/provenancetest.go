// Package provenancetest lets a test say that the person wrote memory it
// put in place by hand, as `ccmem edit` or `ccmem learn review --accept`
// would record it: tests only (nothing else may attest in bulk).
package provenancetest

import (
	"os"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/provenance"
	"github.com/ccmem/ccmem/pkg/store"
)

// Lines attests every line of each file at paths as the person's.
func Lines(t testing.TB, e store.Env, paths ...string) {
	t.Helper()
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := provenance.Attest(e, "edit", p, strings.Split(string(data), "\n")...); err != nil {
			t.Fatal(err)
		}
	}
}

// Entries attests each learned entry at paths, as it is now, as accepted
// by the person.
func Entries(t testing.TB, e store.Env, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := provenance.AttestEntry(e, "cli", p); err != nil {
			t.Fatal(err)
		}
	}
}
