"""Rates the paper figures take from the `flow_ts` trace (FaST's Fig. 10,
TCPRand's Fig. 16) are each step's bytes over that step's own length: the
trace's last sample is where the run ended, which need not lie a whole
interval after the one before."""

import dcnsim
from dcnsim.experiments.tcprand.figs16_17 import _rates


def test_rates_over_each_steps_own_length_add_up_to_what_was_delivered(tmp_path):
    # two flows of fixed size: the run ends with the last byte delivered,
    # between two samples of the 1 ms trace
    doc = {"name": "rates", "seed": 1, "stop": "1s",
           "topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "10us", "buffer": "100pkt"},
           "trace": {"interval": "1ms", "flows": True},
           "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "2MB"},
                    {"kind": "bulk", "src": 2, "dst": 0, "size": "1MB"}]}
    r = dcnsim.run(doc)
    r.write(tmp_path)
    fts = r.flow_ts
    fts = fts.to_pandas() if hasattr(fts, "to_pandas") else fts
    end = float(fts["time_s"].max())
    assert abs(end / 1e-3 - round(end / 1e-3)) > 1e-6, "the run should end off the trace's grid"
    rates = _rates(str(tmp_path))
    flows = r.flows.to_pandas() if hasattr(r.flows, "to_pandas") else r.flows
    for fid, g in rates.groupby("flow_id"):
        steps = fts[fts.flow_id == fid].sort_values("time_s")
        dt = steps["time_s"].diff().dropna().to_numpy()
        dt = dt[dt > 0]
        carried = float((g["mbps"].to_numpy() * 1e6 / 8 * dt).sum())
        total = float(flows.loc[flows.flow_id == fid, "delivered_bytes"].iloc[0])
        # conservation: the rates over their steps carry every delivered byte
        assert abs(carried - total) <= 1e-6 * total, (fid, carried, total)
