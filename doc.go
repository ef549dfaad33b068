// Package loci is the module root. The binary is cmd/loci; the packages are
// palace (the core), kg (the temporal knowledge graph), dreamer (background
// work), and server (the protocol faces). See README.md and DESIGN notes in
// INTEGRATION.md.
package loci
