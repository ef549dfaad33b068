// Package redact removes secrets from text before loci stores it and again at
// every output (MCP results and resources, CLI, HTTP, hooks, logs).
package redact
