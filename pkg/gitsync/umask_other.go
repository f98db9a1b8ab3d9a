//go:build !unix

package gitsync

// privateUmask does nothing where files are guarded by ACLs, not modes.
func privateUmask() {}
