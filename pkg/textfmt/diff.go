package textfmt

// LineDiff is a line diff of a and b by their longest common subsequence:
// each line of it in order, as a Diff kept (' '), only in a ('-') or only
// in b ('+'). It is quadratic in time and space: callers bound the lines.
func LineDiff(a, b []string) []Diff {
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []Diff
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, Diff{' ', a[i]})
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, Diff{'+', b[j]})
			j++
		default:
			out = append(out, Diff{'-', a[i]})
			i++
		}
	}
	return out
}

// Diff is one line of a LineDiff: Op ' ' (in both), '-' (only in the
// first) or '+' (only in the second).
type Diff struct {
	Op   byte
	Line string
}
