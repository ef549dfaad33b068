package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// Fetching http(s) content items (LOCI_ALLOW_HTTP_FETCH=1) must not turn
// the companion into a way to reach what only it can reach: its own
// endpoints, services on loopback, the private network, a cloud metadata
// address. Every connection is checked on the address it actually dials,
// after name resolution, so a DNS name that resolves to an internal address
// and a redirect to one are refused alike. A host the user names in
// LOCI_FETCH_ALLOW_HOSTS is exempt.

// maxRedirects bounds the redirects a fetch follows.
const maxRedirects = 5

// fetchTimeout bounds one whole fetch, redirects and body included.
const fetchTimeout = 30 * time.Second

// errInternalAddress is a refused connection to an internal address.
var errInternalAddress = errors.New("the address is internal (loopback, private, link-local or reserved)")

// internalPrefixes are the ranges a fetch never reaches unless allowed,
// beside what netip classifies (loopback, private, link-local,
// unspecified, multicast).
var internalPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("2002:a00::/24"),  // 6to4 of 10/8
	netip.MustParsePrefix("2002:7f00::/24"), // 6to4 of 127/8
	netip.MustParsePrefix("2002:a9fe::/32"), // 6to4 of 169.254/16
	netip.MustParsePrefix("2002:ac10::/28"), // 6to4 of 172.16/12
	netip.MustParsePrefix("2002:c0a8::/32"), // 6to4 of 192.168/16
}

// internalAddr reports whether a fetch must not connect to ip.
func internalAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return true
	}
	for _, p := range internalPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// fetchClient is the HTTP client of content fetches: no proxy from the
// environment (it would be dialled instead of the target, and is usually
// internal), internal addresses refused at connect time except for the
// allowed hosts, at most maxRedirects redirects, fetchTimeout in all.
func fetchClient(allowHosts []string) *http.Client {
	allowed := map[string]bool{}
	for _, h := range allowHosts {
		allowed[strings.ToLower(h)] = true
	}
	guarded := &net.Dialer{Timeout: 10 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || internalAddr(ap.Addr()) {
			return errInternalAddress
		}
		return nil
	}}
	open := &net.Dialer{Timeout: 10 * time.Second}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, _ := net.SplitHostPort(addr)
			if allowed[strings.ToLower(addr)] || allowed[strings.ToLower(host)] {
				return open.DialContext(ctx, network, addr)
			}
			return guarded.DialContext(ctx, network, addr)
		},
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 20 * time.Second,
		MaxIdleConns:          8,
		IdleConnTimeout:       30 * time.Second,
	}
	return &http.Client{Transport: tr, Timeout: fetchTimeout, CheckRedirect: func(_ *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		return nil
	}}
}

// fetchError is the message of a failed fetch: what the caller may know.
func fetchError(err error) error {
	if errors.Is(err, errInternalAddress) {
		return errors.New("uri cannot be fetched: " + errInternalAddress.Error() +
			"; allow the host with LOCI_FETCH_ALLOW_HOSTS if it is meant to be reachable")
	}
	if strings.Contains(err.Error(), "redirects") {
		return fmt.Errorf("uri cannot be fetched: more than %d redirects", maxRedirects)
	}
	return errors.New("uri cannot be fetched")
}
