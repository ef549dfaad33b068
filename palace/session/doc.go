// Package session holds a palace's conversation sessions: every face that
// records conversation (seed 001's /add, seed 000's mem_save_turn, the
// Claude Code hooks) appends messages to a per-session buffer kept in the
// palace's store. Boundary detection splits the buffer into stretches; a
// closed stretch is extracted into drawers (episodes, atomic facts and a
// profile for the user track, agent cases for the agent track) in the same
// transaction that deletes the buffer rows it consumed, so a crash never
// loses nor duplicates a message.
//
// It imports palace and palace/extract, never server, dreamer or cmd.
package session
