package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/loci-mem/loci/palace"
)

// Scopes. Seed 001 partitions memory by (app_id, project_id); loci gives
// each pair its own palace, so a search can never cross scopes:
//
//   - ("default", "default") is the palace "default".
//   - any other pair is the palace "scope_" + esc(app_id) + "_." +
//     esc(project_id), where esc doubles every "_". Reading left to right,
//     "__" is a literal underscore and the one "_." that follows an even
//     run of underscores is the separator, so the name decodes back to the
//     pair: the mapping is injective. Both ids use only [a-zA-Z0-9_.-], and
//     the name starts with "s", so it is a valid palace name.
//   - when that name would exceed palace names' 200 bytes, the palace is
//     "scope_h_" + the hex SHA-256 of app_id + "\x00" + project_id. Such a
//     name has no "_." separator, so it cannot equal an escaped name; two
//     pairs sharing a digest would need a SHA-256 collision, and even then
//     the pair recorded in the palace (below) is checked on every open and
//     a mismatch is refused rather than mixing scopes.
//
// The pair is recorded in the palace's metadata when the palace is made.

// scope is one (app_id, project_id) pair.
type scope struct{ App, Project string }

func (s scope) isDefault() bool { return s.App == "default" && s.Project == "default" }

func escapeScopeID(s string) string { return strings.ReplaceAll(s, "_", "__") }

// PalaceName returns the palace that holds the memories of the scope.
func PalaceName(appID, projectID string) string {
	s := scope{appID, projectID}
	if s.isDefault() {
		return "default"
	}
	name := "scope_" + escapeScopeID(appID) + "_." + escapeScopeID(projectID)
	if len(name) <= 200 {
		return name
	}
	sum := sha256.Sum256([]byte(appID + "\x00" + projectID))
	return "scope_h_" + hex.EncodeToString(sum[:])
}

const scopeMetaKey = "everos_scope"

// openScope returns the palace of a scope. With create false a missing
// palace is (nil, nil): reads of an empty scope find nothing.
func (a *API) openScope(ctx context.Context, s scope, create bool) (*palace.Palace, error) {
	name := PalaceName(s.App, s.Project)
	var p *palace.Palace
	var err error
	if create {
		p, err = a.reg.OpenOrCreate(ctx, name)
	} else {
		if !a.reg.Exists(name) {
			return nil, nil
		}
		p, err = a.reg.Open(ctx, name)
		if errors.Is(err, palace.ErrNotFound) {
			return nil, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if s.isDefault() {
		return p, nil // "default" is shared with the other faces
	}
	if err := checkScope(ctx, p, s); err != nil {
		return nil, err
	}
	return p, nil
}

// checkScope records the scope in a new palace and verifies it in an
// existing one.
func checkScope(ctx context.Context, p *palace.Palace, s scope) error {
	want := s.App + "\x00" + s.Project
	got, err := p.ClaimMeta(ctx, scopeMetaKey, want)
	if err != nil {
		return fmt.Errorf("record scope: %w", err)
	}
	if got != want {
		return fmt.Errorf("palace %q belongs to another scope; refusing to mix scopes", PalaceName(s.App, s.Project))
	}
	return nil
}
