package server

func (s *Server) memSearch() tool {
	return s.markdownTool("mem_search",
		"Search the user's memories (hybrid keyword and semantic search). Returns markdown, "+
			"one numbered item per memory, best match first.",
		`{"type":"object","properties":{
"query":{"type":"string","description":"What to search for, in natural language"},
"topK":{"type":"integer","description":"How many memories to return: default the configured top_k or 5; a non-positive value means the default; at most 50"},
"palace":{"type":"string","description":"Palace ID (optional if server started with --palace)"}},
"required":["query"]}`,
		renderSearch)
}
