package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// benchClientEnv makes the test binary a benchmark's gRPC client process (see
// startClientProcess): it names the engine's socket and the raw stream server's.
const benchClientEnv = "ROBOTA_BENCH_CLIENT_SOCKETS"

func TestMain(m *testing.M) {
	if socks := os.Getenv(benchClientEnv); socks != "" {
		if err := serveBenchCalls(socks, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench client:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveBenchCalls is the client process: for each line it reads ("turn ID", "unary",
// "raw") it makes that call and answers "NANOSECONDS MESSAGES", timed here so that
// the pipe to the benchmark is not.
func serveBenchCalls(socks string, in io.Reader, out io.Writer) error {
	engineSock, rawSock, ok := strings.Cut(socks, ",")
	if !ok {
		return fmt.Errorf("%s=%q: want ENGINE_SOCKET,RAW_SOCKET", benchClientEnv, socks)
	}
	dial := func(sock string) (*grpc.ClientConn, error) {
		return grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	conn, err := dial(engineSock)
	if err != nil {
		return err
	}
	defer conn.Close()
	rawConn, err := dial(rawSock)
	if err != nil {
		return err
	}
	defer rawConn.Close()
	calls := grpcCalls{engine: robotav1.NewEngineServiceClient(conn), health: healthpb.NewHealthClient(conn), raw: robotav1.NewEngineServiceClient(rawConn)}
	lines, w := bufio.NewScanner(in), bufio.NewWriter(out)
	for lines.Scan() {
		call := strings.Fields(lines.Text())
		var d time.Duration
		var msgs int
		var err error
		switch {
		case len(call) == 2 && call[0] == "turn":
			d, msgs, err = calls.turn(call[1])
		case len(call) == 1 && call[0] == "unary":
			d, err = calls.unary()
		case len(call) == 1 && call[0] == "raw":
			d, err = calls.rawStream()
		default:
			err = errors.New("unknown call")
		}
		if err != nil {
			return fmt.Errorf("%q: %w", lines.Text(), err)
		}
		fmt.Fprintf(w, "%d %d\n", d.Nanoseconds(), msgs)
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return lines.Err()
}

// clientProcess is a turnClient whose calls a child process makes (this test binary,
// run with benchClientEnv).
type clientProcess struct {
	b       *testing.B
	in      io.WriteCloser
	answers *bufio.Scanner
}

func startClientProcess(b *testing.B, engineSock, rawSock string) *clientProcess {
	b.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), benchClientEnv+"="+engineSock+","+rawSock)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close() // the client ends at the end of its input
		if err := cmd.Wait(); err != nil {
			b.Errorf("client process: %v", err)
		}
	})
	return &clientProcess{b: b, in: in, answers: bufio.NewScanner(out)}
}

func (c *clientProcess) call(line string) (time.Duration, int) {
	if _, err := fmt.Fprintln(c.in, line); err != nil {
		c.b.Fatalf("client process: %v", err)
	}
	if !c.answers.Scan() {
		c.b.Fatalf("client process ended before answering %q", line)
	}
	ns, msgs, _ := strings.Cut(c.answers.Text(), " ")
	d, err1 := strconv.ParseInt(ns, 10, 64)
	m, err2 := strconv.Atoi(msgs)
	if err := errors.Join(err1, err2); err != nil {
		c.b.Fatalf("client process answered %q: %v", c.answers.Text(), err)
	}
	return time.Duration(d), m
}

func (c *clientProcess) turn(id string) (time.Duration, int) { return c.call("turn " + id) }

func (c *clientProcess) unary() time.Duration {
	d, _ := c.call("unary")
	return d
}

func (c *clientProcess) rawStream() time.Duration {
	d, _ := c.call("raw")
	return d
}
