// Package throughput measures the scheduling throughput of the real kube-scheduler on
// upstream scheduler_perf's inter-pod affinity workloads, alone and with the extender
// registered as the chart renders it (bench/throughput.sh). Its test skips unless
// SX_THROUGHPUT=1: it takes tens of minutes and the whole machine.
package throughput
