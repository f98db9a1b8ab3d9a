package memory

// Version is ccmem's version, set at build time with
// -ldflags "-X github.com/ccmem/ccmem/pkg/memory.Version=…".
var Version = "0.1.0-dev"
