// Package server holds loci's protocol faces: the MCP server (tools and
// resources, over stdio with loci's own NDJSON loop, and over HTTP) and the
// HTTP companion. Each face is a thin adapter over the palace API; none
// stores or searches anything itself.
//
// server is imported only by cmd. It never touches os.Stdin, os.Stdout or
// signals: callers hand it a reader, a writer and a context.
package server
