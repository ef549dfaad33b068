// Package claudecode is the logic behind `loci hook ...`: Claude Code's lifecycle
// hooks (SessionStart, UserPromptSubmit, Stop, SessionEnd) reading the hook
// JSON Claude Code sends on stdin and producing the JSON it reads back.
//
// It parses transcript JSONL files into turns, counts the words of prompts
// (CJK-aware), renders relative ages, chooses which memories are worth
// injecting, and stores turns and session summaries through the palace API.
// Everything here is testable without a process: cmd/loci only reads stdin,
// opens the registry and prints what a Runner returns.
//
// It imports palace (and palace/extract) but never package server, dreamer or
// cmd, and it never writes to os.Stdout.
package claudecode
