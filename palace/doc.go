// Package palace is loci's core: a palace is one isolated memory space on
// disk, holding drawers (memories of every kind) in rooms, with a hybrid
// BM25 + vector recall engine over them.
//
// A palace is a directory under <data dir>/palaces/<name>/ whose palace.db
// (SQLite in WAL mode) is the single source of truth. The vector index is a
// derived cache rebuilt from the vectors stored in SQLite whenever it is
// missing, stale or corrupt. Several processes may open one palace at once;
// each catches up with the others' writes from the drawers' seq high-water
// mark before it searches.
//
// Every face of loci (MCP tools, HTTP, CLI, hooks, dashboard) is a thin
// adapter over this package. It must never import server, dreamer or cmd;
// of loci's packages it imports only kg and its own sub-packages.
package palace
