// Command node-agent makes a control plane of scripts/local-cluster.sh run pods, for trying
// the chart by hand: it starts a default kube-scheduler (for the chart's own pods) and the
// node agent, which runs the chart's pods as host processes and reports every other pod
// running (test/e2e/nodeagent). It runs until interrupted, then stops what it started.
//
//	scripts/local-cluster.sh up /tmp/cluster --nodes 8 --zones 2
//	sudo scripts/node-agent.sh /tmp/cluster
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"scheduler-extender/test/e2e/framework"
)

func main() {
	dir := flag.String("cluster", "", "the directory of a cluster started by scripts/local-cluster.sh up")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "node-agent: --cluster DIR is required")
		os.Exit(2)
	}
	paths, err := framework.DefaultPaths()
	if err != nil {
		log.Fatal(err)
	}
	cluster, err := framework.OpenCluster(paths, *dir)
	if err != nil {
		log.Fatal(err)
	}
	scheduler, err := cluster.StartDefaultScheduler()
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("default-scheduler logs to %s", scheduler.Log)
	agent, err := cluster.StartNodeAgent(log.Printf)
	if err != nil {
		scheduler.Stop()
		log.Fatal(err)
	}
	log.Printf("node agent serving every node of %s; pods log under %s/node/pods", *dir, *dir)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	agent.Stop()
	scheduler.Stop()
}
