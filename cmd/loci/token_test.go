package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"context"

	"github.com/loci-mem/loci/palace/store/postgres/pgtest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// their paths and a pool that trusts the certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "loci test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// bearer adds a token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestTeamTokensScopesAndTLS: users' tokens, made with `loci token` and
// kept in the team's PostgreSQL store, reach only their palaces and do
// only what their scope allows, over native TLS; a revoked token stops
// working on a node that is already running; every request is logged
// with its user.
func TestTeamTokensScopesAndTLS(t *testing.T) {
	t.Parallel()
	store := pgtest.URL(t)
	home := t.TempDir()
	mk := func(user, scope, palaces string) (string, string) {
		t.Helper()
		o := runCLI(t, home, "json", "token", "create", "--user", user, "--scope", scope, "--palace", palaces, "--store", store)
		if o.code != 0 {
			t.Fatalf("token create: %d %s %s", o.code, o.stdout, o.stderr)
		}
		tok, _ := o.env.Data["token"].(string)
		if !strings.HasPrefix(tok, "loci_") || len(tok) != 5+12+1+64 {
			t.Fatalf("token create printed %q", tok)
		}
		return tok, o.env.Data["info"].(map[string]any)["id"].(string)
	}
	reader, _ := mk("rita", "read", "team")
	writer, writerID := mk("will", "write", "team")
	admin, _ := mk("ada", "admin", "*")
	if o := runCLI(t, home, "json", "token", "create", "--user", "x", "--scope", "root", "--store", store); o.code != 2 {
		t.Fatalf("unknown scope: %d %s", o.code, o.stdout)
	}
	if o := runCLI(t, home, "json", "token", "list", "--store", store); o.code != 0 || strings.Contains(o.stdout, reader[18:]) {
		t.Fatalf("token list: %d, or it shows a secret: %s", o.code, o.stdout)
	}

	certFile, keyFile, pool := selfSigned(t)
	p := startLoci(t, t.TempDir(), []string{"LOCI_STORE=" + store}, "http", "--addr", "127.0.0.1:0", "--palace", "team",
		"--tls-cert", certFile, "--tls-key", keyFile)
	addr := waitAddr(t, p)
	if !strings.Contains(p.stderr.String(), "listening on https://") {
		t.Fatalf("not serving HTTPS: %s", p.stderr.String())
	}
	base := "https://" + addr
	tlsClient := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	client := func(token string) *http.Client {
		if token == "" {
			return &http.Client{Transport: tlsClient}
		}
		return &http.Client{Transport: bearer{token, tlsClient}}
	}
	connect := func(token string) *node {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		c := sdk.NewClient(&sdk.Implementation{Name: "token-test", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: client(token), MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { cs.Close() })
		return &node{t: t, cs: cs}
	}
	get := func(token, path string) int {
		resp, err := client(token).Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}

	if code := get("", "/api/v1/memory/get"); code != http.StatusUnauthorized {
		t.Fatalf("no token: %d", code)
	}
	if code := get("loci_000000000000_"+strings.Repeat("0", 64), "/hub/api/palaces"); code != http.StatusUnauthorized {
		t.Fatalf("made-up token: %d", code)
	}
	if code := get("", "/health"); code != http.StatusOK {
		t.Fatalf("health without a token: %d", code)
	}
	health := func(token string) map[string]any {
		resp, err := client(token).Get(base + "/health")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return m
	}
	if m := health(""); m["status"] != "ok" || m["palaces_open"] != nil || m["index"] != nil {
		t.Fatalf("health without a token names palaces: %v", m)
	}

	w := connect(writer)
	id, err := w.remember("The " + token(31) + " dashboard moved to the new Grafana folder")
	if err != nil {
		t.Fatalf("writer remember: %v", err)
	}
	r := connect(reader)
	if !r.finds(token(31)+" dashboard", id) {
		t.Fatal("reader cannot recall in its palace")
	}
	if _, err := r.remember("readers cannot write this"); err == nil || !strings.Contains(err.Error(), "read access") {
		t.Fatalf("reader remember: %v, want a refusal naming its access", err)
	}
	if err := r.call("kg_assert", map[string]any{"subject": "a", "predicate": "b", "object": "c"}, nil); err == nil {
		t.Fatal("a read token asserted a triple")
	}
	if err := w.call("memory_recall", map[string]any{"query": "x", "palace": "other"}, nil); err == nil || !strings.Contains(err.Error(), "may not use palace") {
		t.Fatalf("writer in another palace: %v", err)
	}
	if err := w.call("palace_create", map[string]any{"name": "newproj"}, nil); err == nil {
		t.Fatal("a write token created a palace")
	}
	a := connect(admin)
	if err := a.call("palace_create", map[string]any{"name": "newproj"}, nil); err != nil {
		t.Fatalf("admin palace_create: %v", err)
	}
	if m := health(reader); fmt.Sprint(m["palaces_open"]) != "[team]" {
		t.Fatalf("health for a reader of team: %v", m["palaces_open"])
	}
	if code := get(reader, "/metrics"); code != http.StatusForbidden {
		t.Fatalf("metrics with a read token: %d, want 403 (they name every palace)", code)
	}
	if code := get(admin, "/metrics"); code != http.StatusOK {
		t.Fatalf("metrics with an admin token: %d", code)
	}
	var list struct {
		Palaces []string `json:"palaces"`
	}
	if err := r.call("palace_list", nil, &list); err != nil || len(list.Palaces) != 1 || list.Palaces[0] != "team" {
		t.Fatalf("reader palace_list: %v %v", list, err)
	}
	// The Hub: another palace is refused on every route that names one,
	// and a read token may not change a memory even with the Hub's header.
	for _, path := range []string{"/hub/api/search?q=x&palace=newproj", "/hub/api/palaces/newproj/drawers",
		"/hub/api/review?palace=newproj", "/hub/api/palaces/newproj/kg", "/hub/api/events?palace=newproj"} {
		if code := get(reader, path); code != http.StatusForbidden {
			t.Errorf("reader GET %s: %d, want 403", path, code)
		}
	}
	hubWrite := func(method, path string) int {
		req, _ := http.NewRequest(method, base+path, nil)
		req.Header.Set("X-Loci-Hub", "1")
		resp, err := client(reader).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := hubWrite(http.MethodDelete, "/hub/api/palaces/team/drawers/"+id); code != http.StatusForbidden {
		t.Errorf("reader forgetting through the Hub: %d, want 403", code)
	}
	if !r.finds(token(31)+" dashboard", id) {
		t.Error("the drawer a reader tried to forget is gone")
	}
	// The EverOS API answers 403 to a write with a read token.
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/memory/add", strings.NewReader(
		`{"session_id":"s1","messages":[{"sender_id":"u","role":"user","timestamp":1700000000,"content":"hi"}]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client(reader).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("EverOS add with a read token: %d", resp.StatusCode)
	}

	// Revoked on the CLI: refused by the running node within seconds.
	if o := runCLI(t, home, "json", "token", "revoke", writerID, "--store", store); o.code != 0 {
		t.Fatalf("revoke: %s", o.stdout)
	}
	deadline := time.Now().Add(10 * time.Second)
	for get(writer, "/hub/api/palaces") != http.StatusUnauthorized {
		if time.Now().After(deadline) {
			t.Fatal("a revoked token still works")
		}
		time.Sleep(100 * time.Millisecond)
	}
	logs := p.stderr.String()
	for _, user := range []string{`"user":"will"`, `"user":"rita"`, `"user":"ada"`} {
		if !strings.Contains(logs, user) {
			t.Errorf("no request logged for %s", user)
		}
	}
	if strings.Contains(logs, writer[18:]) || strings.Contains(logs, reader[18:]) {
		t.Error("a token's secret reached the log")
	}
}
