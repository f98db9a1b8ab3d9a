package config

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ccmem/ccmem/pkg/store"
	"github.com/ccmem/ccmem/pkg/store/storetest"
)

func readerOf(files map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
}

func TestDefaultConfigMatchesYAML(t *testing.T) {
	var fromYAML Config
	if err := yaml.Unmarshal(DefaultYAML, &fromYAML); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromYAML, Default()) {
		t.Fatalf("default-config.yaml and defaultConfig() differ:\nyaml: %+v\ngo:   %+v", fromYAML, Default())
	}
}

func TestDefaultConfigIsValid(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.BudgetChars != 9500 || !c.Enabled || c.NudgeThreshold != 10 || c.Deadline != 4*time.Second {
		t.Fatalf("defaults drifted from the design: %+v", c)
	}
	want := Caps{Global: 200, Learned: 40, Briefing: 80, Project: 200, Records: 40, Episodes: 10}
	if c.Caps != want {
		t.Fatalf("caps = %+v, want %+v", c.Caps, want)
	}
}

func TestConfigMerging(t *testing.T) {
	tests := []struct {
		name     string
		global   string
		project  string
		personal string
		check    func(Config) bool
		problems []string
	}{
		{
			name: "no files: defaults", check: func(c Config) bool { return reflect.DeepEqual(c, Default()) },
		},
		{
			name:   "global overrides defaults, key by key, nested too",
			global: "budget_chars: 5000\ncaps:\n  briefing: 20\n",
			check: func(c Config) bool {
				return c.BudgetChars == 5000 && c.Caps.Briefing == 20 && c.Caps.Global == 200
			},
		},
		{
			name:    "project overrides global",
			global:  "budget_chars: 5000\nnudge_threshold: 3\ncaps:\n  global: 50\n",
			project: "budget_chars: 7000\ncaps:\n  episodes: 0\n",
			check: func(c Config) bool {
				return c.BudgetChars == 7000 && c.NudgeThreshold == 3 && c.Caps.Global == 50 && c.Caps.Episodes == 0
			},
		},
		{
			name:    "project can disable",
			project: "enabled: false\n",
			check:   func(c Config) bool { return !c.Enabled },
		},
		{
			name:     "invalid YAML skips that file only",
			global:   "budget_chars: 5000\n",
			project:  "caps: [1, 2\n",
			check:    func(c Config) bool { return c.BudgetChars == 5000 },
			problems: []string{"/repo/.claude/memory/config.yaml ignored: "},
		},
		{
			name:     "out of range value skips the file whole",
			global:   "budget_chars: 20000\nnudge_threshold: 1\n",
			check:    func(c Config) bool { return c.BudgetChars == 9500 && c.NudgeThreshold == 10 },
			problems: []string{"budget_chars must be between 1000 and 10000, not 20000"},
		},
		{
			name:     "wrong type is reported",
			global:   "deadline: soon\n",
			check:    func(c Config) bool { return c.Deadline == 4*time.Second },
			problems: []string{"config.yaml ignored"},
		},
		{
			name:     "unknown keys are applied around and reported",
			global:   "budget_char: 2000\nbudget_chars: 3000\n",
			check:    func(c Config) bool { return c.BudgetChars == 3000 },
			problems: []string{"unknown key budget_char (did you mean budget_chars?)"},
		},
		{
			name:     "an unknown key names the known key it is likely a typo of, in its own table",
			global:   "enabeld: false\nrecall:\n  max_itmes: 3\n  wholly_unknown: 1\n",
			check:    func(c Config) bool { return c.Enabled && c.Recall.MaxItems == 5 },
			problems: []string{"unknown keys enabeld (did you mean enabled?), max_itmes (did you mean max_items?), wholly_unknown"},
		},
		{
			name:   "empty file is fine",
			global: "\n# only a comment\n",
			check:  func(c Config) bool { return reflect.DeepEqual(c, Default()) },
		},
		{
			name:    "the user's own project config overrides the team's",
			project: "enabled: false\ncaps:\n  briefing: 5\n", personal: "enabled: true\n",
			check: func(c Config) bool { return c.Enabled && c.Caps.Briefing == 5 },
		},
		{
			name:    "personal off while the team's is on",
			project: "enabled: true\n", personal: "enabled: false\n",
			check: func(c Config) bool { return !c.Enabled },
		},
		{
			name:   "shares are checked: each in [0,1], together at most 1",
			global: "shares:\n  global: 0.8\n",
			check:  func(c Config) bool { return c.Shares == Default().Shares }, problems: []string{"shares add up to 1.45"},
		},
		{
			name:    "shares can be moved between sections",
			project: "shares:\n  global: 0.1\n  project: 0.5\n",
			check: func(c Config) bool {
				return c.Shares.Global == 0.1 && c.Shares.Project == 0.5 && c.Shares.Episodes == 0.1
			},
		},
		{
			name:   "line_chars has a floor",
			global: "line_chars: 10\n",
			check:  func(c Config) bool { return c.LineChars == 500 }, problems: []string{"line_chars must be between 80"},
		},
	}
	e := store.Env{Store: "/store", Home: "/home/u"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			if tt.global != "" {
				files["/store/config.yaml"] = tt.global
			}
			if tt.project != "" {
				files["/repo/.claude/memory/config.yaml"] = tt.project
			}
			if tt.personal != "" {
				files[e.PersonalConfig("k")] = tt.personal
			}
			c, cf := Merge(readerOf(files), Paths(e, "/repo", "k")...)
			if !tt.check(c) {
				t.Fatalf("merged config %+v fails the check", c)
			}
			probs := Problems(e, cf)
			if len(probs) != len(tt.problems) {
				t.Fatalf("problems = %q, want %d like %q", probs, len(tt.problems), tt.problems)
			}
			for i, want := range tt.problems {
				if !strings.Contains(probs[i], want) {
					t.Errorf("problem %q lacks %q", probs[i], want)
				}
			}
		})
	}
}

// TestSwitch: off is written where asked; on removes the key, and writes
// enabled: true only in the personal file, only when a layer below would
// still leave ccmem off.
func TestSwitch(t *testing.T) {
	e := storetest.Env(t)
	root := filepath.Join(storetest.RealDir(t), "repo")
	storetest.Mkfile(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
	read := func(p string) string { data, _ := os.ReadFile(p); return string(data) }

	res, err := Switch(e, root, "k", Personal, false)
	if err != nil || !res.Changed || res.Enabled || res.Path != e.PersonalConfig("k") {
		t.Fatalf("personal off: %+v %v", res, err)
	}
	if _, err := os.Stat(store.RepoConfig(root)); err == nil {
		t.Fatal("a personal switch wrote into the repository")
	}
	if res, _ = Switch(e, root, "k", Personal, true); !res.Enabled || read(e.PersonalConfig("k")) != "" {
		t.Fatalf("personal on should remove the key and the file: %+v, %q", res, read(e.PersonalConfig("k")))
	}
	// The team turns it off: a personal on writes enabled: true.
	if res, _ = Switch(e, root, "k", Team, false); res.Enabled || read(store.RepoConfig(root)) != "enabled: false\n" {
		t.Fatalf("team off: %+v", res)
	}
	if res, _ = Switch(e, root, "k", Personal, true); !res.Enabled || read(e.PersonalConfig("k")) != "enabled: true\n" {
		t.Fatalf("personal on over a team off: %+v, %q", res, read(e.PersonalConfig("k")))
	}
	// A global on cannot override the personal off: it says so.
	Switch(e, root, "k", Personal, false)
	if res, _ = Switch(e, root, "k", Global, true); res.Enabled || res.OffBy != e.PersonalConfig("k") {
		t.Fatalf("global on under a personal off: %+v", res)
	}
}

// TestOutOfRangeIsRejected: counts and durations beyond what makes sense
// are refused with a message that names the key and its range, and the
// file's keys are ignored (defaults stay). retention_days of a million
// used to pass, overflow time.Duration and send every episode to the
// archive.
func TestOutOfRangeIsRejected(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"retention_days: 1000000\n", "retention_days must be between 1 and 36500 (a century), not 1000000"},
		{"retention_days: 0\n", "retention_days must be between 1 and 36500"},
		{"max_episodes: 2000000\n", "max_episodes must be between 1 and 1000000, not 2000000"},
		{"max_episodes: -1\n", "max_episodes must be between 1 and 1000000, not -1"},
		{"caps:\n  global: 5000000\n", "caps.global must be between 0 and 1000000, not 5000000"},
		{"nudge_threshold: -3\n", "nudge_threshold must be between 0 and 1000000, not -3"},
		{"orphan_after: 9000h\n", "orphan_after must be between 1m and 8760h0m0s, not 9000h0m0s"},
		{"orphan_after: 10s\n", "orphan_after must be between 1m and 8760h0m0s, not 10s"},
		{"deadline: 2h\n", "deadline must be between 100ms and"},
		{"recall:\n  min_score: 1e9\n", "recall.min_score must be between 0 and 1000, not 1e+09"},
		{"recall:\n  min_matched: 2\n", "recall.min_matched must be between 0 and 1, not 2"},
		{"retention_days: 99999999999999999999\n", "retention_days"},
		{"deadline: 99999999999h\n", "deadline"},
	} {
		cfg, files := Merge(readerOf(map[string]string{"g": tt.yaml}), "g")
		if files[0].Err == nil || !strings.Contains(files[0].Err.Error(), tt.want) {
			t.Errorf("%q: error %v, want one containing %q", tt.yaml, files[0].Err, tt.want)
		}
		if !reflect.DeepEqual(cfg, Default()) {
			t.Errorf("%q: a rejected file changed the config", tt.yaml)
		}
	}
	// At the bounds: accepted.
	for _, ok := range []string{"retention_days: 36500\nmax_episodes: 1000000\n", "orphan_after: 8760h\n", "retention_days: 1\nmax_episodes: 1\n"} {
		if _, files := Merge(readerOf(map[string]string{"g": ok}), "g"); files[0].Err != nil {
			t.Errorf("%q: %v", ok, files[0].Err)
		}
	}
}

// TestSyncIsTheGlobalConfigs: only the global config turns the automatic
// sync on; a repository's config cannot.
func TestSyncIsTheGlobalConfigs(t *testing.T) {
	files := map[string]string{
		"global": "sync:\n  interval: 2h\n",
		"repo":   "sync:\n  auto: true\n  interval: 1m\n",
	}
	read := func(p string) ([]byte, error) { return []byte(files[p]), nil }
	cfg, _ := Merge(read, "global", "repo")
	if cfg.Sync.Auto || cfg.Sync.Interval != 2*time.Hour {
		t.Fatalf("sync = %+v, want the global config's (off, 2h)", cfg.Sync)
	}
	files["global"] = "sync:\n  auto: true\n"
	if cfg, _ := Merge(read, "global", "repo"); !cfg.Sync.Auto || cfg.Sync.Interval != time.Hour {
		t.Fatalf("sync = %+v, want on, the default 1h", cfg.Sync)
	}
}
