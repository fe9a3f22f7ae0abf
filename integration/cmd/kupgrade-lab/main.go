// Command kupgrade-lab starts and stops kupgrade labs and injects faults into their nodes.
//
//	kupgrade-lab image                                   build the lab image (once per recipe)
//	kupgrade-lab image --real [--check]                  build (or check) the real lab
//	kupgrade-lab up [--controllers 2] [--workers 1] [--from-version v1.29.4] [--dir lab]
//	kupgrade-lab up --real [--pristine] [--controllers 2] [--workers 1] [--dir lab]
//	                                                     a real kubeadm cluster built from source,
//	                                                     installed from the lab's Debian packages
//	kupgrade-lab down [--dir lab]
//	kupgrade-lab fault NODE (--after PHASE | --in PHASE) (--exit N | --hang | --drop) [--once]
//	kupgrade-lab fault NODE --clear
//	kupgrade-lab exec NODE -- COMMAND...                 run a command on a node as root, stdin passed
//	kupgrade-lab mariadb up [--dir lab]                  prints the DSN, writes lab/mariadb.dsn
//	kupgrade-lab mariadb down [--dir lab]
//	kupgrade-lab galera up [--dir lab]                   prints the DSN of 3 nodes, writes lab/galera.dsn
//	kupgrade-lab galera stop|start N [--dir lab]         kill node N (1-3), or start it and wait until synced
//	kupgrade-lab galera down [--dir lab]
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"
	"github.com/kupgrade/kupgrade/integration/lab"
)

type cli struct {
	Dir     string     `help:"Folder of the lab's files." default:"lab" type:"path"`
	Image   imageCmd   `cmd:"" help:"Build the lab image unless it exists; print its tag."`
	Up      upCmd      `cmd:"" help:"Start a lab and write its inventory, known_hosts and key into --dir."`
	Down    downCmd    `cmd:"" help:"Remove the lab of --dir: containers, network, volume and files."`
	Fault   faultCmd   `cmd:"" help:"Inject a fault into a node's simulated kubeadm, or clear it."`
	Exec    execCmd    `cmd:"" help:"Run a command on a node as root, with this standard input (docker exec -i)."`
	Mariadb mariadbCmd `cmd:"" help:"Start or stop MariaDB for the MySQL store."`
	Galera  galeraCmd  `cmd:"" help:"Start or stop a 3-node MariaDB Galera cluster, or one of its nodes."`
}

func main() {
	var c cli
	kctx := kong.Parse(&c, kong.Name("kupgrade-lab"),
		kong.Description("Labs for kupgrade: OpenSSH nodes with a simulated kubeadm."),
		kong.Vars{"version": lab.DefaultVersion, "phases": strings.Join(lab.Phases, ", "),
			"realfrom": lab.RealFromVersion, "realto": lab.RealToVersion,
			"realversions": strings.Join(lab.RealVersions, ", ")})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	kctx.BindTo(ctx, (*context.Context)(nil))
	if err := kctx.Run(&c); err != nil {
		fmt.Fprintln(os.Stderr, "kupgrade-lab:", err)
		var exit *lab.ExitError
		if errors.As(err, &exit) {
			os.Exit(exit.Status)
		}
		os.Exit(1)
	}
}

type imageCmd struct {
	Real  bool `help:"Build the real lab (${realversions} from source, their images and Debian packages, the node image) unless it is built; print the node image."`
	Check bool `help:"With --real: build nothing; exit 0 if the real lab is built, else 1."`
}

func (i imageCmd) Run(ctx context.Context) error {
	if i.Real && i.Check {
		if !lab.RealCached(lab.RealVersions...) {
			return &lab.ExitError{Status: 1, Stderr: fmt.Sprintf("the real lab %s is not built (kupgrade-lab image --real builds it)", strings.Join(lab.RealVersions, " -> "))}
		}
		fmt.Println(lab.RealBuildOf(lab.RealVersions...).NodeImage)
		return nil
	}
	if i.Real {
		b, err := lab.EnsureReal(ctx, lab.RealVersions, os.Stderr)
		if err != nil {
			return err
		}
		fmt.Println(b.NodeImage)
		return nil
	}
	tag, err := lab.EnsureImage(ctx, os.Stderr)
	if err != nil {
		return err
	}
	fmt.Println(tag)
	return nil
}

type upCmd struct {
	Controllers int    `help:"Number of controllers." default:"2"`
	Workers     int    `help:"Number of workers." default:"1"`
	FromVersion string `help:"Kubernetes version the nodes start at (simulated lab)." default:"${version}"`
	Real        bool   `help:"A real Kubernetes (kubeadm, kubelet, containerd, external etcd) built from source at ${realfrom}, upgradable to ${realversions}, installed from Debian packages; the first build takes tens of minutes."`
	Pristine    bool   `help:"With --real: leave the packages as kubeadm init had them (no next kubeadm installed; the apt source at ${realfrom}'s minor)."`
	PkgMgr      string `help:"How the nodes install kubeadm, kubelet and kubectl (simulated lab): apt (a source line, held packages) or dnf (RPM hosts: /etc/yum.repos.d/kubernetes.repo with its exclude= hold, ansible_pkg_mgr: dnf in the inventory)." enum:"apt,dnf" default:"apt"`
}

func (u upCmd) Run(ctx context.Context, c *cli) error {
	if _, err := os.Stat(c.Dir + "/" + lab.StateFile); err == nil {
		return fmt.Errorf("a lab already lives in %s: run kupgrade-lab down --dir %s first", c.Dir, c.Dir)
	}
	if u.Real {
		l, err := lab.UpReal(ctx, lab.RealOptions{Controllers: u.Controllers, Workers: u.Workers, Pristine: u.Pristine, Log: os.Stderr}, c.Dir)
		if err != nil {
			return err
		}
		printTryReal(l, c.Dir)
		return nil
	}
	l, err := lab.Up(ctx, lab.Options{
		Controllers: u.Controllers, Workers: u.Workers, FromVersion: u.FromVersion, PackageManager: u.PkgMgr, Log: os.Stderr,
	}, c.Dir)
	if err != nil {
		return err
	}
	printTry(l, c.Dir)
	return nil
}

func printTryReal(l *lab.Lab, dir string) {
	fmt.Printf(`Real lab %s is up at %s. Files in %s: inventory.yml, known_hosts, id_ed25519, admin.conf.

Try:
  %s --kubeconfig %s get nodes -o wide
  kupgrade -i %s upgrade start %s && kupgrade -i %s upgrade run
  kupgrade-lab exec controller-0 --dir %s -- sh -c 'apt-mark showhold; cat /etc/apt/sources.list.d/kubernetes.list'
  kupgrade-lab fault controller-1 --after kubelet-config --exit 1 --once --dir %s
  kupgrade-lab down --dir %s
`, l.Name, lab.RealFromVersion, dir, l.Kubectl(), l.Kubeconfig(), l.Inventory(), lab.RealToVersion, l.Inventory(), dir, dir, dir)
}

func printTry(l *lab.Lab, dir string) {
	n := l.Nodes()[0]
	fmt.Printf(`Lab %s is up. Files in %s: inventory.yml, known_hosts, id_ed25519.

Try:
  ssh -i %s -o UserKnownHostsFile=%s -p %d sysadmin@127.0.0.1 sudo kubeadm version -o short
  kupgrade -i %s inventory list
  kupgrade -i %s host list --refresh
  kupgrade-lab fault controller-1 --after kubelet-config --exit 1 --once --dir %s
  kupgrade-lab exec controller-1 --dir %s -- cat /var/lib/kubelet/config.yaml
  kupgrade-lab down --dir %s
`, l.Name, dir, l.KeyFile(), l.KnownHosts(), n.Port, l.Inventory(), l.Inventory(), dir, dir, dir)
}

type downCmd struct{}

func (downCmd) Run(ctx context.Context, c *cli) error {
	name, err := lab.Down(ctx, c.Dir)
	if err != nil {
		return err
	}
	if name == "" {
		fmt.Printf("no lab in %s\n", c.Dir)
		return nil
	}
	fmt.Printf("removed lab %s\n", name)
	return nil
}

type faultCmd struct {
	Node  string `arg:"" help:"Node name, e.g. controller-1."`
	After string `help:"Fire when this phase ends (${phases})." xor:"when"`
	In    string `help:"Fire when this phase starts, before it changes anything." xor:"when"`
	Exit  *int   `help:"Exit with this status." xor:"action"`
	Hang  bool   `help:"Hang until signalled or the SSH session is gone." xor:"action"`
	Drop  bool   `help:"Drop the SSH connection." xor:"action"`
	Delay *int   `help:"Wait this many seconds, then go on (a slow kubeadm)." xor:"action"`
	Stale bool   `help:"With --in kubelet-status: the kubelet's restart leaves its node status at the old version." xor:"action"`
	Once  bool   `help:"Remove the fault when it fires, so a retry succeeds."`
	Clear bool   `help:"Remove the node's fault." xor:"when,action"`
}

func (f faultCmd) Run(ctx context.Context, c *cli) error {
	l, err := lab.Open(ctx, c.Dir)
	if err != nil {
		return err
	}
	node := l.Node(f.Node)
	if node == nil {
		return fmt.Errorf("no node %q in lab %s", f.Node, l.Name)
	}
	if f.Clear {
		return node.ClearFault(ctx)
	}
	fault := lab.Fault{Phase: f.After, Once: f.Once}
	if f.In != "" {
		fault.Phase, fault.Before = f.In, true
	}
	switch {
	case f.Hang:
		fault.Action = lab.Hang
	case f.Drop:
		fault.Action = lab.Drop
	case f.Exit != nil:
		fault.Action, fault.Status = lab.Exit, *f.Exit
	case f.Delay != nil:
		fault.Action, fault.Seconds = lab.Delay, *f.Delay
	case f.Stale:
		fault.Action = lab.Stale
	default:
		return errors.New("say what the fault does: --exit N, --hang, --drop, --delay SECONDS or --stale")
	}
	if err := node.InjectFault(ctx, fault); err != nil {
		return err
	}
	fmt.Printf("%s: %s", node.Name, strings.ReplaceAll(fault.String(), "\n", " "))
	fmt.Println()
	return nil
}

type execCmd struct {
	Node    string   `arg:"" help:"Node name."`
	Command []string `arg:"" passthrough:"" help:"Command and arguments."`
}

func (e execCmd) Run(ctx context.Context, c *cli) error {
	l, err := lab.Open(ctx, c.Dir)
	if err != nil {
		return err
	}
	node := l.Node(e.Node)
	if node == nil {
		return fmt.Errorf("no node %q in lab %s", e.Node, l.Name)
	}
	cmd := e.Command
	if len(cmd) > 0 && cmd[0] == "--" {
		cmd = cmd[1:]
	}
	out, err := node.ExecInput(ctx, os.Stdin, cmd...)
	fmt.Print(out)
	return err
}
