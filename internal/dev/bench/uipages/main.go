// Command uipages times every page of `ccmem ui` on a store, for `make
// bench` (which builds and runs it): in a process of its own, so the bench,
// whose children's peak memory counts its own at fork, never links an HTTP
// client. It prints a table and, last, "uipages: N of M PASS".
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// pageLimit is the most server time a page may take on the large store
// (the ui's target).
const pageLimit = 200 * time.Millisecond

func main() {
	bin := flag.String("ccmem-ui", "", "the ccmem-ui binary")
	home := flag.String("home", "", "HOME of the store")
	repo := flag.String("repo", "", "the project's folder")
	key := flag.String("key", "", "the project's store key")
	episodes := flag.String("episodes", "", "the project's episodes folder")
	runs := flag.Int("runs", 10, "counted rounds of every page")
	flag.Parse()
	res, err := measure(*bin, *home, *repo, *key, *episodes, *runs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "uipages:", err)
		os.Exit(1)
	}
	pass := 0
	fmt.Printf("\nccmem ui on the large store: each page's server time (Server-Timing) and the whole request\n")
	fmt.Printf("  %-10s %-44s %9s %8s %9s %8s %8s  %s\n", "page", "address", "median ms", "max ms", "wall med", "wall max", "KB", "target")
	for _, r := range res {
		verdict := "MISS"
		if r.server.max <= pageLimit {
			verdict = "PASS"
			pass++
		}
		path := r.path
		if len(path) > 44 {
			path = path[:41] + "…"
		}
		fmt.Printf("  %-10s %-44s %9s %8s %9s %8s %8d  max ≤ %v  %s\n", r.page, path, ms(r.server.median), ms(r.server.max), ms(r.wall.median), ms(r.wall.max), r.bytes/1024, pageLimit, verdict)
	}
	fmt.Printf("uipages: %d of %d PASS\n", pass, len(res))
}

type stats struct{ median, max time.Duration }

// result is one page's timings: the server's own, and the whole request
// as the browser waits for it.
type result struct {
	page, path   string
	server, wall stats
	bytes        int
}

// measure serves the store with ccmem-ui and times every page: a warm-up
// round, then runs rounds of each page in turn.
func measure(bin, home, repo, key, episodesDir string, runs int) ([]result, error) {
	cmd := exec.Command(bin, "--no-open")
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	cmd.Dir = repo
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("ccmem-ui printed no address: %v", err)
	}
	addr := strings.TrimSpace(line)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	// The address opens a session at its own path; the pages lie under it.
	resp, err := client.Get(addr)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	base := strings.TrimSuffix(resp.Request.URL.String(), "/")
	ents, _ := os.ReadDir(episodesDir)
	episode := ""
	for i := len(ents) - 1; i >= 0 && episode == ""; i-- {
		if strings.HasSuffix(ents[i].Name(), ".json") {
			episode = ents[i].Name()
		}
	}
	k := url.PathEscape(key)
	pages := []struct{ name, path string }{
		{"projects", "/"},
		{"a project", "/p/" + k},
		{"a session", "/p/" + k + "/e/" + url.PathEscape(episode)},
		{"friction", "/p/" + k + "/friction"},
		{"search", "/search?q=" + url.QueryEscape("payment retry timeout checkout")},
		{"learned", "/learned"},
	}
	server := make([][]time.Duration, len(pages))
	wall := make([][]time.Duration, len(pages))
	sizes := make([]int, len(pages))
	for round := -1; round < runs; round++ {
		for i, p := range pages {
			start := time.Now()
			dur, n, err := get(client, base+p.path)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", p.path, err)
			}
			if round >= 0 { // round -1 warms the caches up
				server[i] = append(server[i], dur)
				wall[i] = append(wall[i], time.Since(start))
				sizes[i] = n
			}
		}
	}
	var res []result
	for i, p := range pages {
		res = append(res, result{page: p.name, path: p.path, server: summarize(server[i]), wall: summarize(wall[i]), bytes: sizes[i]})
	}
	return res, nil
}

// get fetches u and returns the server's time for it (Server-Timing).
func get(c *http.Client, u string) (time.Duration, int, error) {
	resp, err := c.Get(u)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return 0, 0, fmt.Errorf("status %d: %.200s", resp.StatusCode, body)
	}
	st := resp.Header.Get("Server-Timing")
	_, v, ok := strings.Cut(st, "dur=")
	msv, err := strconv.ParseFloat(v, 64)
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("no Server-Timing (%q)", st)
	}
	return time.Duration(msv * float64(time.Millisecond)), len(body), nil
}

func summarize(d []time.Duration) stats {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return stats{}
	}
	return stats{median: s[len(s)/2], max: s[len(s)-1]}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }
