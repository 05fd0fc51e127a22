//! `[tcp]` and each app's `tcp` override: layering key by key, resolving
//! over the profile's defaults, and the checks across TCP keys.

use super::schema::{self, TcpSection};
use super::table::Ctx;
use crate::config::*;
use serde_json::{Map, Value};

// --------------------------------------------------------------------- tcp

/// A `[tcp]` layer as read (`schema::TcpSection`), with the keys it set
/// validly: an app's override is layered over the top-level one key by key.
#[derive(Clone, Debug, Default)]
pub(super) struct TcpLayer {
    pub(super) section: TcpSection,
    pub(super) keys: Map<String, Value>,
}

impl TcpLayer {
    pub(super) fn parse(ctx: &mut Ctx, v: &Value, path: &str) -> TcpLayer {
        match schema::read_table::<TcpSection>(v, path, "", &mut ctx.errs) {
            Some(r) => TcpLayer {
                section: r.value,
                keys: r
                    .valid
                    .into_iter()
                    .filter_map(|k| v.get(&k).map(|x| (k, x.clone())))
                    .collect(),
            },
            None => TcpLayer::default(),
        }
    }

    /// `self` over `base`: keys set in `self` win.
    pub(super) fn over(&self, base: &TcpLayer) -> TcpLayer {
        let mut keys = base.keys.clone();
        keys.extend(self.keys.clone());
        // Every key was read on its own already, so they read together.
        let section = serde_json::from_value(Value::Object(keys.clone())).unwrap_or_default();
        TcpLayer { section, keys }
    }

    /// Whether the layer sets any of `keys` (schema key names).
    pub(super) fn sets_any(&self, keys: &[&str]) -> bool {
        keys.iter().any(|k| self.keys.contains_key(*k))
    }
}

impl TcpSection {
    /// Apply over [`TcpConfig::default`].
    pub(super) fn resolve(&self) -> TcpConfig {
        let profile = self.profile.unwrap_or(TcpProfile::Papers);
        let d = TcpConfig::of_profile(profile);
        let mss = self.mss.unwrap_or(d.mss);
        let rwnd_bytes = match *self.rwnd {
            None => d.rwnd_bytes,
            Some(Limit::Bytes(b)) => b,
            Some(Limit::Packets(n)) => n.saturating_mul(mss as u64),
        };
        let cc = self.cc.unwrap_or(d.cc);
        let rto_min = self.rto_min.unwrap_or(d.rto_min);
        let sack = self.sack.unwrap_or(d.sack);
        let fast_smin = self.fast_smin.unwrap_or(d.fast.smin);
        let swift_max_cwnd = self.swift_max_cwnd.unwrap_or(d.swift.max_cwnd_packets);
        // A preset sets (σ², μ, v_τ, v_ω); explicit keys override it.
        let rand_base = self
            .tcprand_preset
            .and_then(|n| d.tcprand.with_preset(n))
            .unwrap_or(d.tcprand);
        TcpConfig {
            cc,
            // FaST's natural segment policy is its own.
            seg: self.segment.unwrap_or(if cc == CcKind::Fast {
                SegPolicyKind::Fast
            } else {
                d.seg
            }),
            mss,
            // Header compression (Kulkarni §4.3, after RFC 1144): 4 bytes
            // per packet on the wire; an explicit `header` wins.
            header_bytes: self
                .header
                .unwrap_or(if *self.header_compression == Some(true) {
                    4
                } else {
                    d.header_bytes
                }),
            init_cwnd_segments: self.init_cwnd.unwrap_or(d.init_cwnd_segments),
            init_ssthresh_segments: self.init_ssthresh.or(d.init_ssthresh_segments),
            ca_increase: self.ca_increase.unwrap_or(d.ca_increase),
            rwnd_bytes,
            rto_min,
            rto_init: self.rto_init.unwrap_or(d.rto_init),
            rto_max: self.rto_max.unwrap_or(d.rto_max),
            // Linux's G is its rto_min (TcpConfig::linux): they move together.
            granularity: self.granularity.unwrap_or(if profile == TcpProfile::Linux {
                rto_min
            } else {
                d.granularity
            }),
            max_backoff: self.max_backoff.unwrap_or(d.max_backoff),
            dupack_threshold: self.dupack_threshold.unwrap_or(d.dupack_threshold),
            reordering: self.reordering.unwrap_or(d.reordering),
            // With SACK, RACK-TLP (RFC 8985), Linux's default since 4.18 (issue
            // 24: duplicate-ACK counting leaves a lost tail to the RTO, so
            // SACK took more timeouts than no SACK). RACK needs SACK:
            // without it Linux falls back to duplicate ACKs.
            recovery: self.recovery.unwrap_or(if sack {
                LossRecovery::Rack
            } else {
                LossRecovery::DupAck
            }),
            delayed_ack: self.delayed_ack.unwrap_or(d.delayed_ack),
            delayed_ack_timeout: self.delayed_ack_timeout.unwrap_or(d.delayed_ack_timeout),
            delayed_ack_segments: self.delayed_ack_segments.unwrap_or(d.delayed_ack_segments),
            delayed_ack_quickack: self.delayed_ack_quickack.unwrap_or(d.delayed_ack_quickack),
            abc_limit: self.abc_limit.unwrap_or(d.abc_limit),
            sack,
            sack_rescue: self.sack_rescue.unwrap_or(d.sack_rescue),
            limited_transmit: self.limited_transmit.unwrap_or(d.limited_transmit),
            reduction: self.reduction.unwrap_or(d.reduction),
            // The profile's HyStart is tcp_cubic's: another cc under the
            // profile runs without it (an explicit "linux" is checked).
            hystart: self.hystart.unwrap_or(
                if d.hystart == HyStart::Linux && cc != CcKind::Cubic {
                    HyStart::Off
                } else {
                    d.hystart
                },
            ),
            cwnd_validation: self.cwnd_validation.unwrap_or(d.cwnd_validation),
            ack_counting: self.ack_counting.unwrap_or(d.ack_counting),
            cwnd_counting: self.cwnd_counting.unwrap_or(d.cwnd_counting),
            partial_ack_timer: self.partial_ack_timer.unwrap_or(d.partial_ack_timer),
            reno_reduction: self.reno_reduction.unwrap_or(d.reno_reduction),
            reno_exit: self.reno_exit.unwrap_or(d.reno_exit),
            ecn_reduction: self.ecn_reduction.unwrap_or(d.ecn_reduction),
            rack_timers: self.rack_timers.unwrap_or(d.rack_timers),
            rto_timer: self.rto_timer.unwrap_or(d.rto_timer),
            rto_ssthresh: self.rto_ssthresh.unwrap_or(d.rto_ssthresh),
            rack_in_loss: self.rack_in_loss.unwrap_or(d.rack_in_loss),
            rack_rtt_each_segment: self
                .rack_rtt_each_segment
                .unwrap_or(d.rack_rtt_each_segment),
            sack_on_old_ack: self.sack_on_old_ack.unwrap_or(d.sack_on_old_ack),
            reno_hold: self.reno_hold.unwrap_or(d.reno_hold),
            idle_restart: self.idle_restart.unwrap_or(d.idle_restart),
            timestamps: self.timestamps.unwrap_or(d.timestamps),
            // DCTCP and FaST imply ECN unless it is explicitly (and wrongly) off.
            ecn: self.ecn.unwrap_or(d.ecn || cc.needs_ecn()),
            handshake_rtt_sample: self.handshake_rtt_sample.unwrap_or(d.handshake_rtt_sample),
            cubic: CubicParams {
                fast_convergence: self
                    .cubic_fast_convergence
                    .unwrap_or(d.cubic.fast_convergence),
                linux: self.cubic_linux.unwrap_or(d.cubic.linux),
            },
            hz: self.hz.unwrap_or(d.hz),
            dctcp: DctcpParams {
                g: self.dctcp_g.unwrap_or(d.dctcp.g),
                alpha_init: self.dctcp_alpha_init.unwrap_or(d.dctcp.alpha_init),
            },
            plb: PlbParams {
                enabled: self.plb.unwrap_or(d.plb.enabled),
                rehash_rounds: self.plb_rehash_rounds.unwrap_or(d.plb.rehash_rounds),
                idle_rehash_rounds: self
                    .plb_idle_rehash_rounds
                    .unwrap_or(d.plb.idle_rehash_rounds),
                cong_thresh: self.plb_cong_thresh.unwrap_or(d.plb.cong_thresh),
                suspend_rto: self.plb_suspend_rto.unwrap_or(d.plb.suspend_rto),
            },
            // Linux's default (on) where the label is hashed: with PLB
            // over TCP (Swift's PLB is htsim's, without it)
            txrehash: self.txrehash.unwrap_or(
                (self.plb.unwrap_or(d.plb.enabled)
                    && (*self.transport).unwrap_or(d.transport) == Transport::Tcp)
                    || d.txrehash,
            ),
            fast: FastParams {
                g: self.fast_g.unwrap_or(d.fast.g),
                alpha_init: self.fast_alpha_init.unwrap_or(d.fast.alpha_init),
                wmin: self.fast_wmin.unwrap_or(d.fast.wmin),
                smin: fast_smin,
                probe_segments: self.fast_probe_segments.unwrap_or(d.fast.probe_segments),
                // The probes are S_min-sized unless told otherwise.
                probe_size: self.fast_probe_size.unwrap_or(fast_smin),
                seg_rule: self.fast_seg_rule.unwrap_or(d.fast.seg_rule),
            },
            dsr: DsrParams {
                mss: self.dsr_mss.unwrap_or(d.dsr.mss),
                cwnd: self.dsr_cwnd.unwrap_or(d.dsr.cwnd),
            },
            tcprand: TcpRandParams {
                mode: self.tcprand_mode.unwrap_or(rand_base.mode),
                rmin: self.tcprand_rmin.unwrap_or(rand_base.rmin),
                theta: self.tcprand_theta.unwrap_or(rand_base.theta),
                sigma2: self.tcprand_sigma2.unwrap_or(rand_base.sigma2),
                mu: self.tcprand_mu.unwrap_or(rand_base.mu),
                v_tau: self.tcprand_v_tau.unwrap_or(rand_base.v_tau),
                v_omega: self.tcprand_v_omega.unwrap_or(rand_base.v_omega),
            },
            probretx: ProbRetxParams {
                p: self.probretx_p.unwrap_or(d.probretx.p),
                period: self.probretx_period.unwrap_or(d.probretx.period),
                target: self.probretx_target.unwrap_or(d.probretx.target),
            },
            transport: (*self.transport).unwrap_or(d.transport),
            ndp: NdpParams {
                initial_window: self.ndp_initial_window.unwrap_or(d.ndp.initial_window),
                pull_rate: self.ndp_pull_rate.unwrap_or(d.ndp.pull_rate),
                rto: self.ndp_rto.unwrap_or(d.ndp.rto),
            },
            swift: SwiftParams {
                base_target: self.swift_base_target.unwrap_or(d.swift.base_target),
                hop_scale: self.swift_hop_scale.or(d.swift.hop_scale),
                fs_range: self.swift_fs_range.or(d.swift.fs_range),
                fs_min_cwnd: self.swift_fs_min_cwnd.unwrap_or(d.swift.fs_min_cwnd),
                fs_max_cwnd: self.swift_fs_max_cwnd.unwrap_or(d.swift.fs_max_cwnd),
                endpoint_target: self
                    .swift_endpoint_target
                    .unwrap_or(d.swift.endpoint_target),
                ai: self.swift_ai.unwrap_or(d.swift.ai),
                beta: self.swift_beta.unwrap_or(d.swift.beta),
                max_mdf: self.swift_max_mdf.unwrap_or(d.swift.max_mdf),
                min_cwnd: self.swift_min_cwnd.unwrap_or(d.swift.min_cwnd),
                max_cwnd_packets: swift_max_cwnd,
                // the default first flight fits under a smaller swift_max_cwnd
                // (Algorithm 1 keeps the window within it); only a window the
                // user gave above it is refused (tcp_cross_checks), so setting
                // swift_max_cwnd = 10 alone is not blamed on a key never set
                initial_window: self
                    .swift_initial_window
                    .unwrap_or(d.swift.initial_window.min(swift_max_cwnd)),
                rtx_reset_threshold: self
                    .swift_rtx_reset_threshold
                    .unwrap_or(d.swift.rtx_reset_threshold),
                rto_min: self.swift_rto_min.unwrap_or(d.swift.rto_min),
            },
            hpcc: HpccParams {
                eta: self.hpcc_eta.unwrap_or(d.hpcc.eta),
                max_stage: self.hpcc_max_stage.unwrap_or(d.hpcc.max_stage),
                w_ai: self.hpcc_w_ai.map_or(d.hpcc.w_ai, u64::from),
                n: self.hpcc_n.unwrap_or(d.hpcc.n),
                base_rtt: self.hpcc_base_rtt.unwrap_or(d.hpcc.base_rtt),
                u_init: self.hpcc_u_init.unwrap_or(d.hpcc.u_init),
                rto: self.hpcc_rto.unwrap_or(d.hpcc.rto),
            },
            dcqcn: DcqcnParams {
                g: self.dcqcn_g.unwrap_or(d.dcqcn.g),
                timer: self.dcqcn_timer.unwrap_or(d.dcqcn.timer),
                byte_counter: self.dcqcn_byte_counter.unwrap_or(d.dcqcn.byte_counter),
                f: self.dcqcn_f.unwrap_or(d.dcqcn.f),
                rai_bps: self.dcqcn_rai.unwrap_or(d.dcqcn.rai_bps),
                rhai_bps: self.dcqcn_rhai.unwrap_or(d.dcqcn.rhai_bps),
                min_rate_bps: self.dcqcn_min_rate.unwrap_or(d.dcqcn.min_rate_bps),
                cnp_interval: self.dcqcn_cnp_interval.unwrap_or(d.dcqcn.cnp_interval),
                rto: self.dcqcn_rto.unwrap_or(d.dcqcn.rto),
            },
            timely: TimelyParams {
                alpha: self.timely_alpha.unwrap_or(d.timely.alpha),
                beta: self.timely_beta.unwrap_or(d.timely.beta),
                t_low: self.timely_t_low.unwrap_or(d.timely.t_low),
                t_high: self.timely_t_high.unwrap_or(d.timely.t_high),
                min_rtt: self.timely_min_rtt.unwrap_or(d.timely.min_rtt),
                rai_bps: self.timely_rai.unwrap_or(d.timely.rai_bps),
                rhai_bps: self.timely_rhai.unwrap_or(d.timely.rhai_bps),
                hai_after: self.timely_hai_after.unwrap_or(d.timely.hai_after),
                min_rate_bps: self.timely_min_rate.unwrap_or(d.timely.min_rate_bps),
                rto: self.timely_rto.unwrap_or(d.timely.rto),
            },
        }
    }
}

/// Checks across fields of a resolved TCP config:
/// (key to report at, message, keys involved).
pub(super) fn tcp_cross_checks(
    c: &TcpConfig,
) -> Vec<(&'static str, String, &'static [&'static str])> {
    let mut out = Vec::new();
    // IPv4's total length is 16 bits (RFC 791); a jumbo frame is 9,000.
    if c.mss as u64 + c.header_bytes as u64 > 65_535 {
        out.push((
            "mss",
            format!(
                "mss ({} bytes) and its {}-byte header make packets over the largest IP packet, \
                 65,535 bytes",
                c.mss, c.header_bytes
            ),
            &["mss", "header"][..],
        ));
    }
    if c.rwnd_bytes < c.mss as u64 {
        out.push((
            "rwnd",
            format!(
                "receiver window ({} bytes) is smaller than mss ({} bytes)",
                c.rwnd_bytes, c.mss
            ),
            &["rwnd", "mss"][..],
        ));
    }
    if c.transport == Transport::Swift && c.swift.fs_min_cwnd >= c.swift.fs_max_cwnd {
        out.push((
            "swift_fs_min_cwnd",
            format!(
                "swift_fs_min_cwnd ({}) must be below swift_fs_max_cwnd ({})",
                c.swift.fs_min_cwnd, c.swift.fs_max_cwnd
            ),
            &["swift_fs_min_cwnd", "swift_fs_max_cwnd"][..],
        ));
    }
    if c.transport == Transport::Swift
        && c.swift.min_cwnd as u64 > c.swift.max_cwnd_packets as u64 * c.mss as u64
    {
        out.push((
            "swift_min_cwnd",
            format!(
                "swift_min_cwnd ({} bytes) exceeds swift_max_cwnd ({} packets of {} bytes)",
                c.swift.min_cwnd, c.swift.max_cwnd_packets, c.mss
            ),
            &["swift_min_cwnd", "swift_max_cwnd"][..],
        ));
    }
    if c.transport == Transport::Swift && c.swift.initial_window > c.swift.max_cwnd_packets {
        // Algorithm 1 keeps the window in [min_cwnd, max_cwnd]: a first
        // flight above the cap is a burst no later window may send
        out.push((
            "swift_initial_window",
            format!(
                "swift_initial_window ({} packets) exceeds swift_max_cwnd ({} packets)",
                c.swift.initial_window, c.swift.max_cwnd_packets
            ),
            &["swift_initial_window", "swift_max_cwnd"][..],
        ));
    }
    if c.transport == Transport::Swift && c.swift.max_mdf == 0.0 {
        // Swift's Algorithm 1 keeps at least 1 − max_mdf of the window on
        // every cut, on delay and on loss alike; swift_beta = 0 is the way
        // to turn off the delay-based cut alone
        out.push((
            "swift_max_mdf",
            "0 leaves Swift no decrease: every cut, on delay or on loss, keeps at least \
             1 − swift_max_mdf of the window, so the window only grows (until \
             swift_rtx_reset_threshold timeouts in a row reset it); give a fraction above 0 \
             (the paper's 0.5), or swift_beta = 0 to turn off the delay-based cut alone"
                .to_string(),
            &["swift_max_mdf", "transport"][..],
        ));
    }
    if c.transport == Transport::Timely && c.timely.t_low >= c.timely.t_high {
        out.push((
            "timely_t_low",
            format!(
                "timely_t_low ({}) must be below timely_t_high ({})",
                c.timely.t_low, c.timely.t_high
            ),
            &["timely_t_low", "timely_t_high"][..],
        ));
    }
    if c.cc == CcKind::Bbr && c.transport == Transport::Tcp {
        if c.probretx.p > 0.0 {
            out.push((
                "probretx_p",
                "BBR paces its segments on the timer probabilistic retransmission runs on; they cannot be combined (set probretx_p = 0 or another cc)".to_string(),
                &["probretx_p", "cc"][..],
            ));
        }
        if c.seg != SegPolicyKind::Fixed {
            out.push((
                "segment",
                format!(
                    "BBR counts its model in segments of mss bytes (Linux's packets); segment = '{}' varies them (use segment = 'fixed' with cc = 'bbr')",
                    super::values::name_of(super::values::SEGMENT_NAMES, c.seg)
                ),
                &["segment", "cc"][..],
            ));
        }
        if c.hystart != HyStart::Off {
            out.push((
                "hystart",
                "BBR leaves STARTUP by its own bandwidth test; HyStart is a slow-start exit for window-growing algorithms (set hystart = 'off')".to_string(),
                &["hystart", "cc"][..],
            ));
        }
    }
    if c.rto_max < c.rto_min {
        out.push((
            "rto_max",
            format!("rto_max ({}) is below rto_min ({})", c.rto_max, c.rto_min),
            &["rto_max", "rto_min"][..],
        ));
    }
    if c.rto_init > c.rto_max {
        out.push((
            "rto_init",
            format!("rto_init ({}) exceeds rto_max ({})", c.rto_init, c.rto_max),
            &["rto_init", "rto_max"][..],
        ));
    }
    if c.recovery == LossRecovery::Rack && !c.sack {
        out.push((
            "recovery",
            "'rack' detects losses from SACK information (RFC 8985): set sack = true".to_string(),
            &["recovery", "sack"][..],
        ));
    }
    if ![100, 250, 300, 1000].contains(&c.hz) {
        out.push((
            "hz",
            format!(
                "the kernel's CONFIG_HZ is 100, 250, 300 or 1000, got {}",
                c.hz
            ),
            &["hz"][..],
        ));
    }
    if c.hystart == HyStart::Linux && c.cc != CcKind::Cubic {
        out.push((
            "hystart",
            format!(
                "'linux' is tcp_cubic's HyStart and needs cc = 'cubic' (cc is '{}'); 'rfc9406' works with any cc",
                c.cc.name()
            ),
            &["hystart", "cc"][..],
        ));
    }
    if c.plb.enabled
        && c.transport != Transport::Swift
        && (c.cc != CcKind::Dctcp || c.transport != Transport::Tcp)
    {
        let what = if c.transport != Transport::Tcp {
            let name = super::values::name_of(super::values::TRANSPORT_NAMES, c.transport);
            format!("transport is '{name}'")
        } else {
            format!("cc is '{}'", c.cc.name())
        };
        out.push((
            "plb",
            format!(
                "PLB reads DCTCP's per-round fraction of CE-marked bytes (Linux runs it in tcp_dctcp), or Swift's delay (htsim's), and needs cc = 'dctcp' over TCP or transport = 'swift' ({what})"
            ),
            &["plb", "cc", "transport"][..],
        ));
    }
    if c.txrehash && c.transport != Transport::Tcp {
        out.push((
            "txrehash",
            "a new flow label on a timeout is TCP's (tcp_write_timeout); this transport has its own timers"
                .to_string(),
            &["txrehash", "transport"][..],
        ));
    }
    if c.cc.needs_ecn() && !c.ecn {
        out.push((
            "ecn",
            format!(
                "cc '{}' is built on ECN; ecn cannot be false (leave it out or set it true)",
                c.cc.name()
            ),
            &["ecn", "cc"][..],
        ));
    }
    let uses_fast = c.cc == CcKind::Fast || c.seg == SegPolicyKind::Fast;
    if uses_fast && c.fast.smin > c.mss {
        out.push((
            "fast_smin",
            format!(
                "fast_smin ({} bytes) exceeds mss ({} bytes)",
                c.fast.smin, c.mss
            ),
            &["fast_smin", "mss", "cc", "segment"][..],
        ));
    }
    if uses_fast && c.fast.probe_size > c.mss {
        out.push((
            "fast_probe_size",
            format!(
                "fast_probe_size ({} bytes) exceeds mss ({} bytes)",
                c.fast.probe_size, c.mss
            ),
            &["fast_probe_size", "fast_smin", "mss", "cc", "segment"][..],
        ));
    }
    if c.seg == SegPolicyKind::Dsr && c.dsr.mss > c.mss {
        out.push((
            "dsr_mss",
            format!(
                "dsr_mss ({} bytes) exceeds mss ({} bytes)",
                c.dsr.mss, c.mss
            ),
            &["dsr_mss", "mss", "segment"][..],
        ));
    }
    if c.seg == SegPolicyKind::TcpRand {
        let r = &c.tcprand;
        if r.mode == TcpRandMode::Static && r.rmin > c.mss {
            out.push((
                "tcprand_rmin",
                format!(
                    "tcprand_rmin ({} bytes) exceeds mss ({} bytes): payloads are drawn from [rmin, mss]",
                    r.rmin, c.mss
                ),
                &["tcprand_rmin", "tcprand_mode", "mss", "segment"][..],
            ));
        }
        if r.mode == TcpRandMode::Adaptive && r.theta > c.mss {
            out.push((
                "tcprand_theta",
                format!(
                    "tcprand_theta ({} bytes) exceeds mss ({} bytes): it is the floor of rMin ≤ mss",
                    r.theta, c.mss
                ),
                &["tcprand_theta", "tcprand_mode", "mss", "segment"][..],
            ));
        }
    }
    out
}

/// What must be on for a TCP key to be read, if `c` (an app's resolved
/// TCP) never reads `key`: a sweep over such a key would give flat
/// results, so it is warned about (as `hz`). `None`: read, or a key that
/// acts under every configuration.
pub(super) fn inert_key(key: &str, c: &TcpConfig) -> Option<&'static str> {
    let t = c.transport;
    let family = |p: &str| key.starts_with(p);
    // NDP, Swift, HPCC, DCQCN and TIMELY run their own windows or rates,
    // loss recovery and ACKs: TCP's keys are never read there (a user who
    // sets `init_cwnd` or `cc` on an NDP flow would otherwise think it
    // acts). Swift keeps the duplicate-ACK threshold of its fast
    // retransmit; `plb` and `txrehash` are refused by the cross-checks.
    if t != Transport::Tcp && tcp_only(key, t) {
        return Some("transport = \"tcp\"");
    }
    let (read, needs) = if family("ndp_") {
        (t == Transport::Ndp, "transport = \"ndp\"")
    } else if family("swift_") {
        (t == Transport::Swift, "transport = \"swift\"")
    } else if family("hpcc_") {
        (t == Transport::Hpcc, "transport = \"hpcc\"")
    } else if family("timely_") {
        (t == Transport::Timely, "transport = \"timely\"")
    } else if family("dcqcn_") {
        // TIMELY runs on DCQCN's rate sender but with its own keys: its
        // packets are not ECN-capable (no CNP, so no cut, α or timer), it
        // skips the byte counter, and its increases, floor and timeout
        // are `timely_*` (tcp/dcqcn.rs)
        (t == Transport::Dcqcn, "transport = \"dcqcn\"")
    } else if family("tcprand_") {
        let adaptive = c.tcprand.mode == TcpRandMode::Adaptive;
        if c.seg != SegPolicyKind::TcpRand {
            (false, "segment = \"tcprand\"")
        } else if key == "tcprand_rmin" {
            // the static mode's one parameter; adaptive derives rMin
            (!adaptive, "tcprand_mode = \"static\"")
        } else if key == "tcprand_mode" {
            // Algorithm 1 reads CUBIC's W_max and epoch: under another
            // cc it has neither and every segment is a full one
            (
                !adaptive || c.cc == CcKind::Cubic,
                "cc = \"cubic\" (adaptive TCPRand reads CUBIC's W_max; under another cc every segment is full)",
            )
        } else {
            // θ, μ, σ², the preset and the v_ bounds: Algorithm 1's
            (adaptive, "tcprand_mode = \"adaptive\"")
        }
    } else if family("dsr_") {
        (c.seg == SegPolicyKind::Dsr, "segment = \"dsr\"")
    } else if key == "fast_g" || key == "fast_alpha_init" {
        // α's gain and start: FaST's congestion control's, not its
        // segment policy's (which reads the sizing keys under any cc)
        (c.cc == CcKind::Fast, "cc = \"fast\"")
    } else if family("fast_") {
        (
            c.cc == CcKind::Fast || c.seg == SegPolicyKind::Fast,
            "cc or segment = \"fast\"",
        )
    } else if family("dctcp_") {
        (c.cc == CcKind::Dctcp, "cc = \"dctcp\"")
    } else if family("cubic_") {
        (c.cc == CcKind::Cubic, "cc = \"cubic\"")
    } else if key == "probretx_period" || key == "probretx_target" {
        (c.probretx.p > 0.0, "probretx_p > 0")
    } else if family("plb_") {
        (c.plb.enabled, "plb = true")
    } else if key == "sack_rescue" || key == "reduction" || key == "sack_on_old_ack" {
        (c.sack, "sack = true")
    } else if matches!(
        key,
        "partial_ack_timer" | "reno_reduction" | "reno_hold" | "reno_exit"
    ) {
        // NewReno's recovery machine reads them, and it runs only
        // without SACK: under profile = "linux" (SACK on) a user setting
        // one would see nothing move
        (!c.sack, "sack = false")
    } else if c.cc == CcKind::Bbr
        && matches!(
            key,
            "idle_restart" | "abc_limit" | "ack_counting" | "ca_increase"
        )
    {
        // BBR sets cwnd from its model (Linux's cong_control replaces
        // cong_avoid) and keeps it after idle (tcp_bbr's own restart)
        (false, "a cc other than \"bbr\"")
    } else if family("rack_") {
        (c.recovery == LossRecovery::Rack, "recovery = \"rack\"")
    } else if family("delayed_ack_") {
        (c.delayed_ack, "delayed_ack = true")
    } else {
        return None;
    };
    (!read).then_some(needs)
}

/// Whether `key` is read by TCP's own machinery only (its congestion
/// control, segment policy, recovery, timers and ACKs), never by the
/// transport `t` (not TCP). `mss`, `header`, `header_compression`,
/// `profile` (its `mss` and `header`) and `handshake_rtt_sample` (the first
/// SRTT) act under every transport; `plb` and `txrehash` are refused
/// where they do not apply (`tcp_cross_checks`).
fn tcp_only(key: &str, t: Transport) -> bool {
    const FAMILIES: &[&str] = &[
        "cubic_",
        "dctcp_",
        "fast_",
        "tcprand_",
        "dsr_",
        "probretx_",
        "rack_",
        "delayed_ack",
        // Swift's PLB is htsim's rule; the plb_* keys are DCTCP's
        "plb_",
    ];
    const KEYS: &[&str] = &[
        "cc",
        "segment",
        "init_cwnd",
        "init_ssthresh",
        "ca_increase",
        "rwnd",
        "rto_min",
        "rto_init",
        "rto_max",
        "granularity",
        "max_backoff",
        "rto_ssthresh",
        "reordering",
        "recovery",
        "abc_limit",
        "sack",
        "sack_rescue",
        "limited_transmit",
        "reduction",
        "hystart",
        "cwnd_validation",
        "ack_counting",
        "cwnd_counting",
        "partial_ack_timer",
        "reno_reduction",
        "reno_exit",
        "ecn_reduction",
        "reno_hold",
        "idle_restart",
        "timestamps",
        "ecn",
        "hz",
    ];
    if key == "dupack_threshold" {
        return !t.counts_dupacks();
    }
    KEYS.contains(&key) || FAMILIES.iter().any(|f| key.starts_with(f))
}
