module github.com/ccmem/ccmem

go 1.26

require (
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.26.0
	golang.org/x/term v0.25.0
	gopkg.in/yaml.v3 v3.0.1
)

require golang.org/x/tools v0.26.0 // indirect
