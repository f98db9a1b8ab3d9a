package ui

import (
	"fmt"
	"html"
	"html/template"
	"strconv"
	"strings"

	"github.com/ccmem/ccmem/pkg/inject"
	"github.com/ccmem/ccmem/pkg/lessons"
)

// The charts are inline SVG drawn here, from numbers only: no script, no
// network; colours come from the style sheet (classes), so dark and light
// both read. Every chart has a <title> and a table beside it with the same
// numbers, for screen readers and for copying.

// classes are the friction classes, calmest first.
var classes = []string{"OK", "ROUGH", "FRICTION", "BAD"}

// budgetBar draws the block's characters by section against its budget:
// each section's share as a segment, each section's guarantee as a tick.
func budgetBar(b inject.Block, preamble int) template.HTML {
	const w, h = 640.0, 30.0
	total := float64(max(b.Budget, b.Chars, 1))
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="bar" viewBox="0 0 %g %g" width="100%%" role="img" aria-labelledby="budget-title"><title id="budget-title">%d of %d characters used</title>`, w, h+16, b.Chars, b.Budget)
	fmt.Fprintf(&s, `<rect class="budget" x="0" y="0" width="%g" height="%g" rx="3"/>`, w, h)
	x := 0.0
	seg := func(name string, chars int) {
		if chars <= 0 {
			return
		}
		sw := float64(chars) / total * w
		fmt.Fprintf(&s, `<rect class="sec sec-%s" x="%.1f" y="0" width="%.1f" height="%g"><title>%s: %d characters</title></rect>`, cssName(name), x, sw, h, html.EscapeString(name), chars)
		if sw > float64(len(name))*7.5+8 {
			fmt.Fprintf(&s, `<text x="%.1f" y="%g" class="seglabel">%s</text>`, x+4, h/2+4, html.EscapeString(name))
		}
		x += sw
	}
	seg("preamble", preamble)
	for _, sec := range b.Sections {
		seg(sec.Name, sec.Chars)
	}
	fmt.Fprintf(&s, `<text x="0" y="%g" class="axis">0</text><text x="%g" y="%g" class="axis" text-anchor="end">%d (budget_chars)</text></svg>`, h+13, w, h+13, b.Budget)
	return template.HTML(s.String())
}

// classMix draws a project's sessions by friction class, as one bar.
func classMix(by map[string]int) template.HTML {
	n := 0
	for _, c := range classes {
		n += by[c]
	}
	if n == 0 {
		return ""
	}
	const w, h = 160.0, 12.0
	var s strings.Builder
	var title []string
	for _, c := range classes {
		title = append(title, fmt.Sprintf("%s %d", c, by[c]))
	}
	fmt.Fprintf(&s, `<svg class="mix" viewBox="0 0 %g %g" width="%g" height="%g" role="img"><title>%s</title>`, w, h, w, h, strings.Join(title, ", "))
	x := 0.0
	for _, c := range classes {
		if by[c] == 0 {
			continue
		}
		sw := float64(by[c]) / float64(n) * w
		fmt.Fprintf(&s, `<rect class="cls-%s" x="%.1f" y="0" width="%.1f" height="%g"/>`, strings.ToLower(c), x, sw, h)
		x += sw
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// frictionChart draws sessions per week, stacked by how they went (calm,
// friction, bad), with the week's mean friction score as a line.
func frictionChart(weeks []lessons.Week) template.HTML {
	if len(weeks) == 0 {
		return ""
	}
	// The bars count sessions (left axis); the line is a score (right
	// axis, its own scale).
	const w, h, left, right, bottom, top = 720.0, 260.0, 36.0, 40.0, 40.0, 12.0
	most, maxScore := 1, 1.0
	for _, wk := range weeks {
		most = max(most, wk.Sessions)
		maxScore = max(maxScore, wk.MeanScore)
	}
	plotH := h - bottom - top
	step := (w - left - right) / float64(len(weeks))
	bw := min(max(2, step*0.7), 56)
	y := func(n int) float64 { return top + plotH - float64(n)/float64(most)*plotH }
	var s strings.Builder
	fmt.Fprintf(&s, `<svg id="friction-chart" class="chart" viewBox="0 0 %g %g" width="100%%" role="img" aria-labelledby="chart-title"><title id="chart-title">sessions per week by friction, %d weeks</title>`, w, h, len(weeks))
	for _, t := range []int{0, most / 2, most} {
		fmt.Fprintf(&s, `<line class="grid" x1="%g" x2="%g" y1="%.1f" y2="%.1f"/><text class="axis" x="%g" y="%.1f" text-anchor="end">%d</text>`, left, w-right, y(t), y(t), left-4, y(t)+4, t)
	}
	for _, f := range []float64{0, 0.5, 1} {
		fmt.Fprintf(&s, `<text class="axis score-axis" x="%g" y="%.1f" text-anchor="start">%.1f</text>`, w-right+4, top+plotH-f*plotH+4, f*maxScore)
	}
	var line []string
	for i, wk := range weeks {
		x := left + float64(i)*step + (step-bw)/2
		calm := wk.Sessions - wk.Friction - wk.Bad
		base := 0
		for _, part := range []struct {
			class string
			n     int
		}{{"ok", calm}, {"friction", wk.Friction}, {"bad", wk.Bad}} {
			if part.n <= 0 {
				continue
			}
			fmt.Fprintf(&s, `<rect class="cls-%s" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>week of %s: %d %s</title></rect>`,
				part.class, x, y(base+part.n), bw, y(base)-y(base+part.n), html.EscapeString(wk.Start), part.n, part.class)
			base += part.n
		}
		sy := top + plotH - wk.MeanScore/maxScore*plotH
		line = append(line, fmt.Sprintf("%.1f,%.1f", x+bw/2, sy))
		if len(weeks) <= 16 || i%(len(weeks)/8+1) == 0 {
			fmt.Fprintf(&s, `<text class="axis" x="%.1f" y="%g" text-anchor="middle">%s</text>`, x+bw/2, h-bottom+16, html.EscapeString(strings.TrimPrefix(wk.Start[min(len(wk.Start), 5):], "")))
		}
	}
	fmt.Fprintf(&s, `<polyline class="score" points="%s"><title>mean friction score per week (highest %.1f)</title></polyline>`, strings.Join(line, " "), maxScore)
	fmt.Fprintf(&s, `<text class="axis" x="%g" y="%g">week starting (UTC) · bars: sessions (calm, friction, bad) · line: mean score (right axis)</text></svg>`, left, h-6)
	return template.HTML(s.String())
}

// cssName keeps a section name to the letters a class name may hold.
func cssName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, strings.ToLower(s))
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	case n >= 1<<10:
		return strconv.FormatInt(n>>10, 10) + " KB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

func itoa(n int) string { return strconv.Itoa(n) }
