package nodeagent

import (
	"fmt"
	"net/netip"
	"os/exec"
	"strings"
	"sync"
)

// Network is the pod network: a bridge on the host whose address is every pod's gateway, a
// veth pair per pod with the pod's end in a network namespace of its own, so that each pod
// has its own 127.0.0.1 and ports, as in a cluster. Service ClusterIPs are added to the
// bridge as /32 addresses, where the agent's service proxy listens for them.
type Network struct {
	Bridge  string       // the bridge's name, e.g. "sxe2e0"
	Gateway netip.Prefix // the bridge's address and the pods' prefix, e.g. 10.244.0.1/16

	mu   sync.Mutex
	next netip.Addr
	free []netip.Addr
}

// nsPrefix names every network namespace and host-side veth the agent makes, so that a run
// can find and remove what a crashed run left behind.
const nsPrefix = "sxe2e-"

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// setUp creates the bridge, removing first whatever an earlier run left: network namespaces
// named by nsPrefix (with any process still in them) and the bridge itself.
func (n *Network) setUp() error {
	removeStaleNamespaces()
	_ = run("ip", "link", "del", n.Bridge)
	// A bridge without an address of its own takes the lowest MAC among its ports, so it
	// would change whenever a pod's veth comes or goes; a pod that had resolved its gateway
	// to the old MAC then sends into the void until its neighbour entry expires, up to a
	// minute later. A fixed, locally administered MAC keeps the gateway where pods saw it.
	if err := run("ip", "link", "add", n.Bridge, "address", gatewayMAC(n.Gateway.Addr()), "type", "bridge"); err != nil {
		return err
	}
	if err := run("ip", "addr", "add", n.Gateway.String(), "dev", n.Bridge); err != nil {
		return err
	}
	n.next = n.Gateway.Addr().Next()
	return run("ip", "link", "set", n.Bridge, "up")
}

// gatewayMAC is the bridge's MAC: locally administered (02:…), the gateway's IPv4 address in
// its last four bytes.
func gatewayMAC(gateway netip.Addr) string {
	b := gateway.As4()
	return fmt.Sprintf("02:00:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3])
}

func (n *Network) tearDown() {
	removeStaleNamespaces()
	_ = run("ip", "link", "del", n.Bridge)
}

func removeStaleNamespaces() {
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		if !strings.HasPrefix(name, nsPrefix) {
			continue
		}
		pids, _ := exec.Command("ip", "netns", "pids", name).Output()
		for _, pid := range strings.Fields(string(pids)) {
			_ = run("kill", "-KILL", pid)
		}
		_ = run("ip", "netns", "del", name)
	}
}

// allocate hands out a pod address, reusing those of deleted pods.
func (n *Network) allocate() (netip.Addr, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.free) > 0 {
		a := n.free[len(n.free)-1]
		n.free = n.free[:len(n.free)-1]
		return a, nil
	}
	if !n.Gateway.Contains(n.next) {
		return netip.Addr{}, fmt.Errorf("pod network %s is full", n.Gateway.Masked())
	}
	a := n.next
	n.next = n.next.Next()
	return a, nil
}

func (n *Network) release(a netip.Addr) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.free = append(n.free, a)
}

// attach makes the pod's network namespace: loopback up, eth0 with the pod's address, and a
// default route through the bridge.
func (n *Network) attach(ns, hostVeth string, ip netip.Addr) error {
	steps := [][]string{
		{"ip", "netns", "add", ns},
		{"ip", "link", "add", hostVeth, "type", "veth", "peer", "name", "eth0", "netns", ns},
		{"ip", "link", "set", hostVeth, "master", n.Bridge, "up"},
		{"ip", "-n", ns, "link", "set", "lo", "up"},
		{"ip", "-n", ns, "addr", "add", netip.PrefixFrom(ip, n.Gateway.Bits()).String(), "dev", "eth0"},
		{"ip", "-n", ns, "link", "set", "eth0", "up"},
		{"ip", "-n", ns, "route", "add", "default", "via", n.Gateway.Addr().String()},
	}
	for _, s := range steps {
		if err := run(s[0], s[1:]...); err != nil {
			n.detach(ns, hostVeth)
			return err
		}
	}
	return nil
}

func (n *Network) detach(ns, hostVeth string) {
	_ = run("ip", "link", "del", hostVeth)
	_ = run("ip", "netns", "del", ns)
}

// addServiceIP makes a ClusterIP a local address, reachable from every pod through its
// default route.
func (n *Network) addServiceIP(ip netip.Addr) error {
	err := run("ip", "addr", "add", netip.PrefixFrom(ip, 32).String(), "dev", n.Bridge)
	if err != nil && (strings.Contains(err.Error(), "File exists") || strings.Contains(err.Error(), "already assigned")) {
		return nil
	}
	return err
}
