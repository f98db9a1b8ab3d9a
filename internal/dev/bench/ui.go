package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// measureUI times every page of `ccmem ui` on the store of w with the
// uipages program (built by prepare), prints its table, and returns how
// many pages passed of how many.
func measureUI(o options, w world, runs int) (pass, total int, err error) {
	cmd := exec.Command(o.uipages, "-ccmem-ui", filepath.Join(o.hookDir, "ccmem-ui"), "-home", w.home, "-repo", w.repo,
		"-key", w.key, "-episodes", w.env.EpisodesDir(w.key), "-runs", strconv.Itoa(runs))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, err
	}
	text := strings.TrimRight(string(out), "\n")
	last := text[strings.LastIndexByte(text, '\n')+1:]
	if _, err := fmt.Sscanf(last, "uipages: %d of %d PASS", &pass, &total); err != nil {
		return 0, 0, fmt.Errorf("uipages printed %q", last)
	}
	uiTable = text[:strings.LastIndexByte(text, '\n')]
	return pass, total, nil
}

// uiTable is the pages' table, printed after the main one.
var uiTable string
