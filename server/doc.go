// Package server holds loci's protocol faces: the MCP server (tools and
// resources, over stdio and over HTTP) and the HTTP companion. Each face is
// a thin adapter over the palace API; none stores or searches anything
// itself.
//
// The MCP face has one dispatch path for every transport:
//
//   - parseMessage (dispatch.go) decodes a JSON-RPC message once: the
//     envelope together with the params of every method loci serves;
//   - respond answers it: the list methods from results encoded once at
//     start, tools/call through the tool table (tools.go), resources/read
//     through readResource (resources.go);
//   - a tool decodes its arguments once, into its params struct (args.go),
//     whose tags also generate the tool's JSON schema (schema.go); field
//     types validate themselves (validate.go);
//   - failures go through one translator (errors.go), internal detail to
//     the log only;
//   - the response is encoded once and redacted once.
//
// ServeStdio (stdio.go) frames NDJSON on a reader and a writer. Over HTTP,
// mcp-go's streamable HTTP and SSE transports keep sessions and streams,
// and a front before each (mcp_http.go) hands their requests to the same
// respond.
//
// server is imported only by cmd. It never touches os.Stdin, os.Stdout or
// signals: callers hand it a reader, a writer and a context.
package server
