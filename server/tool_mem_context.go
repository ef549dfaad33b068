package server

func (s *Server) memContext() tool {
	return s.markdownTool("mem_context",
		"Load what is remembered about the user before answering: their profile and promoted facts, "+
			"then the memories relevant to the query. Returns markdown to splice into your context as is.",
		`{"type":"object","properties":{
"query":{"type":"string","description":"What the conversation is about; selects the relevant memories"},
"palace":{"type":"string","description":"Palace ID (optional if server started with --palace)"}},
"required":["query"]}`,
		renderContext)
}
