#!/usr/bin/env bash
# Regenerates the TLS test PKI (valid for 100 years, so this rarely runs; CI does not run
# it). Needs the openssl command. The CA keys are thrown away: nothing else gets signed.
#   ca.crt              the client CA given to --client-ca-file; signs server*, client
#   server.*            the serving certificate (127.0.0.1, localhost)
#   server-rotated.*    a second serving certificate, for the reload test
#   client.*            a client certificate from ca.crt (kube-scheduler's tlsConfig), CN
#                       kube-scheduler
#   san-client.*        a client certificate from ca.crt named by its DNS SAN
#                       (kube-scheduler.scheduling.svc), with another CN
#   other-client.*      a client certificate from ca.crt for another workload, CN
#                       other-workload: signed, but not an allowed name
#   foreign-client.*    a client certificate from foreign-ca.crt, to be refused
set -euo pipefail
cd "$(dirname "$0")"
days=36500
key() { openssl ecparam -name prime256v1 -genkey -noout -out "$1"; }
ca() {  # name subject
  key "$1.key"
  openssl req -x509 -new -key "$1.key" -subj "/CN=$2" -days $days -out "$1.crt"
}
sign() {  # name subject ca extensions
  key "$1.key"
  openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"
  printf '%b' "$4" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$3.crt" -CAkey "$3.key" -CAcreateserial -days $days \
    -out "$1.crt" -extfile "$1.ext"
  rm "$1.csr" "$1.ext"
}
ca ca "scheduler-extender test CA"
ca foreign-ca "foreign test CA"
server="subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
sign server "scheduler-extender" ca "$server"
sign server-rotated "scheduler-extender rotated" ca "$server"
sign client "kube-scheduler" ca "extendedKeyUsage=clientAuth\n"
sign san-client "scheduler robot" ca \
  "subjectAltName=DNS:kube-scheduler.scheduling.svc\nextendedKeyUsage=clientAuth\n"
sign other-client "other-workload" ca "extendedKeyUsage=clientAuth\n"
sign foreign-client "intruder" foreign-ca "extendedKeyUsage=clientAuth\n"
rm -f ./*.srl ca.key foreign-ca.key
