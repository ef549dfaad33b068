// Package hub is the Memory Hub: the web dashboard of loci's HTTP companion.
//
// Handler serves a single-page app (plain HTML, CSS and JavaScript embedded
// in the binary; no framework, no CDN, no build step) at "/" and its assets
// under /hub/assets/, and a JSON API under /hub/api/ built on the palace and
// kg APIs: statistics and daily activity across every palace, palace cards
// with a paged timeline, hybrid search, drawer detail and forget, the
// review queue of pending facts, the knowledge-graph browser, and a stream
// of live changes (server-sent events) read from the palaces' change logs.
//
// The page itself carries no data and no secret; every request for data goes
// to /hub/api/. When the companion requires a bearer token, the page asks
// for it, keeps it in sessionStorage and sends it as an Authorization header
// (never in a URL). Requests that change anything must carry the
// X-Loci-Hub header, which a cross-site page cannot send without a CORS
// preflight the hub never grants.
//
// hub may import palace, kg and their sub-packages. It must never import
// package server (the companion imports hub to mount it), dreamer or cmd.
package hub
