// Package layers holds, as tests, the rules of the tree's layout: which
// folder may import which, what a hook binary may link, and that
// docs/development.md's code map names every package there is.
package layers
