package nodeagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"
	"k8s.io/client-go/tools/cache"
)

var everything = labels.Everything()

// serviceProxy does kube-proxy's job in user space: it listens on each Service's ClusterIP
// and port (addresses of the bridge) and relays every connection to one of the Service's
// ready endpoints, read from its EndpointSlices at the time the connection comes, in turn.
// The `kubernetes` Service leads to kube-apiserver on the host's loopback.
type serviceProxy struct {
	network   *Network
	apiServer string
	apiIP     netip.AddrPort
	services  corelisters.ServiceLister
	slices    discoverylisters.EndpointSliceLister
	logf      func(string, ...any)

	mu        sync.Mutex
	listeners map[netip.AddrPort]net.Listener
	next      atomic.Uint64
	wake      chan struct{}
}

func newServiceProxy(network *Network, apiServer string, apiIP netip.AddrPort, factory informers.SharedInformerFactory, logf func(string, ...any)) *serviceProxy {
	p := &serviceProxy{
		network: network, apiServer: apiServer, apiIP: apiIP, logf: logf,
		services:  factory.Core().V1().Services().Lister(),
		slices:    factory.Discovery().V1().EndpointSlices().Lister(),
		listeners: map[netip.AddrPort]net.Listener{},
		wake:      make(chan struct{}, 1),
	}
	_, _ = factory.Core().V1().Services().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { p.poke() },
		UpdateFunc: func(any, any) { p.poke() },
		DeleteFunc: func(any) { p.poke() },
	})
	_ = factory.Discovery().V1().EndpointSlices().Informer()
	return p
}

func (p *serviceProxy) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *serviceProxy) start(ctx context.Context) error {
	if err := p.listen(p.apiIP, func() (string, error) { return p.apiServer, nil }); err != nil {
		return err
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-p.wake:
				p.reconcile()
			}
		}
	}()
	p.poke()
	return nil
}

func (p *serviceProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, l := range p.listeners {
		l.Close()
		delete(p.listeners, key)
	}
}

// reconcile opens a listener for every Service port that has none yet and closes those of
// Services that are gone.
func (p *serviceProxy) reconcile() {
	services, _ := p.services.List(everything)
	wanted := map[netip.AddrPort]bool{p.apiIP: true}
	for _, s := range services {
		ip, err := netip.ParseAddr(s.Spec.ClusterIP)
		if err != nil || ip == p.apiIP.Addr() {
			continue
		}
		for _, port := range s.Spec.Ports {
			if port.Protocol != corev1.ProtocolTCP && port.Protocol != "" {
				continue
			}
			key := netip.AddrPortFrom(ip, uint16(port.Port))
			wanted[key] = true
			service, portName := s.DeepCopy(), port.Name
			if err := p.listen(key, func() (string, error) { return p.endpoint(service, portName) }); err != nil {
				p.logf("service proxy: %s/%s port %d: %v", s.Namespace, s.Name, port.Port, err)
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, l := range p.listeners {
		if !wanted[key] {
			l.Close()
			delete(p.listeners, key)
		}
	}
}

func (p *serviceProxy) listen(at netip.AddrPort, backend func() (string, error)) error {
	p.mu.Lock()
	_, open := p.listeners[at]
	p.mu.Unlock()
	if open {
		return nil
	}
	if err := p.network.addServiceIP(at.Addr()); err != nil {
		return err
	}
	l, err := net.Listen("tcp", at.String())
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.listeners[at] = l
	p.mu.Unlock()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				if !errors.Is(err, net.ErrClosed) {
					p.logf("service proxy: accepting on %s: %v", at, err)
				}
				return
			}
			go p.relay(conn, backend)
		}
	}()
	return nil
}

func (p *serviceProxy) relay(conn net.Conn, backend func() (string, error)) {
	defer conn.Close()
	address, err := backend()
	if err != nil {
		p.logf("service proxy: %s: %v", conn.LocalAddr(), err)
		return
	}
	upstream, err := net.Dial("tcp", address)
	if err != nil {
		return
	}
	defer upstream.Close()
	done := make(chan struct{}, 2)
	pipe := func(to, from net.Conn) {
		_, _ = io.Copy(to, from)
		if tcp, ok := to.(*net.TCPConn); ok {
			_ = tcp.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(upstream, conn)
	go pipe(conn, upstream)
	<-done
	<-done
}

// endpoint picks the next ready endpoint of the Service's port, as kube-proxy spreads
// connections over them.
func (p *serviceProxy) endpoint(s *corev1.Service, portName string) (string, error) {
	slices, err := p.slices.EndpointSlices(s.Namespace).List(labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: s.Name}))
	if err != nil {
		return "", err
	}
	var ready []string
	for _, slice := range slices {
		port := -1
		for _, sp := range slice.Ports {
			if sp.Name != nil && *sp.Name == portName && sp.Port != nil {
				port = int(*sp.Port)
			}
		}
		if port < 0 {
			continue
		}
		for _, e := range slice.Endpoints {
			if e.Conditions.Ready != nil && !*e.Conditions.Ready {
				continue
			}
			for _, address := range e.Addresses {
				ready = append(ready, net.JoinHostPort(address, strconv.Itoa(port)))
			}
		}
	}
	if len(ready) == 0 {
		return "", fmt.Errorf("service %s/%s has no ready endpoint for port %q", s.Namespace, s.Name, portName)
	}
	return ready[int(p.next.Add(1)%uint64(len(ready)))], nil
}

func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}
