package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/ccmem/ccmem/pkg/codexcli"
	"github.com/ccmem/ccmem/pkg/store"
)

// Codex's config.toml is the person's file, and Codex writes it too (its
// own trust tables, when a person approves a hook). ccmem reads it with a
// TOML parser (github.com/pelletier/go-toml/v2), never a line scanner, and
// edits it as bytes: a trust table it adds goes at the end after a mark
// line; a trust value already there (Codex's own table, an inline or
// dotted form) is changed where it is; every other byte stays. It never
// writes a file that does not parse, and a file that does not parse is
// not edited.

// trustMark precedes each trust table ccmem writes; trustMarkEOL is the
// mark of a table ccmem wrote after a last line that had no newline (so
// that taking it out gives the file back byte for byte).
const (
	trustMark    = "# ccmem: trust for its hook (ccmem uninstall removes it)"
	trustMarkEOL = "# ccmem: trust for its hook (ccmem uninstall removes it; it ended the line before)"
)

// errConfigChanged says config.toml changed while ccmem edited it.
var errConfigChanged = errors.New("changed while ccmem edited it; nothing was written (run it again)")

// parseConfig checks that cfg is TOML and returns its hooks.state trust
// values by key.
func parseConfig(cfg []byte) (map[string]string, error) {
	var doc struct {
		Hooks struct {
			State map[string]map[string]any `toml:"state"`
		} `toml:"hooks"`
	}
	if err := toml.Unmarshal(cfg, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("not valid TOML at line %d, column %d: %s", row, col, de.Error())
		}
		return nil, fmt.Errorf("not valid TOML: %v", err)
	}
	out := map[string]string{}
	for k, t := range doc.Hooks.State {
		if v, ok := t["trusted_hash"].(string); ok {
			out[k] = v
		}
	}
	return out, nil
}

// trustValue is the trusted_hash config.toml holds for key.
func trustValue(cfg, key string) (string, bool) {
	vals, err := parseConfig([]byte(cfg))
	if err != nil {
		return "", false
	}
	v, ok := vals[key]
	return v, ok
}

// valueAt finds, in a TOML document, the byte range of the value at path
// (the keys from the root), in whichever form it is written: under a
// table header, as a dotted key, inside an inline table.
func valueAt(cfg []byte, path []string) (start, end int, ok bool) {
	p := unstable.Parser{}
	p.Reset(cfg)
	var table []string
	var walk func(prefix []string, kv *unstable.Node) bool
	walk = func(prefix []string, kv *unstable.Node) bool {
		keys := append([]string{}, prefix...)
		for it := kv.Key(); it.Next(); {
			keys = append(keys, string(it.Node().Data))
		}
		v := kv.Value()
		if equalPath(keys, path) && v.Kind == unstable.String {
			r := v.Raw
			start, end, ok = int(r.Offset), int(r.Offset+r.Length), true
			return true
		}
		if v.Kind == unstable.InlineTable && isPrefix(keys, path) {
			for it := v.Children(); it.Next(); {
				if n := it.Node(); n.Kind == unstable.KeyValue && walk(keys, n) {
					return true
				}
			}
		}
		return false
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = table[:0]
			for it := e.Key(); it.Next(); {
				table = append(table, string(it.Node().Data))
			}
			if e.Kind == unstable.ArrayTable {
				table = append(table, "\x00") // nothing ccmem looks for is in one
			}
		case unstable.KeyValue:
			if walk(table, e) {
				return start, end, true
			}
		}
	}
	return 0, 0, false
}

func equalPath(a, b []string) bool {
	return len(a) == len(b) && isPrefix(a, b)
}

func isPrefix(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// withTrust is cfg with a trusted_hash for each key of want: changed where
// the file has one, else added at the end in a marked table. The result
// is checked to parse and to hold every value wanted.
func withTrust(cfg []byte, want []CodexTrust) ([]byte, error) {
	have, err := parseConfig(cfg)
	if err != nil {
		return nil, err
	}
	next := append([]byte{}, cfg...)
	var add bytes.Buffer
	for _, t := range want {
		v, ok := have[t.Key]
		switch {
		case ok && v == t.Hash:
		case ok:
			start, end, found := valueAt(next, []string{"hooks", "state", t.Key, "trusted_hash"})
			if !found {
				return nil, fmt.Errorf("its trust entry for %s is in a form ccmem cannot change; remove it or trust the hook in Codex", t.Key)
			}
			next = append(next[:start:start], append([]byte(codexcli.TOMLString(t.Hash)), next[end:]...)...)
		default:
			mark := trustMark
			if add.Len() == 0 && len(next) > 0 && next[len(next)-1] != '\n' {
				mark = trustMarkEOL
				add.WriteString("\n")
			}
			fmt.Fprintf(&add, "\n%s\n[hooks.state.%s]\ntrusted_hash = %s\n", mark, codexcli.TOMLString(t.Key), codexcli.TOMLString(t.Hash))
		}
	}
	next = append(next, add.Bytes()...)
	got, err := parseConfig(next)
	if err != nil {
		return nil, fmt.Errorf("adding ccmem's trust entries would make it invalid (%v); trust the hooks in Codex instead", err)
	}
	for _, t := range want {
		if got[t.Key] != t.Hash {
			return nil, fmt.Errorf("its trust entry for %s could not be set; trust the hook in Codex instead", t.Key)
		}
	}
	return next, nil
}

// dropTrust takes out of cfg what ccmem added (each marked table), and
// nothing else: a key the person added to one of those tables stays, with
// the table's header, so that it stays in the table it was written in.
func dropTrust(cfg string) string { return dropTrustBut(cfg, nil) }

// dropTrustBut is dropTrust sparing the tables of the keys in keep.
func dropTrustBut(cfg string, keep map[string]bool) string {
	if !strings.Contains(cfg, trustMark[:len(trustMark)-1]) {
		return cfg
	}
	lines := strings.SplitAfter(cfg, "\n")
	if n := len(lines); lines[n-1] == "" {
		lines = lines[:n-1]
	}
	var out []string
	eol := -1
	for i := 0; i < len(lines); i++ {
		mark := strings.TrimSpace(lines[i])
		if mark != trustMark && mark != trustMarkEOL {
			out = append(out, lines[i])
			continue
		}
		j := i + 1
		var kept []string
		if j < len(lines) && keep[strings.TrimSpace(lines[j])] {
			out = append(out, lines[i])
			continue
		}
		if j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "[hooks.state.") {
			header := lines[j]
			j++
			// The table's lines, up to the next table: ccmem's one key
			// goes; anything else is the person's.
			for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "[") && strings.TrimSpace(lines[j]) != trustMark && strings.TrimSpace(lines[j]) != trustMarkEOL {
				if !strings.HasPrefix(strings.TrimSpace(lines[j]), "trusted_hash = \"sha256:") || len(kept) > 0 {
					kept = append(kept, lines[j])
				}
				j++
			}
			// Blank lines at the end belong to what follows.
			for len(kept) > 0 && strings.TrimSpace(kept[len(kept)-1]) == "" {
				kept = kept[:len(kept)-1]
				j--
			}
			if len(kept) > 0 {
				kept = append([]string{header}, kept...)
			}
		}
		// The blank line ccmem wrote before the mark goes too.
		if n := len(out); n > 0 && strings.TrimSpace(out[n-1]) == "" && len(kept) == 0 {
			out = out[:n-1]
		}
		if mark == trustMarkEOL && len(kept) == 0 {
			eol = len(out)
		}
		out = append(out, kept...)
		i = j - 1
	}
	// The newline ccmem gave the person's last line goes, if that line is
	// still the last.
	if eol > 0 && eol == len(out) {
		out[eol-1] = strings.TrimSuffix(out[eol-1], "\n")
	}
	return strings.Join(out, "")
}

// replaceConfig writes config.toml's next bytes: where a symlink (a
// dotfiles manager's) points, not over it (a symlink to nothing is
// refused, not replaced); only if the file still holds old, checked after
// the new bytes are written beside it, just before they replace it; after
// a backup of the person's file, the first time. next must parse.
func replaceConfig(rep *Report, path string, old, next []byte) error {
	if _, err := parseConfig(next); err != nil {
		return fmt.Errorf("%s: ccmem's edit would not parse (%v); nothing was written", path, err)
	}
	target := path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			return fmt.Errorf("%s is a symlink to a file that is not there; nothing was written (hint: restore the file it points to, or remove the link)", path)
		}
		target = t
	}
	if len(old) > 0 {
		backup := path + ".ccmem.bak"
		if _, err := os.Lstat(backup); errors.Is(err, fs.ErrNotExist) {
			if err := store.WriteFileAtomic(backup, old); err != nil {
				return err
			}
			rep.Actions = append(rep.Actions, Action{"backup", backup + " (config.toml before this change)"})
		}
	}
	return store.WriteFileAtomicIf(target, next, func() error {
		if testOnlyBeforeSwap != nil {
			testOnlyBeforeSwap(path)
		}
		now, err := store.ReadSmallFile(path, 16<<20)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if !bytes.Equal(now, old) {
			return fmt.Errorf("%s %w", path, errConfigChanged)
		}
		return nil
	})
}

// tomlUnmarshal decodes a TOML document (tests read tables with it).
func tomlUnmarshal(data []byte, v any) error { return toml.Unmarshal(data, v) }
