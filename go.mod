module github.com/ccmem/ccmem

go 1.26

require (
	github.com/goccy/go-json v0.12.0 // indirect
	github.com/natefinch/atomic v1.0.1 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
