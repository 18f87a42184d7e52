package nodeagent

import (
	"net/netip"
	"testing"
)

func TestGatewayMAC(t *testing.T) {
	for _, c := range []struct{ gateway, want string }{
		{"10.244.0.1", "02:00:0a:f4:00:01"},
		{"192.168.255.254", "02:00:c0:a8:ff:fe"},
	} {
		if got := gatewayMAC(netip.MustParseAddr(c.gateway)); got != c.want {
			t.Errorf("gatewayMAC(%s) = %s, want %s", c.gateway, got, c.want)
		}
	}
}
