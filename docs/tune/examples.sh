#!/bin/sh
# The worked examples of docs/tune.md, one per paper. Each is resumable:
# rerun to continue, or to redo only what changed. OUT defaults to out/tune.
set -e
OUT=${OUT:-out/tune}
JOBS=${JOBS:-2}
# the scenarios beside this script, from whatever directory it is run in
SC=$(cd "$(dirname "$0")/../../scenarios/tune" && pwd)

# Kulkarni: probabilistic retransmission p across the fan-in n
for n in 4 16 32; do
  dcnsim tune "$SC"/kulkarni_probretx.toml --set apps.0.servers=1-$n \
    --param tcp.probretx_p=log:1e-5:0.3 --objective block_goodput \
    --baseline tcp.probretx_p=0 --reference tcp.probretx_p=0.001 \
    --trials 20 --seeds 1,2 --confirm-seeds 11,12,13 --jobs "$JOBS" --no-progress \
    --out "$OUT/kulkarni-n$n"
done

# TCPRand: the adaptive parameters (sigma2, mu, v_tau, v_omega) on the outcast fat-tree
dcnsim tune "$SC"/tcprand_outcast.toml \
  --param tcp.tcprand_sigma2=log:0.1:10 --param tcp.tcprand_mu=-2:2 \
  --param tcp.tcprand_v_tau=log:0.25:8 --param tcp.tcprand_v_omega=0:4 \
  --objective jain --constraint 'goodput>=0.95*baseline' --baseline tcp.segment=fixed \
  --reference tcp.tcprand_preset=default \
  --trials 30 --seeds 1,2 --confirm-seeds 11,12,13 --jobs "$JOBS" --no-progress --out "$OUT/tcprand"
dcnsim sweep "$SC"/tcprand_outcast.toml --set tcp.tcprand_preset=default,conservative,aggressive \
  --seeds 11,12,13 --jobs "$JOBS" --no-progress --out "$OUT/tcprand-presets"

# FaST: DCTCP's g and K beyond N*max, against FaST with the paper's settings
dcnsim tune "$SC"/fast_dctcp.toml \
  --param tcp.dctcp_g=log:0.004:0.5 --param topology.ecn_k=2pkt:60pkt --objective qct_p99 \
  --reference tcp.cc=fast \
  --trials 24 --seeds 1,2 --confirm-seeds 11,12,13 --jobs "$JOBS" --no-progress --out "$OUT/fast"

# Packet spraying: the duplicate-ACK threshold (and adaptive reordering) under RPS
dcnsim tune "$SC"/rps_dupthresh.toml \
  --param tcp.dupack_threshold=int,log:3:64 --param tcp.reordering=choice:fixed,adaptive --objective fct_mean \
  --baseline routing.mode=ecmp --reference tcp.dupack_threshold=3 \
  --trials 20 --seeds 1,2 --confirm-seeds 11,12,13 --jobs "$JOBS" --no-progress --out "$OUT/rps"
