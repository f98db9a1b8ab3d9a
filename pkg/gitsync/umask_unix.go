//go:build unix

package gitsync

import "syscall"

// privateUmask makes what this process and the gits it runs create
// private to the user (git writes a few files, FETCH_HEAD and
// COMMIT_EDITMSG, with the umask's modes whatever core.sharedRepository
// says): the store's modes, 0600 and 0700.
func privateUmask() {
	old := syscall.Umask(0o077)
	syscall.Umask(old | 0o077)
}
