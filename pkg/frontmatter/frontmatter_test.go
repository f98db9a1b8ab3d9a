package frontmatter

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestRead(t *testing.T) {
	tests := []struct {
		name, in         string
		wantName, wantTy string
		wantBody         string
		wantErr          bool
		noFront          bool
	}{
		{name: "metadata type", in: "---\nname: a\ndescription: d\nmetadata:\n  type: user\n---\n\nbody\n", wantName: "a", wantTy: "user", wantBody: "\nbody\n"},
		{name: "top-level type", in: "---\nname: b\ntype: project\n---\nbody", wantName: "b", wantTy: "project", wantBody: "body"},
		{name: "CRLF and BOM", in: "\uFEFF---\r\nname: c\r\ntype: reference\r\n---\r\nbody\r\n", wantName: "c", wantTy: "reference", wantBody: "body\r\n"},
		{name: "no frontmatter", in: "just text\n", noFront: true},
		{name: "unclosed", in: "---\nname: x\n", wantErr: true},
		{name: "broken YAML", in: "---\nname: [unclosed\n---\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, body, err := Read([]byte(tt.in))
			switch {
			case tt.noFront:
				if !errors.Is(err, ErrNone) {
					t.Fatalf("err = %v, want ErrNone", err)
				}
			case tt.wantErr:
				if err == nil || errors.Is(err, ErrNone) {
					t.Fatalf("err = %v, want a parse error", err)
				}
			default:
				if err != nil || m.Name != tt.wantName || m.Type != tt.wantTy || string(body) != tt.wantBody {
					t.Fatalf("got %+v body %q err %v", m, body, err)
				}
			}
		})
	}
}

func TestSampleSilos(t *testing.T) {
	want := map[string]string{
		"feedback-no-mocks-in-db-tests.md": "feedback", "project-freeze.md": "project",
		"reference-grafana.md": "reference", "user-role.md": "user", "unknown-type.md": "episodic",
	}
	dir := "../../testdata/silos/projects/-home-dev-src-shop/memory"
	for file, typ := range want {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := Read(data)
		if err != nil || m.Type != typ || m.Name == "" || m.Description == "" {
			t.Errorf("%s: %+v %v", file, m, err)
		}
	}
	for _, bad := range []string{"broken-frontmatter.md", "scratch-notes.md"} {
		data, _ := os.ReadFile(filepath.Join(dir, bad))
		if _, _, err := Read(data); err == nil {
			t.Errorf("%s parsed without error", bad)
		}
	}
}
