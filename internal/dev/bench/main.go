// Command bench is `make bench`: whole-process timings of ccmem's hooks and
// commands on generated, deterministic stores. Every row is paired with a
// trivial Go binary that reads the same stdin and exits (the floor for any
// compiled hook): in each round the two run back to back, in alternating
// order, and the verdict is judged on the median of the per-round ratios,
// so machine load that comes and goes affects both sides of a ratio alike.
// python3 loading the same JSON (the floor for interpreted hooks) runs
// beside them for comparison. It prints medians, p95, max, peak RSS, the
// paired ratios, the machine's load average, and PASS/MISS per target.
// Targets are checked here, never by a unit test.
package main

import (
	"debug/elf"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ccmem/ccmem/pkg/claudecode"
	"github.com/ccmem/ccmem/pkg/search"
)

type options struct {
	bin            string
	runs, warmup   int
	coldRuns       int
	keep           bool
	only           string
	python         string
	floor, uipages string
	hookDir, ccm   string
	pythonVersion  string
}

func main() {
	var o options
	flag.IntVar(&o.runs, "runs", 20, "counted rounds per row (after warm-up)")
	flag.IntVar(&o.warmup, "warmup", 3, "uncounted rounds first")
	flag.IntVar(&o.coldRuns, "cold-runs", 3, "first starts over the 100,000-episode store (each on a fresh copy)")
	flag.StringVar(&o.bin, "bin", "lib/ccmem", "folder with the built ccmem binaries (make build's)")
	flag.BoolVar(&o.keep, "keep", false, "keep the generated stores")
	flag.StringVar(&o.only, "only", "", "only the stores whose name contains this (typical, large, learned, silos, episodes)")
	gen := flag.String("generate", "", "internal: generate the store named by -spec into this folder and exit")
	spec := flag.String("spec", "", "internal: the store to generate")
	restoreDir := flag.String("restore", "", "internal: put a generated store's episodes back as generated")
	recallOnly := flag.Bool("recall", false, "only the precision report of search and per-prompt recall")
	peers := flag.Bool("peers", false, "time claude-mem's hooks beside ccmem's (make bench-peers)")
	yearOnly := flag.Bool("year", false, "only the year of sessions: 3,000 imported, then prompts")
	triageOnly := flag.Bool("triage", false, "only what triage adds to a turn's end: stop with triage on and off, paired")
	flag.Parse()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	switch {
	case *recallOnly:
		if err := recallReport(o); err != nil {
			fail(err)
		}
		return
	case *gen != "":
		for _, s := range specs {
			if s.name == *spec {
				generate(*gen, s)
				return
			}
		}
		fail(fmt.Errorf("unknown spec %q", *spec))
	case *restoreDir != "":
		restore(*restoreDir)
		return
	case *peers:
		if err := peerReport(o); err != nil {
			fail(err)
		}
		return
	case *yearOnly:
		if err := yearRow(o); err != nil {
			fail(err)
		}
		return
	case *triageOnly:
		if err := triageRow(o); err != nil {
			fail(err)
		}
		return
	}
	if err := run(o); err != nil {
		fail(err)
	}
	if o.only == "" {
		fmt.Println()
		if err := recallReport(o); err != nil {
			fail(err)
		}
	}
}

// yearRow runs the year of sessions alone (make bench runs it last).
func yearRow(o options) error {
	tmp, err := os.MkdirTemp("", "ccmem-bench-year-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Println("store kept in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	if err := o.prepare(tmp); err != nil {
		return err
	}
	rep, err := measureYear(o, filepath.Join(tmp, "year"))
	if err != nil {
		return err
	}
	pass, total := printYear(rep)
	fmt.Printf("%d of %d targets PASS\n", pass, total)
	return nil
}

// binaries are the built binaries the rows run: ccmem and every hook.
func (o *options) binaries() []string {
	out := []string{o.ccm}
	for _, h := range append(claudecode.Binaries(), "ccmem-ui") {
		out = append(out, filepath.Join(o.hookDir, h))
	}
	return out
}

// printSizes prints each binary's size beside the Go floor's: what a
// start maps and faults in.
func (o *options) printSizes() {
	size := func(p string) int64 {
		if fi, err := os.Stat(p); err == nil {
			return fi.Size()
		}
		return 0
	}
	floor := size(o.floor)
	fmt.Printf("\nbinary sizes (the Go floor: %.1f MB)\n", float64(floor)/(1<<20))
	for _, b := range o.binaries() {
		n := size(b)
		fmt.Printf("  %-20s %5.1f MB  %4.1f× the floor\n", filepath.Base(b), float64(n)/(1<<20), float64(n)/float64(max(floor, 1)))
	}
	// What a hook links, by package (text and data symbols, go tool nm on
	// a build that keeps its symbols: the installed ones are stripped).
	hook := filepath.Join(filepath.Dir(o.floor), "userpromptsubmit-symbols")
	if out, err := exec.Command("go", "build", "-trimpath", "-o", hook, "./hooks/userpromptsubmit").CombinedOutput(); err != nil {
		fmt.Printf("  (no package table: %v %s)\n", err, out)
		return
	}
	// Symbols in sections that take file space only: a zeroed array (the
	// FIPS DRBG's 32 MB one) lives in .noptrbss and costs the file nothing.
	f, err := elf.Open(hook)
	if err != nil {
		fmt.Printf("  (no package table: %v)\n", err)
		return
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		fmt.Printf("  (no package table: %v)\n", err)
		return
	}
	bySize := map[string]int64{}
	for _, s := range syms {
		if int(s.Section) <= 0 || int(s.Section) >= len(f.Sections) || f.Sections[s.Section].Type == elf.SHT_NOBITS || s.Size == 0 {
			continue
		}
		bySize[symbolPackage(s.Name)] += int64(s.Size)
	}
	type kv struct {
		pkg  string
		size int64
	}
	var list []kv
	for k, v := range bySize {
		list = append(list, kv{k, v})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].size > list[j].size })
	fmt.Println("\nwhat userpromptsubmit links, by package (KB, text and data)")
	for _, x := range list[:min(15, len(list))] {
		fmt.Printf("  %7.0f  %s\n", float64(x.size)/1024, x.pkg)
	}
}

// symbolPackage is the package of a symbol name: "a/b.(*T).M" → "a/b".
func symbolPackage(sym string) string {
	sym, _, _ = strings.Cut(sym, "[") // generic instances
	slash := strings.LastIndexByte(sym, '/')
	if i := strings.IndexByte(sym[slash+1:], '.'); i >= 0 {
		return sym[:slash+1+i]
	}
	return sym
}

// prepare checks the built binaries and builds the Go floor into tmp.
func (o *options) prepare(tmp string) error {
	bin, _ := filepath.Abs(o.bin)
	o.ccm = filepath.Join(bin, "ccmem")
	o.hookDir = bin
	for _, b := range o.binaries() {
		if _, err := os.Stat(b); err != nil {
			return fmt.Errorf("%s is missing: run `make build` first", b)
		}
	}
	o.uipages = filepath.Join(tmp, "uipages")
	if out, err := exec.Command("go", "build", "-trimpath", "-o", o.uipages, "./internal/dev/bench/uipages").CombinedOutput(); err != nil {
		return fmt.Errorf("building the ccmem ui timer: %v\n%s", err, out)
	}
	o.floor = filepath.Join(tmp, "floor")
	if out, err := exec.Command("go", "build", "-trimpath", "-o", o.floor, "./internal/dev/bench/floor").CombinedOutput(); err != nil {
		return fmt.Errorf("building the Go floor: %v\n%s", err, out)
	}
	o.python, o.pythonVersion = realPython()
	return nil
}

func run(o options) error {
	tmp, err := os.MkdirTemp("", "ccmem-bench-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Println("stores kept in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	if err := o.prepare(tmp); err != nil {
		return err
	}
	fmt.Printf("ccmem bench: %d rounds per row after %d warm-up; in each round the row and the Go floor run back to back, in alternating order\n", o.runs, o.warmup)
	fmt.Printf("machine: %s\nGo floor: a compiled binary that reads stdin; Python floor: %s -c 'import json,sys; json.load(sys.stdin)' (%s)\n",
		machine(), o.python, o.pythonVersion)
	loadBefore := loadAverage()
	fmt.Printf("load average before: %s\n\n", loadBefore)

	var rows []row
	var last world
	uiPass, uiTotal := 0, 0
	for _, spec := range specs {
		if o.only != "" && !strings.Contains(spec.name, o.only) {
			continue
		}
		// Generate in a child process: a child's peak RSS counts its
		// parent's at fork, so this process must stay small.
		start := time.Now()
		dir := filepath.Join(tmp, strings.ReplaceAll(spec.name, " ", "-"))
		self, err := os.Executable()
		if err != nil {
			return err
		}
		if out, err := exec.Command(self, "-generate", dir, "-spec", spec.name).CombinedOutput(); err != nil {
			return fmt.Errorf("generating the %s store: %v\n%s", spec.name, err, out)
		}
		w := locate(dir)
		last = w
		fmt.Printf("generated the %s store in %.1fs\n", spec.name, time.Since(start).Seconds())
		resetPeakRSS()
		for _, rs := range rowsFor(o, spec, w) {
			r, err := measure(o, rs, w)
			if err != nil {
				return err
			}
			rows = append(rows, r)
		}
		if spec.name == large.name {
			if uiPass, uiTotal, err = measureUI(o, w, max(5, o.runs/2)); err != nil {
				return fmt.Errorf("ccmem ui: %v", err)
			}
		}
		if n, files := dirSize(search.Dir(w.env)); n > 0 {
			fmt.Printf("  search index of the %s store: %.1f MB in %d files\n", spec.name, float64(n)/(1<<20), files)
		}
	}
	fmt.Println()
	printTable(rows)
	if err := explainMisses(o, rows, last); err != nil {
		return err
	}
	if uiTable != "" {
		fmt.Println(uiTable)
	}
	o.printSizes()
	missed := 0
	for _, r := range rows {
		if !r.pass {
			missed++
		}
	}
	missed += uiTotal - uiPass
	yearPass, yearTotal := 0, 0
	if o.only == "" || strings.Contains("year", o.only) {
		rep, err := measureYear(o, filepath.Join(tmp, "year"))
		if err != nil {
			return fmt.Errorf("a year of sessions: %v", err)
		}
		yearPass, yearTotal = printYear(rep)
		missed += yearTotal - yearPass
	}
	agentsTotal := 0
	if o.only == "" || strings.Contains("agents", o.only) {
		pass, err := agentsRow(o, filepath.Join(tmp, "agents"))
		if err != nil {
			return fmt.Errorf("other agents' sessions: %v", err)
		}
		agentsTotal = 1
		if !pass {
			missed++
		}
	}
	fmt.Printf("\nload average: %s before, %s after (1, 5 and 15 minutes)\n", loadBefore, loadAverage())
	fmt.Printf("%d of %d targets PASS\n", len(rows)+uiTotal+yearTotal+agentsTotal-missed, len(rows)+uiTotal+yearTotal+agentsTotal)
	return nil
}

// measure runs one row's rounds, each paired with the floors.
// dirSize is the bytes and the files under dir.
func dirSize(dir string) (int64, int) {
	var n int64
	files := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
				files++
			}
		}
		return nil
	})
	return n, files
}

func measure(o options, rs rowSpec, w world) (row, error) {
	env := []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH"), "CLAUDE_PID=4194305"}
	rs.cmd.env, rs.cmd.dir = env, w.repo
	runs, warmup := o.runs, o.warmup
	if rs.rounds > 0 {
		runs, warmup = rs.rounds, 0
	}
	var p paired
	for i := 0; i < warmup+runs; i++ {
		if rs.before != nil {
			rs.before(&rs.cmd, i)
		}
		// The floors read the same input the row does.
		goCmd := command{path: o.floor, stdin: rs.cmd.stdin, env: env, dir: w.repo}
		pyCmd := command{path: o.python, args: []string{"-c", "import json,sys; json.load(sys.stdin)"}, stdin: rs.cmd.stdin, env: env, dir: w.repo}
		// Alternate which of the pair runs first; Python (which evicts
		// caches) runs before both or after both, never between.
		var h, g, py sample
		var err error
		if o.python != "" && i%4 < 2 {
			py, _ = pyCmd.run()
		}
		if i%2 == 0 {
			if h, err = rs.cmd.run(); err == nil {
				g, err = goCmd.run()
			}
		} else {
			if g, err = goCmd.run(); err == nil {
				h, err = rs.cmd.run()
			}
		}
		if o.python != "" && i%4 >= 2 {
			py, _ = pyCmd.run()
		}
		if err != nil {
			return row{}, err
		}
		if rs.after != nil {
			rs.after(i)
		}
		if i >= warmup {
			p.add(h, g, py)
		}
	}
	r := row{name: rs.name, store: rs.store, hook: summarize(p.hook), goF: summarize(p.goF), pyF: summarize(p.pyF),
		xGo: p.ratio(p.goF), bytes: rs.bytes, bin: rs.cmd.path}
	if o.python != "" {
		r.xPy = p.ratio(p.pyF)
	}
	r.target, r.pass = rs.judge(r)
	return r, nil
}

// explainMisses says why each hook row over its ratio to the floor
// misses, measured: its binary answering --version (the start of a binary
// that size, nothing read, no store opened) paired with the floor as the
// row was. What is over the floor splits into that start and the hook's
// work.
func explainMisses(o options, rows []row, w world) error {
	bare := map[string]float64{}
	said := false
	for _, r := range rows {
		if r.pass || !strings.HasSuffix(r.target, "× Go") || r.bin == "" {
			continue
		}
		if !said {
			fmt.Println("why a hook misses its ratio: the same binary answering --version (its start, nothing read) beside the floor")
			said = true
		}
		x, ok := bare[r.bin]
		if !ok {
			b, err := measure(o, rowSpec{name: filepath.Base(r.bin) + " --version", cmd: command{path: r.bin, args: []string{"--version"}},
				judge: func(row) (string, bool) { return "", true }}, w)
			if err != nil {
				return err
			}
			x, bare[r.bin] = b.xGo, b.xGo
		}
		start := 0.0
		if r.xGo > 1 {
			start = min(max((x-1)/(r.xGo-1), 0), 1)
		}
		fmt.Printf("  %-28s %.2f× the floor; its bare start %.2f×: %.0f%% of what it is over the floor is the binary starting, %.0f%% its work\n",
			r.store+" "+r.name, r.xGo, x, 100*start, 100*(1-start))
	}
	if said {
		fmt.Println()
	}
	return nil
}
