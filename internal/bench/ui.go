package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// uiPageLimit is the most server time a page of `ccmem ui` may take on the
// large store (issue 26).
const uiPageLimit = 200 * time.Millisecond

// uiResult is one page's timings: the server's own (Server-Timing), and
// the whole request as the browser waits for it.
type uiResult struct {
	page, path   string
	server, wall stats
	bytes        int
	pass         bool
}

// measureUI serves the store of w with ccmem-ui and times every page, the
// server's time read from its Server-Timing header: a warm-up, then runs
// rounds of each page in turn.
func measureUI(o options, w world, runs int) ([]uiResult, error) {
	cmd := exec.Command(filepath.Join(o.hookDir, "ccmem-ui"), "--no-open")
	cmd.Env = []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH")}
	cmd.Dir = w.repo
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
	if _, _, err := get(client, addr); err != nil {
		return nil, err
	}
	base := addr[:strings.Index(addr, "/?token=")]
	ents, _ := os.ReadDir(w.env.EpisodesDir(w.key))
	episode := ""
	for i := len(ents) - 1; i >= 0 && episode == ""; i-- {
		if strings.HasSuffix(ents[i].Name(), ".json") {
			episode = ents[i].Name()
		}
	}
	key := url.PathEscape(w.key)
	pages := []struct{ name, path string }{
		{"projects", "/"},
		{"a project", "/p/" + key},
		{"a session", "/p/" + key + "/e/" + url.PathEscape(episode)},
		{"friction", "/p/" + key + "/friction"},
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
	var res []uiResult
	for i, p := range pages {
		r := uiResult{page: p.name, path: p.path, server: durStats(server[i]), wall: durStats(wall[i]), bytes: sizes[i]}
		r.pass = r.server.max <= uiPageLimit
		res = append(res, r)
	}
	return res, nil
}

// get fetches u and returns the server's time for it.
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
	ms, err := strconv.ParseFloat(v, 64)
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("no Server-Timing (%q)", st)
	}
	return time.Duration(ms * float64(time.Millisecond)), len(body), nil
}

func durStats(d []time.Duration) stats {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return stats{}
	}
	return stats{median: s[len(s)/2], p95: s[min(len(s)-1, len(s)*95/100)], max: s[len(s)-1]}
}

func printUI(res []uiResult) {
	fmt.Printf("\nccmem ui on the large store: each page's server time (Server-Timing) and the whole request\n")
	fmt.Printf("  %-10s %-44s %9s %8s %9s %8s %8s  %s\n", "page", "address", "median ms", "max ms", "wall med", "wall max", "KB", "target")
	for _, r := range res {
		verdict := "PASS"
		if !r.pass {
			verdict = "MISS"
		}
		path := r.path
		if len(path) > 44 {
			path = path[:41] + "…"
		}
		fmt.Printf("  %-10s %-44s %9s %8s %9s %8s %8d  max ≤ %v  %s\n", r.page, path, ms(r.server.median), ms(r.server.max), ms(r.wall.median), ms(r.wall.max), r.bytes/1024, uiPageLimit, verdict)
	}
}
