package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"
)

// sample is one finished process: how long it took and its peak RSS.
type sample struct {
	d   time.Duration
	rss int64 // KB
}

// command is one measured process.
type command struct {
	path  string
	args  []string
	env   []string
	stdin string
	dir   string
}

func (c command) run() (sample, error) {
	cmd := exec.Command(c.path, c.args...)
	cmd.Env, cmd.Dir = c.env, c.dir
	cmd.Stdin = strings.NewReader(c.stdin)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v: %s", filepath.Base(c.path), err, strings.TrimSpace(stderr.String()))
	}
	return sample{d, peakRSS(cmd.ProcessState)}, nil
}

// paired are a row's rounds: in each, the row's process and the Go floor
// ran back to back (in alternating order), and the Python floor beside
// them, so a ratio compares runs made under the same machine load.
type paired struct {
	hook, goF, pyF []sample
}

func (p *paired) add(h, g, py sample) {
	p.hook, p.goF, p.pyF = append(p.hook, h), append(p.goF, g), append(p.pyF, py)
}

// ratio is the median of the per-round ratios of the row to base.
func (p paired) ratio(base []sample) float64 {
	var rs []float64
	for i := range p.hook {
		if i < len(base) && base[i].d > 0 {
			rs = append(rs, float64(p.hook[i].d)/float64(base[i].d))
		}
	}
	if len(rs) == 0 {
		return 0
	}
	sortFloats(rs)
	return median(rs)
}

func sortFloats(xs []float64) { sort.Float64s(xs) }

// median of sorted xs.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

type stats struct {
	median, p95, max time.Duration
	rss              int64
}

func summarize(s []sample) stats {
	if len(s) == 0 {
		return stats{}
	}
	ds := make([]time.Duration, len(s))
	var rss int64
	for i, x := range s {
		ds[i] = x.d
		rss = max(rss, x.rss)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	p95 := ds[min(len(ds)-1, (len(ds)*95+99)/100-1)]
	med := ds[len(ds)/2]
	if len(ds)%2 == 0 {
		med = (ds[len(ds)/2-1] + ds[len(ds)/2]) / 2
	}
	return stats{median: med, p95: p95, max: ds[len(ds)-1], rss: rss}
}

// resetPeakRSS lowers this process's peak RSS to its current RSS (Linux),
// which children measured from now on inherit as their floor.
func resetPeakRSS() {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// loadAverage is the machine's 1, 5 and 15 minute load averages, as the
// system reports them, or "?".
func loadAverage() string {
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(data))
		if len(f) >= 3 {
			return strings.Join(f[:3], " ")
		}
	}
	if out, err := exec.Command("sysctl", "-n", "vm.loadavg").Output(); err == nil {
		f := strings.Fields(strings.Trim(strings.TrimSpace(string(out)), "{}"))
		if len(f) >= 3 {
			return strings.Join(f[:3], " ")
		}
	}
	return "?"
}

// realPython finds python3's real interpreter (not a version manager's
// shim script), and its version; "" when there is none.
func realPython() (string, string) {
	p, err := exec.LookPath("python3")
	if err != nil {
		return "", "not installed"
	}
	out, err := exec.Command(p, "-c", "import sys; print(sys.executable); print(sys.version.split()[0])").Output()
	if err != nil {
		return "", "not runnable"
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 {
		return p, "?"
	}
	return lines[0], "Python " + lines[1]
}

func machine() string {
	cpu := "?"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	} else if out, err := exec.Command("sysctl", "-n", "machdep.cpu.brand_string").Output(); err == nil {
		cpu = strings.TrimSpace(string(out))
	}
	return fmt.Sprintf("%d cores, %s, %s/%s", runtime.NumCPU(), cpu, runtime.GOOS, runtime.GOARCH)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }
