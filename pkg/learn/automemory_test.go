package learn

import (
	"path/filepath"
	"testing"

	"github.com/ccmem/ccmem/pkg/store/storetest"
)

// TestAutoMemoryOn follows the client's own rule: the environment switch
// first, then CLAUDE_CODE_SIMPLE, then the last settings scope that sets
// autoMemoryEnabled (user, project, local); on by default.
func TestAutoMemoryOn(t *testing.T) {
	tests := []struct {
		name                 string
		user, project, local string
		envSwitch            string
		simple               bool
		want                 bool
	}{
		{name: "default on", want: true},
		{name: "user settings off", user: `{"autoMemoryEnabled": false}`, want: false},
		{name: "project settings off", user: `{"model":"x"}`, project: `{"autoMemoryEnabled": false}`, want: false},
		{name: "local on over user off", user: `{"autoMemoryEnabled": false}`, local: `{"autoMemoryEnabled": true}`, want: true},
		{name: "local off over project on", project: `{"autoMemoryEnabled": true}`, local: `{"autoMemoryEnabled": false}`, want: false},
		{name: "env switch off wins", local: `{"autoMemoryEnabled": true}`, envSwitch: "1", want: false},
		{name: "env switch false forces on", user: `{"autoMemoryEnabled": false}`, envSwitch: "false", want: true},
		{name: "simple mode is off", simple: true, want: false},
		{name: "unparsable settings change nothing", user: `{"autoMemoryEnabled": fals`, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := storetest.Env(t)
			e.AutoMemorySwitch, e.Simple = tt.envSwitch, tt.simple
			root := filepath.Join(storetest.RealDir(t), "repo")
			for path, content := range map[string]string{
				e.Settings(): tt.user,
				filepath.Join(root, ".claude", "settings.json"):       tt.project,
				filepath.Join(root, ".claude", "settings.local.json"): tt.local,
			} {
				if content != "" {
					storetest.Mkfile(t, path, content)
				}
			}
			if got := AutoMemoryOn(e, root); got != tt.want {
				t.Fatalf("AutoMemoryOn = %v, want %v", got, tt.want)
			}
		})
	}
}
