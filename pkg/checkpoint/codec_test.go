package checkpoint

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/ccmem/ccmem/pkg/friction"
	"github.com/ccmem/ccmem/pkg/triage"
)

// randomCheckpoint fills every field of a checkpoint from seed, with the
// strings a hostile transcript or file system may hold.
func randomCheckpoint(seed int64) *Record {
	r := rand.New(rand.NewSource(seed))
	pick := func() string {
		pieces := []string{"", "a", "fix the flaky test", "<script>&amp;", "\"quoted\"", `back\slash`, "\n\t\r\b\f\x00\x1f\x7f", "\u2028\u2029",
			"日本語", "😀", "\xff\xfe", "\xed\xa0\x80", "é", "/home/dev/src/shop", " "}
		var b strings.Builder
		for range r.Intn(4) {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		return b.String()
	}
	maybe := func() bool { return r.Intn(3) == 0 }
	intMap := func() map[string]int {
		switch r.Intn(3) {
		case 0:
			return nil
		case 1:
			return map[string]int{}
		}
		m := map[string]int{}
		for range r.Intn(4) + 1 {
			m[pick()] = r.Intn(1000) - 500
		}
		return m
	}
	strs := func() []string {
		switch r.Intn(3) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		var out []string
		for range r.Intn(4) + 1 {
			out = append(out, pick())
		}
		return out
	}
	float := func() float64 {
		return []float64{0, 1, -1, 0.5, 1e-7, 1e21, 123456789.125, 1e-300, math.MaxFloat64, r.Float64() * 10}[r.Intn(10)]
	}
	pos := func() TranscriptPos {
		return TranscriptPos{Path: pick(), Offset: r.Int63(), Skip: int64(r.Intn(2)) * r.Int63n(1000), Size: r.Int63(), Inode: r.Uint64(), Tail: uint64(r.Intn(2)) * r.Uint64()}
	}
	c := &Record{SessionID: pick(), ProjectRoot: pick(), Goal: pick(), Turns: r.Intn(100), Tools: intMap(), SubagentTools: intMap(),
		ToolErrors: r.Intn(5), FilesChanged: strs(), Compactions: r.Intn(3), StartedAt: pick(), EndedAt: pick(), GitBranch: pick(),
		Model: pick(), ClientVersion: pick(), Outcome: pick(), Friction: friction.Result{Score: float(), Class: pick(), Signals: intMap()},
		Redactions: r.Intn(3), Transcript: pos(), UpdatedAt: pick(), ArchivedAt: pick()}
	if maybe() {
		c.Process.PID = r.Intn(1 << 22)
	}
	if maybe() {
		c.Process.Start = r.Uint64()
	}
	s := &c.State
	s.Friction = friction.State{Signals: intMap(), Pending: maybe(), LastFailed: maybe(), TurnUpset: maybe(), Stopped: maybe(), CallRun: r.Intn(3), LastInterrupt: pick(), LastTimestamp: pick()}
	if maybe() {
		s.Friction.LastCall = r.Uint64()
	}
	if maybe() {
		s.Friction.Prompts = []uint64{r.Uint64(), 0, 7}
	}
	if maybe() {
		s.PendingFiles = map[string]string{pick(): pick(), "t1": pick()}
	}
	s.Boundaries, s.PreCompacts, s.CompactTrigger = r.Intn(2), r.Intn(2), pick()
	s.GoalRedactions, s.OutcomeRedactions, s.OtherRedactions = r.Intn(2), r.Intn(2), r.Intn(2)
	s.TriageFired = strs()
	if maybe() {
		s.TriagePending = []triage.Hit{{Category: pick(), Score: float(), Excerpt: pick()}, {Category: "decision", Score: 0.5}}
	}
	if maybe() {
		s.Shown = []byte(pick() + "12345678")
	}
	if maybe() {
		s.Guarded = []byte(pick() + "87654321")
	}
	if maybe() {
		s.Given = []Given{{Ref: pick(), Kind: pick(), Turn: r.Intn(9)}, {Ref: "x#2", Kind: "pointer"}}
	}
	if maybe() {
		c.Use = &Use{Given: intMap(), Used: intMap()}
	}
	if maybe() {
		s.Subagents = map[string]TranscriptPos{pick(): pos(), "agent-1.jsonl": pos()}
	}
	c.Title, c.Declined, c.Automated, c.AutomatedBy, c.Parent, c.Entrypoint, c.PromptQueued = pick(), r.Intn(3), maybe(), pick(), pick(), pick(), maybe()
	c.SkillsUsed, c.DurationSeconds, c.GitRemote, c.Agent = strs(), int64(r.Intn(3))*int64(r.Intn(100000)), pick(), pick()
	if maybe() {
		c.Digest.Notes = []Note{{Turn: r.Intn(9), At: pick(), Kind: pick(), Cmd: pick(), Text: pick(), After: strs()}, {Turn: 1, Kind: "prompt", Text: "x"}}
	}
	if maybe() {
		c.Digest.Notes = []Note{}
	}
	c.Digest.Commands, c.Digest.Read, c.Digest.Dropped, c.Digest.Cut = strs(), strs(), r.Intn(3), r.Intn(3)
	if maybe() {
		s.Calls = map[string]string{pick(): pick(), "t9": "go test"}
	}
	if maybe() {
		s.Failing = map[string]*Failing{pick(): {Turn: r.Intn(5), Cmd: pick(), Changed: strs(), Ran: strs()}, "go test": {Turn: 1, Cmd: "go test ./..."}}
	}
	s.TitleOpen, s.ForkedAt, s.Checked = maybe(), pick(), maybe()
	s.Spawned, s.CommandOpen = strs(), pick()
	return c
}

// FuzzCheckpointCodec holds the hand-written codec to encoding/json: the
// bytes it writes are json.MarshalIndent's, and what it reads from any
// input is what json.Unmarshal reads (where both accept it; the codec may
// refuse only what encoding/json refuses too, or bytes given as an array).
func FuzzCheckpointCodec(f *testing.F) {
	for seed := range int64(20) {
		f.Add(seed, []byte(nil))
	}
	for _, s := range []string{`null`, `{}`, `{"SESSION_ID":"x","ſession_id":"y"}`, `{"turns":1.5}`, `{"turns":1e2}`, `{"tools":{"a":null}}`,
		`{"goal":"\ud83d\ude00 \ud800 \udc00x \u00e9"}`, `{"state":{"shown":"AAEC"}}`, `{"state":{"shown":[1,2]}}`, `{"process":{"pid":-1,"start":-1}}`,
		`{"files_changed":null,"tools":null}`, `{"transcript":{"offset":9223372036854775808}}`, `{"x":[{"y":[true,false,null,-0.5e-3]}]} `,
		`{"goal":"a"} x`, `{"goal":"` + "\xff" + `"}`, "{\"goal\":\"\x01\"}", `{"turns":-0}`, `{"friction":{"score":1e400}}`,
		`{"digest":{"notes":[{"turn":1,"kind":"prompt","text":"x"},null,5]}}`, `{"state":{"failing":{"a":null,"b":{"changed":null}}}}`, `{"digest":null}`} {
		f.Add(int64(-1), []byte(s))
	}
	f.Fuzz(func(t *testing.T, seed int64, data []byte) {
		if seed >= 0 {
			c := randomCheckpoint(seed)
			want, werr := json.MarshalIndent(c, "", "  ")
			got, gerr := Marshal(c)
			if (werr != nil) != (gerr != nil) || werr == nil && !bytes.Equal(got, want) {
				t.Fatalf("marshal differs:\ncodec %v\n%s\njson %v\n%s", gerr, got, werr, want)
			}
			if werr == nil {
				data = want
			}
		}
		var want, got Record
		werr := json.Unmarshal(data, &want)
		gerr := Unmarshal(data, &got)
		switch {
		case werr == nil && gerr == nil:
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("unmarshal of %q differs:\ncodec %+v\njson  %+v", data, got, want)
			}
		case gerr == nil:
			t.Fatalf("the codec read %q, which encoding/json refuses (%v)", data, werr)
		case werr == nil && !bytes.Contains(bytes.ToLower(data), []byte("shown")):
			t.Fatalf("the codec refused %q (%v), which encoding/json reads", data, gerr)
		}
	})
}

// TestJSONLen: jsonLen counts what appendJSONString writes.
func TestJSONLen(t *testing.T) {
	for seed := range int64(200) {
		s := randomCheckpoint(seed).Goal + randomCheckpoint(seed+1).Title
		if got, want := jsonLen(s), len(appendJSONString(nil, s)); got != want {
			t.Fatalf("jsonLen(%q) = %d, want %d", s, got, want)
		}
	}
}

// fillAll sets every exported field JSON writes under v to a value that is
// not its zero: a string, a number, true, a map and a slice of one filled
// element, a pointer to a filled value.
func fillAll(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.Uint64, reflect.Uint32, reflect.Uint:
		v.SetUint(9)
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillAll(p.Elem())
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillAll(s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillAll(k)
		fillAll(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() && f.Tag.Get("json") != "-" {
				fillAll(v.Field(i))
			}
		}
	}
}

// leaves names every field JSON writes under t, as a path.
func leaves(t reflect.Type, path string, out *[]string) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			*out = append(*out, path)
			return
		}
		leaves(t.Elem(), path+"[]", out)
	case reflect.Map:
		leaves(t.Elem(), path+"{}", out)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.IsExported() && f.Tag.Get("json") != "-" {
				leaves(f.Type, path+"."+f.Name, out)
			}
		}
	default:
		*out = append(*out, path)
	}
}

// set says whether the field at path holds a value that is not its zero
// somewhere under v.
func set(v reflect.Value, path string) bool {
	if path == "" {
		return !v.IsZero()
	}
	switch v.Kind() {
	case reflect.Pointer:
		return !v.IsNil() && set(v.Elem(), strings.TrimPrefix(path, "[]"))
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Len() > 0
		}
		for i := range v.Len() {
			if set(v.Index(i), strings.TrimPrefix(path, "[]")) {
				return true
			}
		}
		return false
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if set(it.Value(), strings.TrimPrefix(path, "{}")) {
				return true
			}
		}
		return false
	case reflect.Struct:
		name, rest, _ := strings.Cut(strings.TrimPrefix(path, "."), ".")
		if i := strings.IndexAny(name, "[{"); i >= 0 {
			name, rest = name[:i], name[i:]+"."+rest
			rest = strings.TrimSuffix(rest, ".")
		} else if rest != "" {
			rest = "." + rest
		}
		return set(v.FieldByName(name), rest)
	}
	return !v.IsZero()
}

// TestCheckpointSchemaIsWhole: a checkpoint's schema lives in its struct,
// its hand codec's two directions and the fuzzer's filler; this holds the
// last three to the first. A checkpoint with every field set is written
// byte for byte as encoding/json writes it and read back whole, and the
// fuzzer's filler sets every field for some seed — so a field added to the
// struct and forgotten anywhere else fails here.
func TestCheckpointSchemaIsWhole(t *testing.T) {
	var c Record
	fillAll(reflect.ValueOf(&c).Elem())
	want, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Marshal(&c)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the codec writes a checkpoint with every field set differently from encoding/json (%v):\ncodec\n%s\njson\n%s", err, got, want)
	}
	var back, viaJSON Record
	if err := Unmarshal(want, &back); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &viaJSON); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, viaJSON) {
		t.Fatalf("the codec reads a checkpoint with every field set differently from encoding/json:\ncodec %+v\njson  %+v", back, viaJSON)
	}
	var paths []string
	leaves(reflect.TypeOf(c), "", &paths)
	for _, p := range paths {
		found := false
		for seed := int64(0); seed < 200 && !found; seed++ {
			found = set(reflect.ValueOf(randomCheckpoint(seed)).Elem(), p)
		}
		if !found {
			t.Errorf("randomCheckpoint never sets %s: the fuzzer does not try it", p)
		}
	}
}
