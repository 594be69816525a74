package integration

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostNets places host agents on machines of their own, as far as one machine can: each
// in a network namespace of its own, joined to the engine's namespace by a veth pair
// (engine side 198.18.X.4i+1, host side .4i+2: the benchmarking range, RFC 2544, which
// no real network uses). The engine's embedded NATS server then listens off loopback,
// so it runs with mutual TLS (a CA, the engine's certificate naming every engine-side
// address, one certificate per host), as the README's multi-host setup does. A host
// agent in its namespace reaches the engine only over its veth: not over loopback, not
// over the engine's unix socket's network.
type hostNets struct {
	names    []string // network namespace of host i
	engineIP []string // the engine's address on host i's veth
	dir      string   // certificates
}

// newHostNets makes n namespaces, or returns nil and what is missing: root, ip(8), or
// the right to create namespaces and links (a container without CAP_NET_ADMIN).
func newHostNets(t *testing.T, n int) (*hostNets, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil, "not root (network namespaces and veth pairs need root)"
	}
	ipCmd, err := exec.LookPath("ip")
	if err != nil {
		return nil, "the ip command (iproute2) is not on PATH"
	}
	tag := fmt.Sprintf("rbt%d", os.Getpid()%100000)
	octet := os.Getpid() % 250
	h := &hostNets{dir: t.TempDir()}
	run := func(args ...string) error {
		out, err := exec.Command(ipCmd, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	t.Cleanup(func() {
		// Deleting a namespace deletes its veth end, and with it the pair.
		for _, ns := range h.names {
			_ = run("netns", "delete", ns)
		}
	})
	for i := range n {
		ns := fmt.Sprintf("%sn%d", tag, i)
		outer, inner := fmt.Sprintf("%se%d", tag, i), fmt.Sprintf("%sh%d", tag, i)
		engineIP, hostIP := fmt.Sprintf("198.18.%d.%d", octet, 4*i+1), fmt.Sprintf("198.18.%d.%d", octet, 4*i+2)
		if err := run("netns", "add", ns); err != nil {
			return nil, "cannot create a network namespace: " + err.Error()
		}
		h.names = append(h.names, ns)
		for _, args := range [][]string{
			{"link", "add", outer, "type", "veth", "peer", "name", inner},
			{"link", "set", inner, "netns", ns},
			{"addr", "add", engineIP + "/30", "dev", outer},
			{"link", "set", outer, "up"},
			{"-n", ns, "addr", "add", hostIP + "/30", "dev", inner},
			{"-n", ns, "link", "set", inner, "up"},
			{"-n", ns, "link", "set", "lo", "up"},
		} {
			if err := run(args...); err != nil {
				return nil, "cannot set up a veth pair: " + err.Error()
			}
		}
		h.engineIP = append(h.engineIP, engineIP)
	}
	ca, caKey := writeCert(t, h.dir, "ca", nil, nil, nil)
	writeCert(t, h.dir, "engine", ca, caKey, h.engineIP)
	for i := range n {
		writeCert(t, h.dir, hostName(i), ca, caKey, nil)
	}
	return h, ""
}

// hostName is the i'th host agent's name.
func hostName(i int) string { return fmt.Sprintf("h%d", i+1) }

// engineArgs are robota-engine's flags for an embedded NATS server every namespace
// reaches: all addresses, mutual TLS.
func (h *hostNets) engineArgs() []string {
	return []string{"--nats-listen", "0.0.0.0:0", "--nats-tls-cert", filepath.Join(h.dir, "engine.pem"),
		"--nats-tls-key", filepath.Join(h.dir, "engine.key"), "--nats-tls-ca", filepath.Join(h.dir, "ca.pem")}
}

// wrap runs a command in host i's namespace.
func (h *hostNets) wrap(i int) []string { return []string{"ip", "netns", "exec", h.names[i]} }

// url is the engine's NATS server as host i reaches it.
func (h *hostNets) url(i int, serverURL string) string {
	u, err := url.Parse(serverURL)
	if err != nil {
		return serverURL
	}
	return "tls://" + net.JoinHostPort(h.engineIP[i], u.Port())
}

// tlsArgs are host i's TLS flags.
func (h *hostNets) tlsArgs(i int) []string {
	return []string{"--tls-ca", filepath.Join(h.dir, "ca.pem"), "--tls-cert", filepath.Join(h.dir, hostName(i)+".pem"),
		"--tls-key", filepath.Join(h.dir, hostName(i)+".key")}
}

// writeCert writes NAME.pem and NAME.key under dir: a CA when ca is nil, else a leaf it
// signs, valid for ips.
func writeCert(t *testing.T, dir, name string, ca *x509.Certificate, caKey *ecdsa.PrivateKey, ips []string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	for _, ip := range ips {
		tmpl.IPAddresses = append(tmpl.IPAddresses, net.ParseIP(ip))
	}
	parent, signer := tmpl, key
	if ca == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage = true, true, x509.KeyUsageCertSign|x509.KeyUsageDigitalSignature
	} else {
		parent, signer = ca, caKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// hostRun runs `robota-worker host` in host i's namespace to its exit (bounded) and
// returns its exit code and stderr.
func (h *hostNets) hostRun(t *testing.T, i int, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	argv := append(append(h.wrap(i), filepath.Join(binDir, "robota-worker"), "host"), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatalf("robota-worker host %v: %v", args, err)
	}
	return 0, stderr.String()
}

// Each host agent in a network namespace of its own, the engine's embedded NATS server
// off loopback: a host reaches it only over its veth, with mutual TLS and its own
// credential. From a host's namespace the engine's loopback listener does not exist;
// plaintext to the veth address is refused; a wrong password, or another host's
// credentials file under this host's name, is refused in one line with a non-zero exit;
// with its own certificate and credential each host agent connects and waits for jobs,
// every one from a namespace of its own (checked by /proc/PID/ns/net).
// TestNATSJobsSurviveAKilledHost runs its jobs over these namespaces too.
func TestNATSHostAgentsInTheirOwnNetworkNamespaces(t *testing.T) {
	nets, why := newHostNets(t, 3)
	if nets == nil {
		t.Skip("host agents in network namespaces: " + why)
	}
	_, _, serverURL, credsDir := natsEngine(t, append(nets.engineArgs(), "--workers", "0")...)
	u, _ := url.Parse(serverURL)
	creds := func(name string) string { return filepath.Join(credsDir, name+".creds") }

	loopback := "nats://127.0.0.1:" + u.Port()
	plain := "nats://" + net.JoinHostPort(nets.engineIP[0], u.Port())
	wrong := filepath.Join(t.TempDir(), "h1.creds")
	if err := os.WriteFile(wrong, []byte("h1:not-its-password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h2pw, err := os.ReadFile(creds("h2"))
	if err != nil {
		t.Fatal(err)
	}
	stolen := filepath.Join(t.TempDir(), "h1.creds") // h2's password under h1's name
	if err := os.WriteFile(stolen, []byte("h1:"+strings.TrimPrefix(strings.TrimSpace(string(h2pw)), "h2:")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"the engine's loopback", []string{"--nats", loopback, "--creds", creds("h1")}, "cannot reach NATS at " + loopback},
		{"plaintext", []string{"--nats", plain, "--creds", creds("h1")}, "NATS at " + plain},
		{"wrong password", append([]string{"--nats", nets.url(0, serverURL), "--creds", wrong}, nets.tlsArgs(0)...), "NATS refused the credentials"},
		{"another host's password", append([]string{"--nats", nets.url(0, serverURL), "--creds", stolen}, nets.tlsArgs(0)...), "NATS refused the credentials"},
		{"another host's file", append([]string{"--nats", nets.url(0, serverURL), "--creds", creds("h2"), "--name", "h1"}, nets.tlsArgs(0)...),
			"does not match the credentials file"},
	} {
		code, stderr := nets.hostRun(t, 0, tc.args...)
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		if code == 0 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want a non-zero exit and one line saying %q", tc.name, code, stderr, tc.want)
		}
	}

	seen := map[string]string{}
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	seen[self] = "the test (engine's namespace)"
	for i := range 3 {
		h := hostAgentIn(t, nets.wrap(i), nets.url(i, serverURL), credsDir, hostName(i), nets.tlsArgs(i)...)
		netns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", h.Cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		if other, ok := seen[netns]; ok {
			t.Fatalf("host agent %s shares network namespace %s with %s", hostName(i), netns, other)
		}
		seen[netns] = hostName(i)
	}
}
