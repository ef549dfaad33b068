package server

// A drawer holds up to palace.MaxContentBytes (4 MiB) of text, and seed
// 003's memory_recall, memory_recall_deep and memory_list return each
// drawer's whole content: ten pasted logs make a tool result of tens of
// megabytes, far past what an MCP client hands its model (Claude Code
// refuses a result of over 25,000 tokens unless MAX_MCP_OUTPUT_TOKENS
// says more, and puts one of over 50,000 characters in a file for the
// model to read instead). max_content_chars, an optional argument of
// those tools, or LOCI_MAX_CONTENT_CHARS for every call a server answers,
// bounds each drawer's content to that many characters. A drawer cut says
// so, with content_truncated and content_chars (its whole length), so
// nothing is cut silently; the same call with max_content_chars 0 returns
// it whole. A recall hit whose matching passage lies past the bound shows
// its opening line and that passage (palace.Clip), the part that
// answers (when the bound is shorter than the passage, the part of it with
// most of the query's words); anything else shows its first characters.
// Without either setting the contract holds: content is the whole stored
// text.

// contentChars is the bound a call asked for (its max_content_chars),
// else the server's (0: none).
func (s *Server) contentChars(asked *int) int {
	if asked != nil {
		return *asked
	}
	return s.cfg.MaxContentChars
}
