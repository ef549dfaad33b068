package main

import "context"

func init() {
	commands["uninstall"] = command{"remove what `loci install` added to a host's config (backing files up first)", cli(uninstallCmd)}
}

// uninstallCmd is `loci uninstall HOST [--scope user|project] [--dry-run]`:
// it removes loci's MCP entry and hooks, and the containers left empty by
// that (an emptied file is deleted). Entries that run something other than
// loci are kept and reported.
func uninstallCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	return runInstall(env, "uninstall", args)
}
