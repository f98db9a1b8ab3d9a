package proc

import "testing"

func TestParseStat(t *testing.T) {
	for _, tt := range []struct {
		line   string
		want   status
		broken bool
	}{
		{"4242 (claude) S 100 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 12 0 987654 0 0", status{name: "claude", ppid: 100, start: 987654}, false},
		// A name with spaces and parentheses runs to the last ")".
		{"7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0", status{name: "a (b) c", ppid: 1, start: 55}, false},
		{"9 (claude) Z 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77 0 0", status{name: "claude", ppid: 1, start: 77, zombie: true}, false},
		{"9 (claude) X 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77 0 0", status{name: "claude", ppid: 1, start: 77, zombie: true}, false},
		{"9 claude S 1", status{}, true},
		{"9 (claude) S 1 2", status{name: "claude"}, true},
	} {
		got, err := parseStat([]byte(tt.line))
		if (err != nil) != tt.broken || got != tt.want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v (error %v)", tt.line, got, err, tt.want, tt.broken)
		}
	}
}
