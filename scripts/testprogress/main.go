// Command testprogress runs `go test -json ARGS…` and prints, as they
// happen, one line per finished test and a line every 15 s naming the
// tests still running, so a long end-to-end run is never silent; a failed
// test's output is printed whole. With -tests first, each passing test
// gets its line too (else only packages do). It exits 1 when a test or a
// package failed, so `make test` fails with it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"
)

type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

func main() {
	var mu sync.Mutex
	running := map[string]time.Time{}
	pkgOf := map[string]string{} // a running test's package
	output := map[string][]string{}
	failedSub := map[string]bool{}
	start := time.Now()
	failed := false
	go func() {
		for range time.Tick(15 * time.Second) {
			mu.Lock()
			var names []string
			for n := range running {
				names = append(names, n)
			}
			sort.Strings(names)
			if len(names) > 0 {
				fmt.Printf("    … %s: still running %s\n", elapsed(time.Since(start)), strings.Join(names, ", "))
			} else {
				fmt.Printf("    … %s: running (a package reports when it is done)\n", elapsed(time.Since(start)))
			}
			mu.Unlock()
		}
	}()
	args, perTest := os.Args[1:], false
	if len(args) > 0 && args[0] == "-tests" {
		args, perTest = args[1:], true
	}
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		os.Exit(1)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			fmt.Println(sc.Text()) // build errors come as plain text
			continue
		}
		name := ev.Test
		mu.Lock()
		switch {
		case ev.Action == "fail" && strings.Contains(name, "/"):
			failedSub[name] = true
		case ev.Action == "run" && name != "" && !strings.Contains(name, "/"):
			running[name], pkgOf[name] = time.Now(), ev.Package
		case ev.Action == "output":
			key := name
			if key == "" {
				key = "package " + ev.Package
			}
			output[key] = append(output[key], ev.Output)
		case (ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip") && name != "" && !strings.Contains(name, "/"):
			delete(running, name)
			if perTest || ev.Action == "fail" {
				fmt.Printf("%-4s %s (%.1fs)\n", ev.Action, name, ev.Elapsed)
			}
			if ev.Action == "fail" {
				failed = true
				fmt.Print(strings.Join(output[name], ""))
				// A failed subtest's lines are kept under its own name
				// (TestScripts/sync): print them too, or the failure
				// says only that something under the test failed.
				var subs []string
				for k := range failedSub {
					if strings.HasPrefix(k, name+"/") {
						subs = append(subs, k)
					}
				}
				sort.Strings(subs)
				for _, k := range subs {
					fmt.Print(strings.Join(output[k], ""))
				}
			}
			for k := range output {
				if k == name || strings.HasPrefix(k, name+"/") {
					delete(output, k)
					delete(failedSub, k)
				}
			}
		case ev.Action == "fail" && name == "":
			failed = true
			printStillRunning(ev.Package, running, pkgOf, output)
			fmt.Print(strings.Join(output["package "+ev.Package], ""))
			fmt.Printf("FAIL %s (%.1fs)\n", ev.Package, ev.Elapsed)
		case ev.Action == "pass" && name == "":
			fmt.Printf("ok   %s (%.1fs)\n", ev.Package, ev.Elapsed)
		}
		mu.Unlock()
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		failed = true
	}
	if err := cmd.Wait(); err != nil {
		failed = true
	}
	if failed {
		os.Exit(1)
	}
}

func elapsed(d time.Duration) string { return d.Round(time.Second).String() }

// printStillRunning prints what the tests of package pkg still running
// when it failed have said (go test's -timeout panics inside one of them,
// and the panic is its output), and forgets them.
func printStillRunning(pkg string, running map[string]time.Time, pkgOf map[string]string, output map[string][]string) {
	var left []string
	for n := range running {
		if pkgOf[n] == pkg {
			left = append(left, n)
		}
	}
	sort.Strings(left)
	for _, n := range left {
		lines := output[n]
		fmt.Printf("fail %s (still running when its package failed; its last lines:)\n", n)
		fmt.Print(strings.Join(lines[max(0, len(lines)-40):], ""))
		delete(running, n)
	}
}
