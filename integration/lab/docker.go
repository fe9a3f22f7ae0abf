package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/ory/dockertest/v3"
	docker "github.com/ory/dockertest/v3/docker"
)

// LabelKey labels every container, network and volume of a lab with the lab's name.
const LabelKey = "kupgrade-lab"

// labelExpires holds the Unix time after which a test lab may be swept by the next lab start.
const labelExpires = "kupgrade-lab.expires"

func newPool() (*dockertest.Pool, error) {
	pool, err := dockertest.NewPool("")
	if err != nil {
		return nil, fmt.Errorf("connect to docker: %w", err)
	}
	if err := pool.Client.Ping(); err != nil {
		return nil, fmt.Errorf("connect to docker: %w", err)
	}
	return pool, nil
}

func dockerClient() (*docker.Client, error) {
	pool, err := newPool()
	if err != nil {
		return nil, err
	}
	return pool.Client, nil
}

// RequireDocker skips t when no Docker engine answers, and fails it instead under CI=true,
// where a missing engine is a broken machine rather than a choice.
func RequireDocker(t testing.TB) {
	t.Helper()
	if _, err := newPool(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and Docker is required: %v", err)
		}
		t.Skipf("Docker is not available: %v", err)
	}
}

// freePort asks the kernel for a free port on 127.0.0.1. The port is published explicitly (not
// left to Docker) so that a node keeps it across Stop and Start.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ExitError is the error of a command run with Exec that ran and exited non-zero.
type ExitError struct {
	Status int
	Stderr string
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("exit status %d: %s", e.Status, strings.TrimSpace(e.Stderr))
}

// execIn runs cmd in a container with docker exec, stdin optional (nil: none), and returns its
// stdout.
func execIn(ctx context.Context, client *docker.Client, container string, stdin io.Reader, cmd ...string) (string, error) {
	ex, err := client.CreateExec(docker.CreateExecOptions{
		Container: container, Cmd: cmd, AttachStdout: true, AttachStderr: true,
		AttachStdin: stdin != nil, Context: ctx,
	})
	if err != nil {
		return "", fmt.Errorf("exec %q: %w", strings.Join(cmd, " "), err)
	}
	var stdout, stderr bytes.Buffer
	opts := docker.StartExecOptions{OutputStream: &stdout, ErrorStream: &stderr, Context: ctx}
	if stdin != nil {
		opts.InputStream = stdin
	}
	if err := client.StartExec(ex.ID, opts); err != nil {
		return "", fmt.Errorf("exec %q: %w", strings.Join(cmd, " "), err)
	}
	info, err := client.InspectExec(ex.ID)
	if err != nil {
		return "", fmt.Errorf("inspect exec %q: %w", strings.Join(cmd, " "), err)
	}
	if info.ExitCode != 0 {
		return stdout.String(), fmt.Errorf("exec %q: %w", strings.Join(cmd, " "), &ExitError{Status: info.ExitCode, Stderr: stderr.String()})
	}
	return stdout.String(), nil
}

// removeLabelled removes every container (with its anonymous volumes), network and volume
// labelled kupgrade-lab=name.
func removeLabelled(ctx context.Context, client *docker.Client, name string) error {
	filter := map[string][]string{"label": {LabelKey + "=" + name}}
	var errs []error
	containers, err := client.ListContainers(docker.ListContainersOptions{All: true, Filters: filter, Context: ctx})
	errs = append(errs, err)
	for _, c := range containers {
		err := client.RemoveContainer(docker.RemoveContainerOptions{ID: c.ID, Force: true, RemoveVolumes: true, Context: ctx})
		var missing *docker.NoSuchContainer
		if !errors.As(err, &missing) {
			errs = append(errs, err)
		}
	}
	networks, err := client.FilteredListNetworks(docker.NetworkFilterOpts{"label": {LabelKey + "=" + name: true}})
	errs = append(errs, err)
	for _, n := range networks {
		errs = append(errs, client.RemoveNetwork(n.ID))
	}
	volumes, err := client.ListVolumes(docker.ListVolumesOptions{Filters: filter, Context: ctx})
	errs = append(errs, err)
	for _, v := range volumes {
		errs = append(errs, client.RemoveVolumeWithOptions(docker.RemoveVolumeOptions{Name: v.Name, Context: ctx}))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove lab %s: %w", name, err)
	}
	return nil
}

// Remove removes everything labelled kupgrade-lab=name (a lab, or a MariaDB by its name).
func Remove(ctx context.Context, name string) error {
	client, err := dockerClient()
	if err != nil {
		return err
	}
	return removeLabelled(ctx, client, name)
}
