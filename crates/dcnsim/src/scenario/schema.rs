//! The scenario schema, declared once: serde-derived section structs
//! (`deny_unknown_fields`) whose field types are *value kinds* — a parser
//! built on `units.rs` plus its JSON Schema. [`json_schema()`] generates the
//! JSON Schema (schemars) that the Python builders and the key tables of
//! `docs/scenario.md` are checked against (`tests/test_schema.py`).
//!
//! Reading a section (`read_table`) reports every problem of the table,
//! not just the first: unknown keys (with a "did you mean"), then each bad
//! value at its field path (`serde_path_to_error`); a bad key is dropped
//! and the rest read again. Checks across fields run afterwards, on the
//! resolved configuration (`scenario/mod.rs`).

use super::table::key_path;
use super::values as sc;
use super::{ScenarioError, DOCUMENT};
use crate::config::{
    AckCounting, CaIncrease, CcKind, CwndCounting, CwndValidation, EcnReduction, FastSegRule,
    HyStart, IdleRestart, Limit, LossRecovery, NodeKind, NonEct, PartialAckTimer, ProbRetxTarget,
    RackTimers, Reduction, RenoExit, RenoReduction, Reordering, RoutingMode, RtoSsthresh, RtoTimer,
    SegPolicyKind, TcpProfile, TcpRandMode, Threads, Ties, Transport, Until,
};
use crate::scenario::units;
use crate::sim::time::SimTime;
use crate::text::suggest;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt;
use std::marker::PhantomData;

// ------------------------------------------------------------ value kinds

/// A kind of value: how a JSON value is read into `Out` (every message a
/// reason, ready to follow a field path) and how the schema describes it.
pub trait Kind {
    type Out: Clone + fmt::Debug;
    fn read(v: &Value) -> Result<Self::Out, String>;
    /// [`Self::read`] of a value the reader may keep: the kinds whose
    /// output is the value itself (a table, the app list) move it instead
    /// of copying it (a k = 32 permutation's 8,192 apps were copied twice).
    fn read_owned(v: Value) -> Result<Self::Out, String> {
        Self::read(&v)
    }
    /// How an [`Opt`] of this kind reads its key: the value as JSON, then
    /// [`Self::read_owned`].
    fn deserialize_out<'de, D: Deserializer<'de>>(d: D) -> Result<Self::Out, D::Error> {
        let v = Value::deserialize(d)?;
        Self::read_owned(v).map_err(de::Error::custom)
    }
    /// Name in the schema's `$defs` (shared kinds) — or `None` to inline.
    fn name() -> Option<Cow<'static, str>>;
    /// Its schema; `title` is the short type docs/scenario.md's tables show.
    fn schema(g: &mut SchemaGenerator) -> Schema;
}

/// An optional key of kind `K`: absent → `None`. Unlike `Option<T>`, an
/// explicit JSON `null` is read by `K` (and rejected there with its reason).
pub struct Opt<K: Kind>(pub Option<K::Out>, PhantomData<K>);

impl<K: Kind> Default for Opt<K> {
    fn default() -> Self {
        Opt(None, PhantomData)
    }
}

impl<K: Kind> Clone for Opt<K> {
    fn clone(&self) -> Self {
        Opt(self.0.clone(), PhantomData)
    }
}

impl<K: Kind> fmt::Debug for Opt<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<K: Kind> std::ops::Deref for Opt<K> {
    type Target = Option<K::Out>;
    fn deref(&self) -> &Option<K::Out> {
        &self.0
    }
}

impl<'de, K: Kind> Deserialize<'de> for Opt<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        K::deserialize_out(d).map(|x| Opt(Some(x), PhantomData))
    }
}

impl<K: Kind> JsonSchema for Opt<K> {
    fn inline_schema() -> bool {
        K::name().is_none()
    }
    fn schema_name() -> Cow<'static, str> {
        K::name().unwrap_or(Cow::Borrowed("inline"))
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        K::schema(g)
    }
}

/// A value kind with a shared definition in the schema.
macro_rules! kind {
    ($(#[$m:meta])* $name:ident => $out:ty, $read:expr, $title:expr, $schema:tt) => {
        $(#[$m])*
        pub struct $name;
        impl Kind for $name {
            type Out = $out;
            fn read(v: &Value) -> Result<$out, String> {
                ($read)(v)
            }
            fn name() -> Option<Cow<'static, str>> {
                Some(Cow::Borrowed(stringify!($name)))
            }
            fn schema(_: &mut SchemaGenerator) -> Schema {
                let mut s = json_schema!($schema);
                s.insert("title".into(), $title.into());
                s
            }
        }
    };
}

/// `true` or `false`.
pub struct Bool;

impl Kind for Bool {
    type Out = bool;
    fn read(v: &Value) -> Result<bool, String> {
        sc::boolean(v)
    }
    fn name() -> Option<Cow<'static, str>> {
        None
    }
    fn schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"title": "bool", "type": "boolean"})
    }
}
kind!(
    /// A time ≥ 0 with its unit.
    Time => SimTime, sc::time, "time",
    {"type": "string", "description": "a time with its unit: \"50us\", \"1.5ms\", \"2s\" (ps, ns, us, ms, s)"}
);
kind!(
    /// A time > 0 with its unit.
    PositiveTime => SimTime, sc::positive_time, "time > 0",
    {"type": "string", "description": "a time > 0 with its unit: \"50us\", \"1.5ms\", \"2s\""}
);
kind!(
    /// A queue or window limit: bytes or packets.
    LimitValue => Limit, sc::limit, "limit",
    {"type": ["string", "integer"], "minimum": 0,
     "description": "a size (\"32KB\": KB = 1024 B, MB = 1024² B; or an integer number of bytes) or a packet count (\"100pkt\")"}
);
kind!(
    /// A size in bytes that fits a segment (> 0, < 4 GiB).
    SegmentSize => u32, sc::segment_size, "size > 0",
    {"type": ["string", "integer"], "minimum": 1,
     "description": "a size > 0 that fits a segment: \"100B\", \"1KB\" (1024 B), or an integer number of bytes"}
);
kind!(
    /// A number in [0, 1], or a fraction string.
    Fraction => f64, sc::unit_fraction(true), "number in [0, 1]",
    {"type": ["number", "string"], "minimum": 0, "maximum": 1,
     "description": "a number in [0, 1] or a fraction string like \"1/16\""}
);
kind!(
    /// A number in (0, 1], or a fraction string.
    PositiveFraction => f64, sc::unit_fraction(false), "number in (0, 1]",
    {"type": ["number", "string"], "exclusiveMinimum": 0, "maximum": 1,
     "description": "a number in (0, 1] or a fraction string like \"1/16\""}
);
kind!(
    /// Any finite number.
    Number => f64, sc::finite, "number", {"type": "number"}
);
kind!(
    /// A finite number > 0.
    PositiveNumber => f64, sc::positive_finite, "number > 0", {"type": "number", "exclusiveMinimum": 0}
);
kind!(
    /// A scale factor > 0, or "inf".
    Scale => f64, sc::scale(false), "number > 0 or \"inf\"",
    {"type": ["number", "string"], "description": "a number > 0, or \"inf\""}
);
kind!(
    /// A scale factor ≥ 0, or "inf".
    ScaleOrZero => f64, sc::scale(true), "number ≥ 0 or \"inf\"",
    {"type": ["number", "string"], "description": "a number ≥ 0, or \"inf\""}
);

kind!(
    /// Any string.
    Text => String, sc::string, "string", {"type": "string"}
);
kind!(
    /// An integer ≥ 0 (64 bits).
    UInt => u64, sc::uint, "integer ≥ 0", {"type": "integer", "minimum": 0, "maximum": u64::MAX}
);
kind!(
    /// A size in bytes > 0.
    PositiveSize => u64, sc::positive_size, "size > 0",
    {"type": ["string", "integer"], "minimum": 1,
     "description": "a size > 0: \"32KB\", \"1.5MB\", \"16GB\" (KB = 1024 B, MB = 1024² B, GB = 1024³ B), or an integer number of bytes"}
);
kind!(
    /// A count that may be written as a float (`1e12`), or as text.
    EventCount => u64, sc::event_count, "whole number",
    {"type": ["number", "string"], "minimum": 1,
     "description": "a whole number from 1 to 1e19, such as 1e12 (or \"1e12\")"}
);
kind!(
    /// A list of hosts (checked against the topology afterwards).
    HostList => Value, |v: &Value| Ok(v.clone()), "host list",
    {"type": ["array", "string"], "items": {"type": "integer", "minimum": 0},
     "minItems": 1, "uniqueItems": true, "pattern": "^\\s*\\+?\\d+\\s*-\\s*\\+?\\d+\\s*$",
     "description": "host indices: a non-empty list without repeats, or an inclusive range string \"a-b\""}
);

/// A nested table, read on its own by its section struct `T` (so that all
/// its problems are reported, each at its path): the parent keeps the value.
pub struct Table<T>(PhantomData<T>);

impl<T: JsonSchema> Kind for Table<T> {
    type Out = Value;
    fn read(v: &Value) -> Result<Value, String> {
        Ok(v.clone())
    }
    fn read_owned(v: Value) -> Result<Value, String> {
        Ok(v)
    }
    fn name() -> Option<Cow<'static, str>> {
        None
    }
    fn schema(g: &mut SchemaGenerator) -> Schema {
        let mut s = g.subschema_for::<T>();
        s.insert("title".into(), "table".into());
        s
    }
}

/// `apps`: a list of app tables, each read on its own from the document
/// (`scenario/mod.rs` dispatches on its `kind`), so the document's table
/// records only that the key is there: a copy of a k = 32 permutation's
/// 8,192 apps cost more than reading them.
pub struct AppList;

/// A key that is there, read later from the document ([`AppList`]).
#[derive(Clone, Copy, Debug)]
pub struct Present;

impl Kind for AppList {
    type Out = Present;
    fn read(_: &Value) -> Result<Present, String> {
        Ok(Present)
    }
    fn deserialize_out<'de, D: Deserializer<'de>>(d: D) -> Result<Present, D::Error> {
        de::IgnoredAny::deserialize(d)?;
        Ok(Present)
    }
    fn name() -> Option<Cow<'static, str>> {
        None
    }
    fn schema(g: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "title": "array of tables",
            "type": "array",
            "minItems": 1,
            "items": g.subschema_for::<App>(),
        })
    }
}

/// An integer in `[MIN, 2³² − 1]`.
pub type Int<const MIN: u32> = IntUpTo<MIN, { u32::MAX }>;

/// An integer in `[MIN, MAX]`: read as any u32 of at least `MIN`, so a
/// value above `MAX` reaches the check that explains its bound
/// (`l2_overhead`'s in scenario/mod.rs); the schema states the bound.
pub struct IntUpTo<const MIN: u32, const MAX: u32>;

impl<const MIN: u32, const MAX: u32> Kind for IntUpTo<MIN, MAX> {
    type Out = u32;
    fn read(v: &Value) -> Result<u32, String> {
        sc::u32_in(MIN)(v)
    }
    fn name() -> Option<Cow<'static, str>> {
        None
    }
    fn schema(_: &mut SchemaGenerator) -> Schema {
        let title = if MAX == u32::MAX {
            format!("integer ≥ {MIN}")
        } else {
            format!("integer in [{MIN}, {MAX}]")
        };
        json_schema!({"title": title, "type": "integer", "minimum": MIN, "maximum": MAX})
    }
}

/// One of a fixed set of names (case-insensitive), from a table of
/// `(name, value)` in `scenario/mod.rs`.
macro_rules! choice {
    ($(#[$m:meta])* $name:ident => $out:ty, $table:expr, $what:expr) => {
        $(#[$m])*
        pub struct $name;
        impl Kind for $name {
            type Out = $out;
            fn read(v: &Value) -> Result<$out, String> {
                sc::named($table, $what)(v)
            }
            fn name() -> Option<Cow<'static, str>> {
                None
            }
            fn schema(_: &mut SchemaGenerator) -> Schema {
                let names: Vec<&str> = $table.iter().map(|(n, _)| *n).collect();
                json_schema!({"title": "name", "type": "string", "enum": names})
            }
        }
    };
}

choice!(RoutingModeName => RoutingMode, sc::ROUTING_NAMES, "routing mode");
choice!(NodeKindName => NodeKind, sc::NODE_KINDS, "node kind");
choice!(DirectionName => (bool, bool), sc::DIRECTION_NAMES, "direction");
choice!(Cc => CcKind, sc::CC_NAMES, "congestion control");
choice!(Segment => SegPolicyKind, sc::SEGMENT_NAMES, "segment policy");
choice!(ReorderingName => Reordering, sc::REORDERING_NAMES, "reordering mode");
choice!(CaIncreaseName => CaIncrease, sc::CA_INCREASE_NAMES, "congestion-avoidance increase");
choice!(RecoveryName => LossRecovery, sc::RECOVERY_NAMES, "loss recovery");
choice!(ReductionName => Reduction, sc::REDUCTION_NAMES, "rate reduction");
choice!(HyStartName => HyStart, sc::HYSTART_NAMES, "HyStart variant");
choice!(CwndValidationName => CwndValidation, sc::CWND_VALIDATION_NAMES, "cwnd validation");
choice!(AckCountingName => AckCounting, sc::ACK_COUNTING_NAMES, "ACK counting");
choice!(CwndCountingName => CwndCounting, sc::CWND_COUNTING_NAMES, "cwnd counting");
choice!(IdleRestartName => IdleRestart, sc::IDLE_RESTART_NAMES, "idle restart");
choice!(PartialAckTimerName => PartialAckTimer, sc::PARTIAL_ACK_TIMER_NAMES, "partial-ACK timer");
choice!(RenoReductionName => RenoReduction, sc::RENO_REDUCTION_NAMES, "Reno recovery pacing");
choice!(RenoExitName => RenoExit, sc::RENO_EXIT_NAMES, "window at the end of Reno recovery");
choice!(EcnReductionName => EcnReduction, sc::ECN_REDUCTION_NAMES, "ECN window reduction");
choice!(RackTimersName => RackTimers, sc::RACK_TIMERS_NAMES, "RACK-TLP timers");
choice!(RtoTimerName => RtoTimer, sc::RTO_TIMER_NAMES, "retransmission timers");
choice!(RtoSsthreshName => RtoSsthresh, sc::RTO_SSTHRESH_NAMES, "ssthresh on a repeated timeout");
choice!(TransportName => Transport, sc::TRANSPORT_NAMES, "transport");

kind!(
    /// Slow start's most SMSS per ACK: ≥ 1, or "unlimited".
    AbcLimit => u32, sc::abc_limit, "integer ≥ 1 or \"unlimited\"",
    {"type": ["string", "integer"], "minimum": 1, "maximum": u32::MAX, "pattern": "^[Uu][Nn][Ll][Ii][Mm][Ii][Tt][Ee][Dd]$",
     "description": "SMSS per ACK, or \"unlimited\""}
);
choice!(TiesName => Ties, sc::TIES_NAMES, "tie order");
choice!(UntilName => Until, sc::UNTIL_NAMES, "run end");
choice!(NonEctName => NonEct, sc::NON_ECT_NAMES, "non-ECT policy");
kind!(
    /// Threads of one run: ≥ 1, or "auto".
    ThreadsKind => Threads, sc::threads, "integer ≥ 1 or \"auto\"",
    {"type": ["string", "integer"], "minimum": 1, "maximum": u32::MAX, "pattern": "^[Aa][Uu][Tt][Oo]$",
     "description": "threads, or \"auto\""}
);
choice!(ProfileName => TcpProfile, sc::PROFILE_NAMES, "TCP profile");
choice!(FastSegRuleName => FastSegRule, sc::FAST_SEG_RULES, "FaST segment rule");
choice!(TcpRandModeName => TcpRandMode, sc::TCPRAND_MODES, "TCPRand mode");
choice!(TcpRandPreset => &'static str, sc::TCPRAND_PRESETS, "TCPRand preset");
choice!(
    ProbRetxTargetName => ProbRetxTarget,
    sc::PROBRETX_TARGETS,
    "probabilistic-retransmission target"
);

// --------------------------------------------------------------- top level

/// A dcnsim scenario document (docs/scenario.md).
// `topology` and `apps` are required: scenario/mod.rs reports them missing and
// goes on checking the rest, so they are optional to serde.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(extend("required" = ["topology", "apps"]))]
pub struct Document {
    /// label in outputs (the Rust core defaults to `"scenario"`; the Python front supplies the file stem)
    #[schemars(extend("x-default" = "file stem / `\"scenario\"`"))]
    pub name: Opt<Text>,
    /// master seed (CLI `--seed` / `run(seed=)` override it)
    #[schemars(extend("x-default" = "1"))]
    pub seed: Opt<UInt>,
    /// simulation ends here at the latest; at most 2⁶³ ps (≈ 106 days): a time the run computes past the clock's range (2⁶⁴ ps) is held at its end, beyond any `stop`, so it never runs. A `stop` no packet can meet (even the fastest host link's delay twice, with a switch between, is longer) is warned of at `topology`; a slow link further in, or an app's own slow path, is not checked
    #[schemars(extend("x-default" = "`\"10s\"`"))]
    pub stop: Opt<PositiveTime>,
    /// framing bytes added to every packet on the wire (38 = Ethernet header+FCS+preamble+IFG), at most 65,535. 0 matches the ns-2/ns-3 setups of the papers
    #[schemars(extend("x-default" = "0"))]
    pub l2_overhead: Opt<IntUpTo<0, { super::MAX_L2_OVERHEAD }>>,
    /// per-switch processing delay
    #[schemars(extend("x-default" = "`\"0s\"`"))]
    pub switch_delay: Opt<Time>,
    /// host timing noise: a packet that finds its host's NIC idle starts after U[0, host_jitter]; back-to-back packets are not delayed, so line rate is kept. Zero is fully deterministic like ns-2/ns-3/htsim; a few µs breaks drop-tail phase lock-out (Floyd & Jacobson 1991)
    #[schemars(extend("x-default" = "`\"0s\"`"))]
    pub host_jitter: Opt<Time>,
    /// `hosts = [0, 3]` (list or range string): write a pcap trace of each listed host's interface (`h0.pcap`, …; see below)
    #[schemars(extend("x-default" = "none"))]
    pub pcap: Opt<Table<PcapSection>>,
    /// time series: `interval` (time > 0, required), `flows` (bool, default true: every TCP flow's delivered bytes, cwnd, ssthresh, SRTT), `queues` (`"all"`, `"switches"` (the switches' egress queues, no NIC) or a list of `queue_id`s: occupancy in wire bytes and packets; default none, no queue sampled). Tables `flow_ts` and `queue_ts`: a sample at t = 0 and every multiple of `interval` up to `stop` while the run lasts, and a last one where the run ends (`sim_time_s`, off that grid when the end falls between two), so each flow's last row holds its `delivered_bytes` and `final_cwnd_bytes` of the flows table. Windows and ssthresh in bytes whatever the cc (docs/python.md, Result). `flows = false` with no `queues` samples nothing and warns
    #[schemars(extend("x-default" = "none"))]
    pub trace: Opt<Table<TraceSection>>,
    /// see below
    #[schemars(extend("x-default" = "required"))]
    pub topology: Opt<Table<Topology>>,
    /// `mode` ∈ `single`, `ecmp`, `rps`, `flowlet` (default `ecmp` if the table omits it); `salt` (bool, default true, only with `ecmp`): false gives every switch the same hash (hash polarisation); `flowlet_gap` (time > 0, default `"500us"`, only with `flowlet`): a pause longer than this starts a new flowlet with a random next hop. `rps` under a go-back-N transport (`dcqcn`, `timely`, `hpcc`) on a fabric with more than one path is warned about: reordered packets read as gaps and are resent (docs/dcqcn.md, Warnings); so is `rps` under `swift`, whose recovery resends a packet overtaken by `dupack_threshold` others. See docs/model.md, Routing
    #[schemars(extend("x-default" = "`{mode = \"ecmp\"}`"))]
    pub routing: Opt<Table<RoutingSection>>,
    /// defaults for every TCP flow of every app
    #[schemars(extend("x-default" = "see below"))]
    pub tcp: Opt<Table<TcpSection>>,
    /// the traffic
    #[schemars(extend("x-default" = "required, ≥ 1"))]
    pub apps: Opt<AppList>,
    /// threads that run this one simulation, each a partition of the topology with its own event queue (docs/performance.md, Threads): a whole number ≥ 1, or `"auto"` (as many as the cores free now when the cut pays, else one). Any number gives the same bits (the seeded order of `ties`); scenarios that cannot be cut (one switch), or whose windows hold too little work for a cut to pay (a number asked there runs slower than one thread; `DCNSIM_CUT=always` cuts anyway), run on one, and say why when a number was asked for
    #[schemars(extend("x-default" = "`\"auto\"` (`1` with `ties = \"fifo\"`)"))]
    pub threads: Opt<ThreadsKind>,
    /// order of events at the same picosecond: `"seeded"` (arrivals, then TCP timers, apps, UDP sources, samples; within a kind by component index scrambled per instant by the seed, so no port wins every tie; independent of when events were scheduled, as a partitioned run needs) or `"fifo"` (first scheduled first, as ns-2 and ns-3, the papers' simulators; one thread only). See docs/model.md, Engine
    #[schemars(extend("x-default" = "`\"seeded\"`"))]
    pub ties: Opt<TiesName>,
    /// when the run ends: `"apps_done"` (at the event that finishes the last app, or at `stop` if that comes first) or `"stop"` (at `stop` whatever the apps do, as ns-3's `Simulator::Stop` and htsim's end time: timers that fire after the apps are done, their retransmissions and the queues draining are simulated and counted, and `trace` samples run to `stop`)
    #[schemars(extend("x-default" = "`\"apps_done\"`"))]
    pub until: Opt<UntilName>,
    /// guards checked before a run (see [Limits](#limits)): `memory` (size), `events` (whole number)
    #[schemars(extend("x-default" = "`{memory = \"16GB\", events = 1e12}`"))]
    pub limits: Opt<Table<LimitsSection>>,
    /// payload trimming and header queues at every switch port (NDP's switch): `header_buffer` (limit, default twice each port's `buffer` in bytes), `header` (size of a trimmed packet, default `"64B"`), `return_to_sender` (bool, default false), `enabled` (bool, default true). See [Trimming](#trimming) and docs/model.md, Trimming
    #[schemars(extend("x-default" = "none (drop-tail FIFOs)"))]
    pub trimming: Opt<Table<TrimmingSection>>,
    /// in-band telemetry (INT) at every switch egress: each data packet records the port's queue length, transmitted bytes, a timestamp and the line rate, and its ACK carries them back (HPCC's switch; see [INT](#int) and docs/model.md, In-band telemetry). Needed by `transport = "hpcc"`; `true` with no `hpcc` flow is warned about (nothing reads the records)
    #[schemars(extend("x-default" = "true when some flow runs `hpcc`, else false"))]
    pub int: Opt<Bool>,
    /// priority flow control at every switch ingress (a lossless fabric, as RoCE and HPCC run on): `xoff` (size, default `"135000B"`), `xon` (size ≤ `xoff`, default `"108000B"`), htsim's thresholds; `enabled` (bool, default true). See [PFC](#pfc) and docs/model.md, Priority flow control
    #[schemars(extend("x-default" = "none (ports drop when full)"))]
    pub pfc: Opt<Table<PfcSection>>,
    /// links that go down, lose packets or slow down for a while: `a`, `b` (the node names the link joins), `at`, `until`, `loss`, `rate`, `direction`, `withdrawn`, `converge`. See [Failures](#failures) and docs/model.md, Link failures
    #[schemars(extend("x-default" = "none"))]
    pub failures: Opt<ListOf<FailureSection>>,
}

/// One `[[failures]]` entry: every link joining `a` and `b` fails.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(extend("required" = ["a", "b"]))]
pub struct FailureSection {
    /// a node's name (a host's `"h3"`, a switch's `"aggr0_1"`)
    #[schemars(extend("x-default" = "required"))]
    pub a: Opt<Text>,
    /// the name of the node at the link's other end
    #[schemars(extend("x-default" = "required"))]
    pub b: Opt<Text>,
    /// when the failure starts
    #[schemars(extend("x-default" = "`\"0s\"`"))]
    pub at: Opt<Time>,
    /// when the link is restored (after `at`)
    #[schemars(extend("x-default" = "never"))]
    pub until: Opt<PositiveTime>,
    /// the fraction of packets lost meanwhile: 1 is a link down, less a gray failure
    #[schemars(extend("x-default" = "1, or 0 with `rate`"))]
    pub loss: Opt<Fraction>,
    /// the rate the link runs at meanwhile, below its own (a degraded link): a packet whose serialization starts in the window is sent at it
    #[schemars(extend("x-default" = "the link's own"))]
    pub rate: Opt<Rate>,
    /// `both`, `a_to_b` or `b_to_a`: which directions fail
    #[schemars(extend("x-default" = "`\"both\"`"))]
    pub direction: Opt<DirectionName>,
    /// routing has converged around the failure: no path uses the link (ECMP spreads over the others). Only for a link between two switches down from the start for good, both ways
    #[schemars(extend("x-default" = "false"))]
    pub withdrawn: Opt<Bool>,
    /// routing converges this long after `at`: the link is withdrawn from every path (ECMP spreads over the others), and restored as long after `until`. Only for a link down (`loss = 1`) between two switches, both ways
    #[schemars(extend("x-default" = "never (routing does not react)"))]
    pub converge: Opt<Time>,
}

/// `[trimming]`: payload trimming and a header queue served first.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TrimmingSection {
    /// false turns the table off (so a sweep can compare `--set trimming.enabled=true,false`)
    #[schemars(extend("x-default" = "true"))]
    pub enabled: Opt<Bool>,
    /// the header queue's limit per port
    #[schemars(extend(
        "x-default" = "twice the port's `buffer` in bytes (htsim); a `buffer` in packets counts full-size data packets"
    ))]
    pub header_buffer: Opt<LimitValue>,
    /// wire bytes of a trimmed packet (htsim's NDP header: 64)
    #[schemars(extend("x-default" = "`\"64B\"`"))]
    pub header: Opt<SegmentSize>,
    /// a trimmed header of NDP's framing (NDP, DCQCN, TIMELY) that finds the header queue full goes back to its sender (htsim's `_return_to_sender`) instead of being dropped (NDP's sender resends at once, DCQCN's and TIMELY's discard it); a TCP or Swift header is dropped, as its sender could not use it back
    #[schemars(extend("x-default" = "false"))]
    pub return_to_sender: Opt<Bool>,
}

/// `[pfc]`: priority flow control (one class) at every switch ingress.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PfcSection {
    /// false turns the table off (so a sweep can compare `--set pfc.enabled=true,false`)
    #[schemars(extend("x-default" = "true"))]
    pub enabled: Opt<Bool>,
    /// an ingress port whose packets hold more than this (bytes, or `"15pkt"` packets) in its switch pauses the port's sender (htsim's HPCC: 15 packets of 9,000 B)
    #[schemars(extend("x-default" = "`\"135000B\"`"))]
    pub xoff: Opt<LimitValue>,
    /// the paused sender is resumed when the count falls below this (bytes or packets; htsim's HPCC: 12 packets of 9,000 B)
    #[schemars(extend("x-default" = "`\"108000B\"`"))]
    pub xon: Opt<LimitValue>,
}

/// `[routing]`: `salt` only with `mode = "ecmp"`, `flowlet_gap` only with
/// `mode = "flowlet"`.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RoutingSection {
    /// `single` (one shortest path), `ecmp` (per-flow hash), `rps` (random packet spraying), `flowlet`
    #[schemars(extend("x-default" = "`\"ecmp\"`"))]
    pub mode: Opt<RoutingModeName>,
    /// ECMP only: false gives every switch the same hash (hash polarisation)
    #[schemars(extend("x-default" = "true"))]
    pub salt: Opt<Bool>,
    /// flowlet only: a pause longer than this starts a new flowlet with a random next hop
    #[schemars(extend("x-default" = "`\"500us\"`"))]
    pub flowlet_gap: Opt<PositiveTime>,
}

/// `[pcap]`: capture points on these hosts' interfaces.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(extend("required" = ["hosts"]))]
pub struct PcapSection {
    /// the hosts whose interface is captured (`h{i}.pcap`)
    #[schemars(extend("x-default" = "required"))]
    pub hosts: Opt<HostList>,
}

/// `[trace]`: time series sampled every `interval`.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(extend("required" = ["interval"]))]
pub struct TraceSection {
    /// the sampling interval: samples at t = 0, every multiple of it up to `stop` while the run lasts, and where the run ends
    #[schemars(extend("x-default" = "required"))]
    pub interval: Opt<PositiveTime>,
    /// every TCP flow's delivered bytes, cwnd, ssthresh, SRTT (table `flow_ts`)
    #[schemars(extend("x-default" = "true"))]
    pub flows: Opt<Bool>,
    /// queue occupancy in wire bytes and packets (table `queue_ts`) of `"all"`, `"switches"` (the switches' egress queues) or a list of `queue_id`s
    #[schemars(extend("x-default" = "none"))]
    pub queues: Opt<QueueSelection>,
}

/// `[limits]`: the guard of `limits.rs`, checked before a run.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LimitsSection {
    /// the most memory the run may need (estimated before it starts)
    #[schemars(extend("x-default" = "`\"16GB\"`"))]
    pub memory: Opt<PositiveSize>,
    /// the most events the run may need
    #[schemars(extend("x-default" = "1e12"))]
    pub events: Opt<EventCount>,
}

kind!(
    /// Which queues a trace samples (checked against the topology afterwards).
    QueueSelection => Value, |v: &Value| Ok(v.clone()), "queues",
    {"anyOf": [{"type": "string", "enum": ["all", "switches"]},
               {"type": "array", "items": {"type": "integer", "minimum": 0}}]}
);

// ---------------------------------------------------------------- topology

/// The topology kinds, dispatched on `kind`.
pub const TOPOLOGY_KINDS: &[&str] = &["star", "two_tier", "fat_tree", "leaf_spine", "custom"];

kind!(
    /// A queue limit > 0.
    Buffer => Limit, sc::buffer, "limit > 0",
    {"type": ["string", "integer"], "minimum": 1,
     "description": "a size > 0 (\"32KB\": KB = 1024 B, MB = 1024² B; or an integer number of bytes) or a packet count (\"100pkt\")"}
);
kind!(
    /// A host's NIC queue: a limit > 0 or "unlimited".
    NicBuffer => Limit, sc::nic_buffer, "limit > 0 or \"unlimited\"",
    {"type": ["string", "integer"], "minimum": 1,
     "description": "a size > 0, a packet count (\"100pkt\"), or \"unlimited\""}
);
kind!(
    /// A host count ≥ 2 (at most the node limit).
    HostCount => usize, sc::usize_in(2), "integer ≥ 2", {"type": "integer", "minimum": 2}
);
kind!(
    /// A count ≥ 1 of racks, leaves, spines, hosts (at most the node limit).
    NodeCount => usize, sc::usize_in(1), "integer ≥ 1", {"type": "integer", "minimum": 1}
);
kind!(
    /// A fat-tree's k: even, 2 to 1000.
    FatTreeK => usize, sc::fat_tree_k, "even integer ≥ 2",
    {"type": "integer", "minimum": 2, "maximum": 1000, "multipleOf": 2}
);

/// A list of tables of `T`, each read on its own (`scenario/mod.rs`).
pub struct ListOf<T>(PhantomData<T>);

impl<T: JsonSchema> Kind for ListOf<T> {
    type Out = Value;
    fn read(v: &Value) -> Result<Value, String> {
        Ok(v.clone())
    }
    fn name() -> Option<Cow<'static, str>> {
        None
    }
    fn schema(g: &mut SchemaGenerator) -> Schema {
        json_schema!({"title": "array of tables", "type": "array", "items": g.subschema_for::<T>()})
    }
}

/// The queue keys every topology kind accepts, as `scenario/mod.rs` reads them.
pub struct Queues {
    pub buffer: Option<Limit>,
    pub ecn_k: Option<Limit>,
    pub ecn_non_ect: NonEct,
    pub ecn_kmax: Option<Limit>,
    pub ecn_pmax: Option<f64>,
    pub nic_buffer: Option<Limit>,
}

/// A topology kind's struct: `kind` and the common queue keys, then its own.
macro_rules! topology {
    ($(#[$m:meta])* $name:ident, $kind:literal, $buffer_default:literal { $($body:tt)* }) => {
        $(#[$m])*
        #[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            /// the topology kind
            #[schemars(extend("const" = $kind, "x-default" = "required"))]
            pub kind: Opt<Tag>,
            /// per-port switch egress buffer
            #[schemars(extend("x-default" = $buffer_default))]
            pub buffer: Opt<Buffer>,
            /// ECN marking threshold K of the switch ports (absent: no marking)
            #[schemars(extend("x-default" = "none"))]
            pub ecn_k: Opt<LimitValue>,
            /// what a switch port over its `ecn_k` does with a packet that is not ECN-capable: `"queue"` it as drop-tail does (the threshold only marks), or `"drop"` it where an ECN-capable one would be marked, as RED/WRED with ECN does (ns-3's RedQueueDisc with UseEcn, Linux `red ecn`)
            #[schemars(extend("x-default" = "`\"queue\"`"))]
            pub ecn_non_ect: Opt<NonEctName>,
            /// RED's marking ramp: the queue at which the marking probability reaches `ecn_pmax`, and past which every ECN-capable packet is marked; from each switch port's `ecn_k` (K_min) up, in its unit (the DCQCN paper's switches: K_min 5 KB, K_max 200 KB; ns-3's RedQueueDisc with ECN on the instantaneous queue). Absent: every ECN-capable packet over `ecn_k` is marked (DCTCP's step)
            #[schemars(extend("x-default" = "none"))]
            pub ecn_kmax: Opt<LimitValue>,
            /// RED's marking probability at `ecn_kmax`, rising linearly from 0 at `ecn_k`
            #[schemars(extend("x-default" = "`0.01` (DCQCN's paper) with `ecn_kmax`"))]
            pub ecn_pmax: Opt<PositiveFraction>,
            /// the hosts' own egress queue, never ECN-marking
            #[schemars(extend("x-default" = "`\"100pkt\"`"))]
            pub nic_buffer: Opt<NicBuffer>,
            $($body)*
        }
        impl $name {
            pub fn queues(&self) -> Queues {
                Queues {
                    buffer: *self.buffer,
                    ecn_k: *self.ecn_k,
                    ecn_non_ect: (*self.ecn_non_ect).unwrap_or_default(),
                    ecn_kmax: *self.ecn_kmax,
                    ecn_pmax: *self.ecn_pmax,
                    nic_buffer: *self.nic_buffer,
                }
            }
        }
    };
}

topology!(
    /// `kind = "star"`: hosts 0..hosts-1 on one switch `"sw"`.
    StarTopology, "star", "required" {
        /// number of hosts
        #[schemars(extend("x-default" = "required"))]
        pub hosts: Opt<HostCount>,
        /// rate of every link
        #[schemars(extend("x-default" = "required"))]
        pub rate: Opt<Rate>,
        /// one-way propagation delay of every link
        #[schemars(extend("x-default" = "required"))]
        pub delay: Opt<Time>,
    }
);

topology!(
    /// `kind = "two_tier"`: racks of hosts under ToRs, ToRs under one `"agg"`.
    TwoTierTopology, "two_tier", "required unless `tor_buffer` and `agg_buffer` are given" {
        /// number of racks (ToR switches)
        #[schemars(extend("x-default" = "required"))]
        pub racks: Opt<NodeCount>,
        /// hosts under each ToR
        #[schemars(extend("x-default" = "required"))]
        pub hosts_per_rack: Opt<NodeCount>,
        /// host–ToR rate
        #[schemars(extend("x-default" = "required"))]
        pub host_rate: Opt<Rate>,
        /// ToR–agg rate
        #[schemars(extend("x-default" = "required"))]
        pub core_rate: Opt<Rate>,
        /// one-way propagation delay of every link
        #[schemars(extend("x-default" = "required"))]
        pub delay: Opt<Time>,
        /// every ToR egress port's buffer
        #[schemars(extend("x-default" = "`buffer`"))]
        pub tor_buffer: Opt<Buffer>,
        /// every agg port's buffer
        #[schemars(extend("x-default" = "`buffer`"))]
        pub agg_buffer: Opt<Buffer>,
        /// ECN threshold of the ToR ports
        #[schemars(extend("x-default" = "`ecn_k`"))]
        pub tor_ecn_k: Opt<LimitValue>,
        /// ECN threshold of the agg ports
        #[schemars(extend("x-default" = "`ecn_k`"))]
        pub agg_ecn_k: Opt<LimitValue>,
        /// the ToR's port towards agg (it runs at `core_rate`)
        #[schemars(extend("x-default" = "`tor_buffer`"))]
        pub uplink_buffer: Opt<Buffer>,
        /// ECN threshold of the ToR's port towards agg
        #[schemars(extend("x-default" = "`tor_ecn_k`"))]
        pub uplink_ecn_k: Opt<LimitValue>,
    }
);

topology!(
    /// `kind = "fat_tree"`: Al-Fares k-ary fat-tree, k³/4 hosts.
    FatTreeTopology, "fat_tree", "required" {
        /// the arity k
        #[schemars(extend("x-default" = "required"))]
        pub k: Opt<FatTreeK>,
        /// rate of every link
        #[schemars(extend("x-default" = "required"))]
        pub rate: Opt<Rate>,
        /// one-way propagation delay of every link
        #[schemars(extend("x-default" = "required"))]
        pub delay: Opt<Time>,
    }
);

topology!(
    /// `kind = "leaf_spine"`: every leaf connects to every spine.
    LeafSpineTopology, "leaf_spine", "required" {
        /// number of leaf switches
        #[schemars(extend("x-default" = "required"))]
        pub leaves: Opt<NodeCount>,
        /// number of spine switches
        #[schemars(extend("x-default" = "required"))]
        pub spines: Opt<NodeCount>,
        /// hosts under each leaf
        #[schemars(extend("x-default" = "required"))]
        pub hosts_per_leaf: Opt<NodeCount>,
        /// host–leaf rate
        #[schemars(extend("x-default" = "required"))]
        pub host_rate: Opt<Rate>,
        /// leaf–spine rate
        #[schemars(extend("x-default" = "required"))]
        pub fabric_rate: Opt<Rate>,
        /// one-way propagation delay of every link
        #[schemars(extend("x-default" = "required"))]
        pub delay: Opt<Time>,
    }
);

topology!(
    /// `kind = "custom"`: named nodes and the links between them.
    CustomTopology, "custom", "required unless every link sets its own" {
        /// the nodes, hosts numbered in the order listed
        #[schemars(extend("x-default" = "required"))]
        pub nodes: Opt<ListOf<NodeSection>>,
        /// the links
        #[schemars(extend("x-default" = "required"))]
        pub links: Opt<ListOf<LinkSection>>,
    }
);

/// One node of a custom topology.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(extend("required" = ["name", "kind"]))]
pub struct NodeSection {
    /// unique, non-empty
    #[schemars(extend("x-default" = "required"))]
    pub name: Opt<Text>,
    /// `host` or `switch`
    #[schemars(extend("x-default" = "required"))]
    pub kind: Opt<NodeKindName>,
}

/// One link of a custom topology.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(extend("required" = ["a", "b", "rate", "delay"]))]
pub struct LinkSection {
    /// a node's name
    #[schemars(extend("x-default" = "required"))]
    pub a: Opt<Text>,
    /// the other node's name
    #[schemars(extend("x-default" = "required"))]
    pub b: Opt<Text>,
    /// the link's rate
    #[schemars(extend("x-default" = "required"))]
    pub rate: Opt<Rate>,
    /// one-way propagation delay
    #[schemars(extend("x-default" = "required"))]
    pub delay: Opt<Time>,
    /// the switch side's buffer
    #[schemars(extend("x-default" = "the topology's `buffer`"))]
    pub buffer: Opt<Buffer>,
    /// the switch side's ECN threshold
    #[schemars(extend("x-default" = "the topology's `ecn_k`"))]
    pub ecn_k: Opt<LimitValue>,
}

/// The topology: its `kind` selects which keys it takes.
// One per parse (scenario/mod.rs reads into it): its size does not matter.
#[derive(JsonSchema)]
#[schemars(untagged)]
#[allow(clippy::large_enum_variant)]
pub enum Topology {
    Star(StarTopology),
    TwoTier(TwoTierTopology),
    FatTree(FatTreeTopology),
    LeafSpine(LeafSpineTopology),
    Custom(CustomTopology),
}

// -------------------------------------------------------------------- apps

/// The app kinds, dispatched on `kind` (a table's other keys depend on it).
pub const APP_KINDS: &[&str] = &[
    "bulk",
    "partition_aggregate",
    "sync_reads",
    "udp_cbr",
    "poisson",
];

kind!(
    /// An app's `kind` (read by hand in `scenario/mod.rs`, before the table).
    Tag => Value, |v: &Value| Ok(v.clone()), "name", {"type": "string"}
);
kind!(
    /// A host index (its range is checked against the topology afterwards).
    Host => usize, sc::host(None), "host", {"type": "integer", "minimum": 0}
);
kind!(
    /// A rate > 0 with its unit.
    Rate => u64, sc::rate, "rate",
    {"type": "string", "description": "a rate with its unit: \"1Gbps\", \"100Mbps\", \"1e9bps\""}
);
kind!(
    /// A UDP payload: a size > 0 below 4 GiB.
    Payload => u32, sc::payload_size, "size > 0, at most 65,507 B",
    {"type": ["string", "integer"], "minimum": 1}
);
kind!(
    /// A Poisson app's offered load: a fraction of the sources' total access rate.
    Load => f64, sc::load, "number in (0, 1]",
    {"type": "number", "exclusiveMinimum": 0, "maximum": 1}
);
kind!(
    /// A count ≥ 1 (64 bits).
    Count => u64, |v: &Value| sc::int_in(1, u64::MAX)(v), "integer ≥ 1",
    {"type": "integer", "minimum": 1}
);
kind!(
    /// A flow-size CDF: a built-in name or `[size, probability]` points
    /// (read with `cdf_file` and `sampling` in `scenario/mod.rs`).
    Cdf => Value, |v: &Value| Ok(v.clone()), "CDF",
    {"anyOf": [{"type": "string", "enum": crate::cdf::BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>()},
               {"type": "array", "items": {"type": "array", "prefixItems": [
                   {"type": ["number", "string"]}, {"type": "number", "minimum": 0, "maximum": 1}]}}]}
);
kind!(
    /// A path (read with the CDF in `scenario/mod.rs`).
    PathText => Value, |v: &Value| Ok(v.clone()), "path", {"type": "string"}
);
kind!(
    /// How a CDF's sizes are drawn (read with the CDF in `scenario/mod.rs`).
    SamplingName => Value, |v: &Value| Ok(v.clone()), "name",
    {"type": "string", "enum": ["linear", "step"]}
);

/// `kind = "bulk"`: one TCP flow from `src` to `dst` (≠ `src`) of exactly
/// one of `size` or `duration`.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(extend("required" = ["kind", "src", "dst"]))]
pub struct BulkApp {
    /// `"bulk"`
    #[schemars(extend("const" = "bulk", "x-default" = "required"))]
    pub kind: Opt<Tag>,
    /// overrides of the top-level `[tcp]` keys for this app's flows
    #[schemars(extend("x-default" = "none"))]
    pub tcp: Opt<Table<TcpSection>>,
    /// when the app starts
    #[schemars(extend("x-default" = "`\"0s\"`"))]
    pub start: Opt<Time>,
    /// start later by up to this much, uniformly at random from the seed (phase effects: flows that all start at once can lock one drop-tail input port out; simulator scripts jitter their starts)
    #[schemars(extend("x-default" = "`\"0s\"` (no jitter)"))]
    pub start_jitter: Opt<Time>,
    /// sending host
    #[schemars(extend("x-default" = "required"))]
    pub src: Opt<Host>,
    /// receiving host (≠ `src`)
    #[schemars(extend("x-default" = "required"))]
    pub dst: Opt<Host>,
    /// bytes to send (exactly one of `size`, `duration`)
    #[schemars(extend("x-default" = "none"))]
    pub size: Opt<PositiveSize>,
    /// send for this long (exactly one of `size`, `duration`)
    #[schemars(extend("x-default" = "none"))]
    pub duration: Opt<PositiveTime>,
}

/// `kind = "partition_aggregate"`: queries fanned out to `workers`, each
/// answering `response` bytes.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(extend("required" = ["kind", "aggregator", "workers"]))]
pub struct PartitionAggregateApp {
    /// `"partition_aggregate"`
    #[schemars(extend("const" = "partition_aggregate", "x-default" = "required"))]
    pub kind: Opt<Tag>,
    /// overrides of the top-level `[tcp]` keys for this app's flows
    #[schemars(extend("x-default" = "none"))]
    pub tcp: Opt<Table<TcpSection>>,
    /// when the app starts
    #[schemars(extend("x-default" = "`\"0s\"`"))]
    pub start: Opt<Time>,
    /// start later by up to this much, uniformly at random from the seed (phase effects: flows that all start at once can lock one drop-tail input port out; simulator scripts jitter their starts)
    #[schemars(extend("x-default" = "`\"0s\"` (no jitter)"))]
    pub start_jitter: Opt<Time>,
    /// the host that sends the queries (not one of its workers)
    #[schemars(extend("x-default" = "required"))]
    pub aggregator: Opt<Host>,
    /// the hosts that answer
    #[schemars(extend("x-default" = "required"))]
    pub workers: Opt<HostList>,
    /// bytes each worker answers
    #[schemars(extend("x-default" = "`\"10KB\"`"))]
    pub response: Opt<PositiveSize>,
    /// bytes of each request
    #[schemars(extend("x-default" = "`\"64B\"`"))]
    pub request: Opt<PositiveSize>,
    /// queries, one after the other
    #[schemars(extend("x-default" = "100"))]
    pub queries: Opt<Int<1>>,
    /// time between the end of a query and the next
    #[schemars(extend("x-default" = "`\"0s\"`"))]
    pub gap: Opt<Time>,
}

/// `kind = "sync_reads"`: blocks striped over `servers`, each answering
/// `sru` bytes; the next block is requested when the last answer arrives.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(extend("required" = ["kind", "client", "servers"]))]
pub struct SyncReadsApp {
    /// `"sync_reads"`
    #[schemars(extend("const" = "sync_reads", "x-default" = "required"))]
    pub kind: Opt<Tag>,
    /// overrides of the top-level `[tcp]` keys for this app's flows
    #[schemars(extend("x-default" = "none"))]
    pub tcp: Opt<Table<TcpSection>>,
    /// when the app starts
    #[schemars(extend("x-default" = "`\"0s\"`"))]
    pub start: Opt<Time>,
    /// start later by up to this much, uniformly at random from the seed (phase effects: flows that all start at once can lock one drop-tail input port out; simulator scripts jitter their starts)
    #[schemars(extend("x-default" = "`\"0s\"` (no jitter)"))]
    pub start_jitter: Opt<Time>,
    /// the reading host (not one of its servers)
    #[schemars(extend("x-default" = "required"))]
    pub client: Opt<Host>,
    /// the hosts that answer
    #[schemars(extend("x-default" = "required"))]
    pub servers: Opt<HostList>,
    /// server request unit: bytes each server answers per block
    #[schemars(extend("x-default" = "`\"256KB\"`"))]
    pub sru: Opt<PositiveSize>,
    /// bytes of each request
    #[schemars(extend("x-default" = "`\"64B\"`"))]
    pub request: Opt<PositiveSize>,
    /// blocks read, one after the other
    #[schemars(extend("x-default" = "100"))]
    pub blocks: Opt<Int<1>>,
    /// each request waits U[0, jitter]
    #[schemars(extend("x-default" = "`\"0s\"`"))]
    pub jitter: Opt<Time>,
    /// request i, in the order of `servers`, leaves i × spacing after the block starts, before its jitter: a client that issues its requests one after another (a real host's per-request cost; validation/linux_lab measures its own)
    #[schemars(extend("x-default" = "`\"0s\"` (all at once)"))]
    pub spacing: Opt<Time>,
}

/// `kind = "udp_cbr"`: constant-bit-rate UDP (not a TCP app: no `tcp`).
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(extend("required" = ["kind", "src", "dst", "rate"]))]
pub struct UdpCbrApp {
    /// `"udp_cbr"`
    #[schemars(extend("const" = "udp_cbr", "x-default" = "required"))]
    pub kind: Opt<Tag>,
    /// sending host
    #[schemars(extend("x-default" = "required"))]
    pub src: Opt<Host>,
    /// receiving host (≠ `src`)
    #[schemars(extend("x-default" = "required"))]
    pub dst: Opt<Host>,
    /// sending rate, measured on the wire (each datagram's payload, 28 bytes of UDP/IP header and `l2_overhead`)
    #[schemars(extend("x-default" = "required"))]
    pub rate: Opt<Rate>,
    /// bytes per datagram
    #[schemars(extend("x-default" = "1460"))]
    pub payload: Opt<Payload>,
    /// when sending starts
    #[schemars(extend("x-default" = "`\"0s\"`"))]
    pub start: Opt<Time>,
    /// start later by up to this much, uniformly at random from the seed (phase effects: flows that all start at once can lock one drop-tail input port out; simulator scripts jitter their starts)
    #[schemars(extend("x-default" = "`\"0s\"` (no jitter)"))]
    pub start_jitter: Opt<Time>,
    /// when sending stops (after `start`)
    #[schemars(extend("x-default" = "the scenario's `stop`"))]
    pub stop: Opt<Time>,
}

/// `kind = "poisson"`: open-loop flow arrivals at a target load.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(extend("required" = ["kind", "load"]))]
pub struct PoissonApp {
    /// `"poisson"`
    #[schemars(extend("const" = "poisson", "x-default" = "required"))]
    pub kind: Opt<Tag>,
    /// overrides of the top-level `[tcp]` keys for this app's flows
    #[schemars(extend("x-default" = "none"))]
    pub tcp: Opt<Table<TcpSection>>,
    /// when arrivals start
    #[schemars(extend("x-default" = "`\"0s\"`"))]
    pub start: Opt<Time>,
    /// offered load as a fraction of C, the sources' total access rate (pFabric's definition: per source access link when their rates are equal; each source is drawn uniformly, so one slower than the mean is offered more than `load` of its link, which is warned of past 100 %)
    #[schemars(extend("x-default" = "required"))]
    pub load: Opt<Load>,
    /// flow sizes: a built-in workload or `[size, probability]` points (exactly one of `cdf`, `cdf_file`)
    #[schemars(extend("x-default" = "none"))]
    pub cdf: Opt<Cdf>,
    /// flow sizes from a text file of `size probability` lines
    #[schemars(extend("x-default" = "none"))]
    pub cdf_file: Opt<PathText>,
    /// `linear` (piecewise linear between points) or `step` (only the listed sizes)
    #[schemars(extend("x-default" = "`\"linear\"`"))]
    pub sampling: Opt<SamplingName>,
    /// sending hosts
    #[schemars(extend("x-default" = "every host"))]
    pub sources: Opt<HostList>,
    /// receiving hosts
    #[schemars(extend("x-default" = "every host"))]
    pub destinations: Opt<HostList>,
    /// arrivals stop after this long
    #[schemars(extend("x-default" = "until the scenario's `stop`"))]
    pub duration: Opt<PositiveTime>,
    /// arrivals stop after this many
    #[schemars(extend("x-default" = "unlimited"))]
    pub flows: Opt<Count>,
}

/// One `[[apps]]` table: its `kind` selects which keys it takes.
// scenario/mod.rs dispatches on `kind` itself, and reads the kind's struct.
// Never built (it only names the choice in the schema): no size concern.
#[derive(JsonSchema)]
#[schemars(untagged)]
#[allow(dead_code, clippy::large_enum_variant)]
pub enum App {
    Bulk(BulkApp),
    PartitionAggregate(PartitionAggregateApp),
    SyncReads(SyncReadsApp),
    UdpCbr(UdpCbrApp),
    Poisson(PoissonApp),
}

// -------------------------------------------------------------------- [tcp]

/// `[tcp]`, and an app's `tcp = {…}` override: every key optional; a layer
/// overrides the one below it key by key, and what no layer sets takes
/// its default (`x-default`).
// Defaults and cross-key checks: `TcpSection::resolve`, `tcp_cross_checks`
// in scenario/tcp.rs.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TcpSection {
    /// the defaults every other key overrides: `papers` (the papers' NewReno stack: the defaults listed here) or `linux` (today's Linux: CUBIC, SACK, RACK-TLP, Limited Transmit, Eifel undo, delayed ACKs with quick-ACK at start, IW 10, RTOmin 200 ms with G = RTOmin, RTO up to 120 s, MSS 1448 with timestamps; every key it sets says so below, docs/linux_profile.md lists them)
    #[schemars(extend("x-default" = "`\"papers\"`"))]
    pub profile: Opt<ProfileName>,
    /// congestion control: `newreno`, `cubic`, `dctcp`, `fast`, `bbr` (Linux's BBR v1, paced; docs/bbr.md)
    #[schemars(extend("x-default" = "`\"newreno\"`; `\"cubic\"` with `profile = \"linux\"`"))]
    pub cc: Opt<Cc>,
    /// segment-size policy: `fixed`, `fast`, `dsr`, `tcprand`
    #[schemars(extend("x-default" = "`\"fixed\"`; `\"fast\"` when `cc = \"fast\"`"))]
    pub segment: Opt<Segment>,
    /// payload bytes per full segment; with `header`, at most 65,535 (IPv4's largest packet)
    #[schemars(extend("x-default" = "1460; 1448 with `profile = \"linux\"`"))]
    pub mss: Opt<Int<1>>,
    /// TCP/IP header bytes per packet (data and ACKs)
    #[schemars(extend("x-default" = "40; 4 with `header_compression`; 52 with `profile = \"linux\"`"))]
    pub header: Opt<Int<0>>,
    /// Kulkarni §4.3 header compression (RFC 1144 style): `header` becomes 4 bytes unless `header` is given, which wins
    #[schemars(extend("x-default" = "false"))]
    pub header_compression: Opt<Bool>,
    /// initial window, segments (1,000 or more is warned of: htsim's and some papers' initial windows are in bytes)
    #[schemars(extend("x-default" = "2; 10 with `profile = \"linux\"`"))]
    pub init_cwnd: Opt<Int<1>>,
    /// initial slow-start threshold, segments (≥ 2; htsim starts at 15)
    #[schemars(extend("x-default" = "unbounded"))]
    pub init_ssthresh: Opt<Int<2>>,
    /// congestion avoidance's growth (newreno, dctcp, fast): `bytes` (one SMSS per cwnd of acknowledged bytes, RFC 3465; Linux, ns-3's TcpLinuxReno and TcpDctcp) or `per_ack` (SMSS²/cwnd per ACK, RFC 5681 eq. 3; ns-2's TCPs, ns-3's TcpNewReno; FaST's vwnd gains at most an ACK's share of one SMSS, SMSS·acked/vwnd, so its sub-MSS segments add one SMSS a window). docs/model.md
    #[schemars(extend("x-default" = "`\"bytes\"`"))]
    pub ca_increase: Opt<CaIncreaseName>,
    /// receiver window (size or `"Npkt"` = N·mss). It bounds what is in flight, min(cwnd, rwnd), so a sender whose own NIC is the bottleneck queues at most rwnd there instead of overflowing it; cwnd itself keeps growing behind it under `cwnd_validation = "off"` (the papers' stacks: a DCTCP cut, α/2 of cwnd, then comes off the grown cwnd; a loss or classic-ECN cut of NewReno or CUBIC is taken from the flight, which rwnd bounds), not under `"linux"`
    #[schemars(extend("x-default" = "`\"1MB\"`"))]
    pub rwnd: Opt<LimitValue>,
    /// RFC 6298 lower bound
    #[schemars(extend("x-default" = "`\"200ms\"`"))]
    pub rto_min: Opt<Time>,
    /// RTO before any RTT sample
    #[schemars(extend("x-default" = "`\"1s\"`"))]
    pub rto_init: Opt<PositiveTime>,
    /// upper bound
    #[schemars(extend("x-default" = "`\"60s\"`; `\"120s\"` with `profile = \"linux\"`"))]
    pub rto_max: Opt<PositiveTime>,
    /// clock granularity G of RFC 6298
    #[schemars(extend("x-default" = "`\"0s\"`; `rto_min` with `profile = \"linux\"` (overriding `rto_min` moves it, unless `granularity` is given too)"))]
    pub granularity: Opt<Time>,
    /// RTO backoff cap (× RTO)
    #[schemars(extend("x-default" = "64; 1024 with `profile = \"linux\"`"))]
    pub max_backoff: Opt<Int<1>>,
    /// duplicate ACKs that trigger fast retransmit
    #[schemars(extend("x-default" = "3"))]
    pub dupack_threshold: Opt<Int<1>>,
    /// `fixed` or `adaptive`: a fast retransmit proved spurious by timestamps (Eifel; needs `timestamps = true`) is undone and raises the threshold past the reordering seen; with SACK, reordering seen in SACKs raises it too (≤ 300); without SACK, duplicate ACKs beyond the segments outstanding set it to that many, as Linux's tcp_check_reno_reordering, and a timeout after at least `dupack_threshold` duplicates lowers it back. docs/model.md
    #[schemars(extend("x-default" = "`\"fixed\"`; `\"adaptive\"` with `profile = \"linux\"`"))]
    pub reordering: Opt<ReorderingName>,
    /// loss detection: `dupack` (duplicate-ACK counting, RFC 5681/6582/6675) or `rack` (RACK-TLP, RFC 8985: time-based, with tail loss probes; needs `sack = true`). docs/model.md
    #[schemars(extend("x-default" = "`\"rack\"` with `sack = true`, else `\"dupack\"`"))]
    pub recovery: Opt<RecoveryName>,
    /// ACK every `delayed_ack_segments` segments or after `delayed_ack_timeout`
    #[schemars(extend("x-default" = "false; true with `profile = \"linux\"`"))]
    pub delayed_ack: Opt<Bool>,
    /// the delayed-ACK timer
    #[schemars(extend("x-default" = "`\"40ms\"`"))]
    pub delayed_ack_timeout: Opt<Time>,
    /// segments per delayed ACK; more than `init_cwnd` with `delayed_ack_quickack = 0` is warned about (the first window cannot fill an ACK and waits for the timer)
    #[schemars(extend("x-default" = "2"))]
    pub delayed_ack_segments: Opt<Int<1>>,
    /// with `delayed_ack`: the first N in-order data segments of a connection are ACKed at once (Linux's quick-ACK mode, TCP_MAX_QUICKACKS = 16)
    #[schemars(extend("x-default" = "0; 16 with `profile = \"linux\"`"))]
    pub delayed_ack_quickack: Opt<Int<0>>,
    /// slow start adds at most this many SMSS per ACK: 2 is RFC 3465's L (byte counting); 1 is RFC 5681 §3.1's standard and ns-3's TcpNewReno (with delayed ACKs cwnd then grows 1.5× per round, not 2×); `"unlimited"` adds every acknowledged byte (up to ssthresh), as Linux's tcp_slow_start counts every segment an ACK covers
    #[schemars(extend("x-default" = "2; `\"unlimited\"` with `profile = \"linux\"`"))]
    pub abc_limit: Opt<AbcLimit>,
    /// RFC 6675 SACK loss recovery: NextSeg rules 1 (lost, not yet retransmitted), 2 (new data) and 3 (an unSACKed segment below the highest SACK, when there is no new data); SACKed marks are kept across an RTO (our receivers never renege): the retransmissions after it skip SACKed segments, and SACKed bytes take no room in cwnd (RFC 6675 §5.1)
    #[schemars(extend("x-default" = "false; true with `profile = \"linux\"`"))]
    pub sack: Opt<Bool>,
    /// RFC 6675 NextSeg rule 4: one rescue retransmission of the highest unSACKed segment per recovery, so a lost response tail is not left to the RTO
    #[schemars(extend("x-default" = "false"))]
    pub sack_rescue: Opt<Bool>,
    /// Limited Transmit (RFC 5681 §3.2: a TCP SHOULD), cwnd unchanged, so a loss with only one or two segments behind it still reaches the third duplicate ACK instead of the RTO. Without SACK RFC 3042: one new segment on each of the first two duplicate ACKs if the flight stays ≤ cwnd + 2·SMSS; with SACK RFC 6675 §5 step 3: new data while cwnd − pipe ≥ 1 SMSS on every duplicate ACK below the (possibly raised) threshold. Its segments do not count in the flight that sets ssthresh (RFC 5681 §3.2 step 2)
    #[schemars(extend("x-default" = "true"))]
    pub limited_transmit: Opt<Bool>,
    /// rate reduction in SACK fast recovery: `rfc6675` (cwnd = ssthresh at once, each ACK sends what cwnd − pipe allows; ns-2's and ns-3's classic recovery), `prr` (RFC 6937 PRR-SSRB) or `prr_bis` (RFC 6937bis, Linux's: the slow-start catch-up only on an ACK that advances snd_una and reports no new loss). Both PRR rules also resend a retransmission found lost again without waiting for the RTO. Without SACK `reno_reduction` paces recovery. docs/model.md
    #[schemars(extend("x-default" = "`\"prr_bis\"`"))]
    pub reduction: Opt<ReductionName>,
    /// slow-start exit before the first loss: `off`, `linux` (tcp_cubic's defaults: from a window of 16 segments, an ACK train longer than half the minimum RTT, or an RTT 4–16 ms above the minimum; cc = `cubic` only) or `rfc9406` (HyStart++: an RTT rise of max(4 ms, min RTT/8) ends slow start in Conservative Slow Start, any cc). docs/model.md
    #[schemars(extend("x-default" = "`\"off\"`; `\"linux\"` with `profile = \"linux\"` and cc = `cubic`"))]
    pub hystart: Opt<HyStartName>,
    /// whether cwnd grows only while the sender uses it: `off` (every ACK of new data grows it) or `linux` (tcp_is_cwnd_limited: only if the flight reached cwnd since the window now acknowledged was sent, or, in slow start, while cwnd is below twice the largest flight of that window; an application- or receiver-window-limited sender keeps its cwnd). docs/model.md
    #[schemars(extend("x-default" = "`\"off\"`; `\"linux\"` with `profile = \"linux\"`"))]
    pub cwnd_validation: Opt<CwndValidationName>,
    /// what an ACK counts toward window growth (slow start and congestion avoidance): `acked` (RFC 5681: the bytes it newly acknowledges cumulatively, SACKed ones included once the cumulative ACK reaches them) or `delivered` (Linux's acked_sacked: the bytes it newly delivers, cumulatively or by SACK, so a SACKed segment counts once, when SACKed, and only an ACK that advances snd_una grows the window; without SACK each duplicate ACK counts as a segment delivered and the cumulative ACK after them as what it acknowledges less those, at least one segment, as Linux's tcp_add_reno_sack and tcp_remove_reno_sacks; once reordering has raised the degree above `dupack_threshold`, an ACK that only SACKs new data grows the window too, as tcp_may_raise_cwnd allows)
    #[schemars(extend("x-default" = "`\"acked\"`; `\"delivered\"` with `profile = \"linux\"`"))]
    pub ack_counting: Opt<AckCountingName>,
    /// what the send test counts cwnd in: `bytes` (a segment goes out while the flight plus it fits cwnd, so a sub-MSS tail leaves beside the segment that filled a fractional cwnd) or `packets` (Linux's tcp_cwnd_test: while fewer segments than ⌊cwnd / SMSS⌋ are in flight, whatever their size, so a block's sub-MSS tail waits for an ACK; under `segment = "fast"` in FaST's own segments, its probes or, below Wmin, Wmin segments of eq. (9)'s size, not in MSS). The receiver's window is counted in bytes either way. docs/linux_profile.md
    #[schemars(extend("x-default" = "`\"bytes\"`; `\"packets\"` with `profile = \"linux\"`"))]
    pub cwnd_counting: Opt<CwndCountingName>,
    /// when NewReno's fast recovery (without SACK) restarts the retransmission timer on a partial ACK, RFC 6582 §4.1: `impatient` (the first partial ACK of an episode only, so a recovery of many holes ends in a timeout), `slow_but_steady` (every partial ACK) or `linux` (every partial ACK and the fast retransmission, as Linux rearms the timer on every ACK of new data and every resend of the head, tcp_xmit_retransmit_queue). With SACK the timer restarts on every ACK of new data either way. docs/linux_profile.md
    #[schemars(extend("x-default" = "`\"impatient\"`; `\"linux\"` with `profile = \"linux\"`"))]
    pub partial_ack_timer: Opt<PartialAckTimerName>,
    /// how NewReno's fast recovery (without SACK) paces what it sends: `inflation` (RFC 6582: cwnd = ssthresh + 3·SMSS on entry, one SMSS more per duplicate ACK, deflated on partial ACKs and at the end as `reno_exit` says) or `prr` (Linux's tcp_cwnd_reduction, which runs in every recovery: each ACK sends in proportion to what it delivered, a duplicate ACK counting as one segment, so the fast retransmission leaves alone; cwnd = ssthresh at the end). docs/linux_profile.md
    #[schemars(extend("x-default" = "`\"inflation\"`; `\"prr\"` with `profile = \"linux\"`"))]
    pub reno_reduction: Opt<RenoReductionName>,
    /// with `reno_reduction = "inflation"`: the window the full ACK that ends fast recovery leaves (RFC 6582 §3.2 allows either): `flightsize` (option 1, min(ssthresh, max(FlightSize, SMSS) + SMSS), so a recovery that leaves little in flight sends no burst) or `ssthresh` (option 2: cwnd = ssthresh, as ns-2's NewReno, `exit_recovery_fix_` 0, and ns-3.37's classic recovery set it). validation/README.md, "Small n with every rule alike"
    #[schemars(extend("x-default" = "`\"flightsize\"`"))]
    pub reno_exit: Opt<RenoExitName>,
    /// how an ECN echo (ECE) reduces the window of a flow not in loss recovery: `cut` (RFC 3168 §6.1.2: cwnd falls to the new ssthresh on the ACK that echoes it, then grows as usual; the papers' simulators and ns-3) or `prr` (Linux's CWR state since 3.7: every ACK that delivers data sets cwnd to what is in flight plus PRR's count, tcp_cwnd_reduction with the slow-start bound on an ACK that advances snd_una, the window neither cut at once nor grown; cwnd = ssthresh when snd_una passes the point of the echo, tcp_end_cwnd_reduction; a loss found meanwhile starts fast recovery with the echo's ssthresh, no second reduction). Either way a loss in the window an echo reduced keeps the echo's ssthresh (RFC 3168 §6.1.2), except under DCTCP and FaST, which answer it as conventional TCP (RFC 8257 §3.5, Linux's dctcp_react_to_loss); either way ssthresh is the congestion control's (DCTCP's cwnd·(1 − α/2), CUBIC's β·cwnd, Reno's half). docs/linux_profile.md
    #[schemars(extend("x-default" = "`\"cut\"`; `\"prr\"` with `profile = \"linux\"`"))]
    pub ecn_reduction: Opt<EcnReductionName>,
    /// when RACK-TLP's timers fire (with `recovery = "rack"`): `rfc8985` (the tail loss probe 2·SRTT after the last transmission, plus WCDelAckT, 200 ms, when one segment is out and the peer delays ACKs, whenever the flow is not in recovery; the reordering timer when the window ends) or `linux` (in jiffies of `hz`, as Linux 6.18 runs them, each firing at a tick: tcp_schedule_loss_probe's 2·SRTT rounded up to whole jiffies plus TCP_TIMEOUT_MIN, 2 jiffies, or plus TCP_RTO_MIN, 200 ms, when one segment is out, whatever `rto_min`, and only in the Open state: no probe while a segment is SACKed or a retransmission is outstanding, Linux's Disorder; tcp_rack_mark_lost's reordering timer the window's remaining wait rounded up plus 2 jiffies). docs/linux_profile.md
    #[schemars(extend("x-default" = "`\"rfc8985\"`; `\"linux\"` with `profile = \"linux\"`"))]
    pub rack_timers: Opt<RackTimersName>,
    /// how the retransmission timeout is sized and when it fires: `exact` (RFC 6298: SRTT + max(`granularity`, 4·RTTVAR), at least `rto_min`, at that instant) or `linux` (Linux's __tcp_set_rto in jiffies of `hz`: `rto_min` and `granularity` counted in whole jiffies, as the kernel holds a route's RTOmin, SRTT + max(G, 4·RTTVAR) rounded up to whole jiffies, the timer firing at a tick: at HZ = 250 `rto_min = "10ms"` gives a 16 ms RTO, as the kernel lab's `tcpi_rto` reads, and 200 ms one of 204 ms). Not yet the `linux` profile's default: its studies and the kernel lab's tables are of the exact RTO. docs/linux_profile.md
    #[schemars(extend("x-default" = "`\"exact\"`"))]
    pub rto_timer: Opt<RtoTimerName>,
    /// what a timeout of data the timer already resent (a timeout in a row) does to ssthresh: `hold` (RFC 5681 §3.1: held constant, as Linux's tcp_enter_loss holds it) or `recompute` (every timeout sets it from what was sent since the last one, at least 2 segments, as ns-2's TcpAgent and ns-3.37 do: after a timeout in a row, with one segment resent, 2 segments). The first timeout sets it either way. validation/README.md, "The time a timeout costs"
    #[schemars(extend("x-default" = "`\"hold\"`"))]
    pub rto_ssthresh: Opt<RtoSsthreshName>,
    /// with `recovery = "rack"`: after a timeout RACK keeps marking lost what a later-sent segment's delivery shows lost (no reordering window there until reordering is seen), and a retransmission so found lost moves the flow from the timeout's Loss state to Recovery, whose PRR resends it first, as Linux does (tcp_fastretrans_alert's TCP_CA_Loss case: tcp_identify_packet_loss, FLAG_LOST_RETRANS, tcp_enter_recovery). false: after a timeout only the next timeout repairs a lost resend, and the flow sends new data past the hole meanwhile. docs/linux_profile.md, mechanism J
    #[schemars(extend("x-default" = "false; true with `profile = \"linux\"`"))]
    pub rack_in_loss: Opt<Bool>,
    /// with `recovery = "rack"`: RACK.rtt, the RTT a segment must outlast (plus the reordering window) to count as lost, is taken from every segment an ACK newly delivers, the last one it walks (SACKed segments first, then those cumulatively acknowledged, in sequence order), as Linux does (tcp_rack_advance sets rack.rtt_us on each unambiguous delivery, rack.mstamp only for the most recently sent). false: from the most recently sent delivered segment only (RFC 8985 §6.2). They differ when an ACK covers a retransmission and older originals: Linux then judges with the originals' longer RTT and marks fewer segments lost. docs/linux_profile.md
    #[schemars(extend("x-default" = "false; true with `profile = \"linux\"`"))]
    pub rack_rtt_each_segment: Opt<Bool>,
    /// with `sack = true`: an ACK below snd_una (an old one, reordered behind a later ACK) still has its SACK blocks read, as Linux does (tcp_ack's old_ack path): the blocks wholly above snd_una are tagged (one starting at snd_una or straddling it is dropped whole, tcp_is_sackblock_valid), RACK looks for losses and what the fewer segments in flight allow is sent, lost segments first (tcp_xmit_recovery); its ECE and cumulative ACK are stale, no window changes (no PRR step) and what it SACKs is not counted as delivered. false: such an ACK is dropped whole. docs/linux_profile.md
    #[schemars(extend("x-default" = "false; true with `profile = \"linux\"`"))]
    pub sack_on_old_ack: Opt<Bool>,
    /// without SACK: a fast recovery or a timeout whose ACKs reach exactly its recovery point (snd_max when it began) is held there until an ACK covers data above that point, as Linux does (tcp_is_non_sack_preventing_reopen, "Hold old state until something *above* high_seq is ACKed"; RFC 2582 §5's careful variant): duplicate ACKs at that point start no new fast retransmit and, in a held recovery, send nothing, so a segment lost right at the recovery point waits for the timer. false: at the recovery point the flow is open and duplicate ACKs fast-retransmit (RFC 6582 §3.2 as written). docs/linux_profile.md, mechanism K
    #[schemars(extend("x-default" = "false; true with `profile = \"linux\"`"))]
    pub reno_hold: Opt<Bool>,
    /// cwnd when the application writes after the sender was idle (nothing in flight) for longer than the RTO: `off` (kept), `rfc5681` (§4.1: min(IW, cwnd)) or `linux` (tcp_cwnd_restart, `tcp_slow_start_after_idle = 1`: ssthresh keeps 3/4 of cwnd, then cwnd halves per RTO of idle time, not below min(IW, cwnd))
    #[schemars(extend("x-default" = "`\"off\"`; `\"linux\"` with `profile = \"linux\"`"))]
    pub idle_restart: Opt<IdleRestartName>,
    /// RTT samples from the echoed timestamp of every ACK that advances snd_una (RFC 7323; a delayed ACK echoes the earliest unacknowledged segment's, §4.3). false: one timed segment per RTT, never a retransmitted one, and a backed-off RTO kept until a valid sample (Karn's algorithm, RFC 6298)
    #[schemars(extend("x-default" = "true"))]
    pub timestamps: Opt<Bool>,
    /// ECT on data, ECE echo, CWR (RFC 3168)
    #[schemars(extend("x-default" = "false; true for `dctcp` and `fast`"))]
    pub ecn: Opt<Bool>,
    /// connection setup is instantaneous, but its RTT sample (the unloaded path RTT of header-sized packets) seeds SRTT, as a real three-way handshake would, and the minimum RTT that RACK's reordering window and its test of a resent segment's SACK read (Linux's `tcp_min_rtt` takes the SYN/SYN-ACK sample)
    #[schemars(extend("x-default" = "true"))]
    pub handshake_rtt_sample: Opt<Bool>,
    /// CUBIC: RFC 9438 §4.7 fast convergence (C = 0.4 and β = 0.7 are fixed)
    #[schemars(extend("x-default" = "true"))]
    pub cubic_fast_convergence: Opt<Bool>,
    /// CUBIC: congestion avoidance by Linux's tcp_cubic arithmetic (bictcp_update, tcp_cong_avoid_ai) instead of RFC 9438's: whole segments; the target W_max + ⌊C·(t − K)³⌋ at t + the minimum RTT (not SRTT); one segment of growth per cnt = ⌊cwnd/(target − cwnd)⌋ acknowledged, capped at 20 while W_max is unknown (before the first congestion event and after a timeout: `last_max_cwnd == 0`), so at least one segment per 20 acknowledged, where RFC 9438 has no such floor; the Reno-friendly rate 3·(1 − β)/(1 + β) throughout; time in the kernel's jiffies (`hz`): cnt held HZ/32 jiffies while cwnd is unchanged and recomputed at most once per jiffy, t in whole jiffies plus the minimum RTT rounded up to one; reductions in whole segments (ssthresh ⌊cwnd·717/1024⌋, W_max ⌊cwnd·1741/2048⌋ with fast convergence)
    #[schemars(extend("x-default" = "false; true with `profile = \"linux\"`"))]
    pub cubic_linux: Opt<Bool>,
    /// the kernel's timer tick, one of CONFIG_HZ's 100, 250, 300 or 1000 (any other integer is refused), for what Linux counts in jiffies: `cubic_linux` (cnt held HZ/32 jiffies while cwnd is unchanged, recomputed at most once per jiffy) `rack_timers = "linux"` (the probe and reordering timers rounded up to whole jiffies, firing at a tick) and `rto_timer = "linux"` (the RTO in whole jiffies); another value where none is on warns that it changes nothing. docs/linux_profile.md, mechanisms G and H
    #[schemars(extend("x-default" = "250 (Debian's and Ubuntu's kernels)"))]
    pub hz: Opt<Int<1>>,
    /// DCTCP: gain g of α ← (1 − g)·α + g·F (RFC 8257)
    #[schemars(extend("x-default" = "0.0625"))]
    pub dctcp_g: Opt<PositiveFraction>,
    /// DCTCP: α before the first window of feedback
    #[schemars(extend("x-default" = "1"))]
    pub dctcp_alpha_init: Opt<Fraction>,
    /// Protective Load Balancing (PLB, SIGCOMM 2022; Linux's tcp_plb, `net.ipv4.tcp_plb_enabled`), cc = `dctcp` over TCP or `transport = "swift"`. Swift's (htsim's rule): a flow that goes 5 to 7 smoothed RTTs without an ACK whose fabric delay is within its base target (base plus hops) draws a new flow label; the `plb_*` keys are DCTCP's. DCTCP's: after `plb_rehash_rounds` consecutive rounds in which at least `plb_cong_thresh` of the bytes acknowledged were CE-marked, the flow draws a new flow label, which the fabric's ECMP hash includes, so its data take another path (as an IPv6 flow label under `ecmp` (salted or not) or `flowlet` routing; `single` and `rps` ignore it). A timeout suspends PLB for `plb_suspend_rto` plus a random part of it, and draws a new label too while `txrehash` is on (its default with PLB, as Linux's `net.core.txrehash`). The flows table counts both in `rehashes`. docs/model.md
    #[schemars(extend("x-default" = "false"))]
    pub plb: Opt<Bool>,
    /// PLB: consecutive congested rounds that move the flow (`tcp_plb_rehash_rounds`)
    #[schemars(extend("x-default" = "12"))]
    pub plb_rehash_rounds: Opt<Int<1>>,
    /// PLB: congested rounds after which a sender with nothing in flight moves when it next sends (`tcp_plb_idle_rehash_rounds`; 0: never)
    #[schemars(extend("x-default" = "3"))]
    pub plb_idle_rehash_rounds: Opt<Int<0>>,
    /// PLB: the fraction of a round's acknowledged bytes CE-marked that makes it congested (`tcp_plb_cong_thresh`, 128/256)
    #[schemars(extend("x-default" = "0.5"))]
    pub plb_cong_thresh: Opt<PositiveFraction>,
    /// a timeout draws a new flow label, so a flow under `ecmp` (salted or not) or `flowlet` routing takes another path after every RTO, as Linux does for an IPv6 flow (`net.core.txrehash`, on there by default; tcp_write_timeout's sk_rethink_txhash: Protective ReRoute, SIGCOMM 2023); and a receiver that gets a segment it already has on a new label (its sender timed out: its ACKs may be lost) draws a new label for its ACKs (tcp_rcv_spurious_retrans, Linux 6.7). Any cc, TCP transport only; counted in the flows' `rehashes`
    #[schemars(extend("x-default" = "false; true with `plb` over the TCP transport"))]
    pub txrehash: Opt<Bool>,
    /// PLB: how long a timeout suspends it, plus a random part up to as long again (`tcp_plb_suspend_rto_sec`)
    #[schemars(extend("x-default" = "`\"60s\"`"))]
    pub plb_suspend_rto: Opt<Time>,
    /// FaST: gain g of α (SPEC §2.1 eq. 2)
    #[schemars(extend("x-default" = "0.0625"))]
    pub fast_g: Opt<PositiveFraction>,
    /// FaST: α before the first window of feedback
    #[schemars(extend("x-default" = "1"))]
    pub fast_alpha_init: Opt<Fraction>,
    /// FaST: Wmin, segments; below it the flow keeps Wmin smaller segments in flight
    #[schemars(extend("x-default" = "2"))]
    pub fast_wmin: Opt<Int<1>>,
    /// FaST: smallest payload S_min (eq. 9)
    #[schemars(extend("x-default" = "`\"100B\"`"))]
    pub fast_smin: Opt<SegmentSize>,
    /// FaST: probing stage, the first m new segments of a connection (0 = no probing) …
    #[schemars(extend("x-default" = "3"))]
    pub fast_probe_segments: Opt<Int<0>>,
    /// … carry this many payload bytes
    #[schemars(extend("x-default" = "`fast_smin`"))]
    pub fast_probe_size: Opt<SegmentSize>,
    /// FaST eq. (9): `continuous` (seg = MSS·vwnd/Wmin below Wmin) or `literal` (seg = MSS·min(1, vwnd))
    #[schemars(extend("x-default" = "`\"continuous\"`"))]
    pub fast_seg_rule: Opt<FastSegRuleName>,
    /// DSR (`segment = "dsr"`): MSS_dsr, the segment size a connection starts with
    #[schemars(extend("x-default" = "`\"50B\"`"))]
    pub dsr_mss: Opt<SegmentSize>,
    /// DSR: cwnd_dsr, the window in segments of the current size at which segments grow
    #[schemars(extend("x-default" = "50"))]
    pub dsr_cwnd: Opt<Int<2>>,
    /// probabilistic retransmission: probability p per run of the retransmit thread (the dissertation's value is 0.001)
    #[schemars(extend("x-default" = "0 (off)"))]
    pub probretx_p: Opt<Fraction>,
    /// … the thread runs once per period while data is unacknowledged
    #[schemars(extend("x-default" = "`\"20us\"`"))]
    pub probretx_period: Opt<PositiveTime>,
    /// … the segment it retransmits: `highest` (highest-sequence unacknowledged) or `lowest` (the one at snd_una)
    #[schemars(extend("x-default" = "`\"highest\"`"))]
    pub probretx_target: Opt<ProbRetxTargetName>,
    /// TCPRand (`segment = "tcprand"`): `static` (fixed rMin) or `adaptive` (Algorithm 1 on CUBIC's state)
    #[schemars(extend("x-default" = "`\"static\"`"))]
    pub tcprand_mode: Opt<TcpRandModeName>,
    /// static mode: the smallest payload rMin; payloads ~ U[rMin, `mss`]
    #[schemars(extend("x-default" = "`\"200B\"`"))]
    pub tcprand_rmin: Opt<SegmentSize>,
    /// adaptive mode: θ, the floor of rMin
    #[schemars(extend("x-default" = "`\"200B\"`"))]
    pub tcprand_theta: Opt<SegmentSize>,
    /// adaptive mode: (σ², μ, v_τ, v_ω) = `default` (1, 1, 1, 1), `conservative` (1, 1, ∞, 1) or `aggressive` (1, 0, 1, 0)
    #[schemars(extend("x-default" = "`\"default\"`"))]
    pub tcprand_preset: Opt<TcpRandPreset>,
    /// σ², the variance of Φ (> 0)
    #[schemars(extend("x-default" = "preset"))]
    pub tcprand_sigma2: Opt<PositiveNumber>,
    /// μ, the mean of Φ (any finite number)
    #[schemars(extend("x-default" = "preset"))]
    pub tcprand_mu: Opt<Number>,
    /// v_τ > 0 or `"inf"`: trigger point τ = W_max − (W_max − α)/v_τ (`"inf"` → τ = W_max)
    #[schemars(extend("x-default" = "preset"))]
    pub tcprand_v_tau: Opt<Scale>,
    /// v_ω ≥ 0 or `"inf"`: end point ω = W_max + (W_max − α)/v_ω (0 → no end point, `"inf"` → ω = W_max)
    #[schemars(extend("x-default" = "preset"))]
    pub tcprand_v_omega: Opt<ScaleOrZero>,
    /// `tcp`, `ndp` (Handley et al. 2017: receiver-driven pulls, trimmed headers answered by NACKs; needs `[trimming]`; docs/model.md, NDP) `swift` (Kumar et al. 2020: delay-based window, docs/swift.md), `hpcc` (Li et al. 2019: windows from in-band telemetry; docs/hpcc.md) `dcqcn` (Zhu et al. 2015: RoCE's rate control from ECN marks, go-back-N; docs/dcqcn.md) or `timely` (Mittal et al. 2015: RoCE's rate control from RTT gradients, go-back-N; docs/timely.md). With `ndp`, `swift`, `hpcc`, `dcqcn` or `timely` the congestion-control, recovery and ACK keys do not apply
    #[schemars(extend("x-default" = "`\"tcp\"`"))]
    pub transport: Opt<TransportName>,
    /// NDP: packets sent unsolicited when a transfer starts; 0: one bandwidth-delay product of the flow's unloaded path at the sender's line rate, rounded up (the paper's choice; htsim's main_ndp uses 15)
    #[schemars(extend("x-default" = "0 (one BDP)"))]
    pub ndp_initial_window: Opt<Int<0>>,
    /// NDP: the receiver's pull pacer releases one `mss + header` packet's worth of pulls per this fraction of its line rate (htsim: 0.99)
    #[schemars(extend("x-default" = "0.99"))]
    pub ndp_pull_rate: Opt<PositiveFraction>,
    /// NDP: a packet unanswered this long is sent again (htsim's main_ndp: 50 ms)
    #[schemars(extend("x-default" = "`\"50ms\"`"))]
    pub ndp_rto: Opt<PositiveTime>,
    /// Swift: base fabric target delay (docs/swift.md; defaults are htsim's Swift)
    #[schemars(extend("x-default" = "`\"20us\"`"))]
    pub swift_base_target: Opt<PositiveTime>,
    /// Swift: target added per hop of the path, `h`
    #[schemars(extend("x-default" = "swift_base_target / 6.55"))]
    pub swift_hop_scale: Opt<Time>,
    /// Swift: flow scaling's largest addition to the target (added at a window of `swift_fs_min_cwnd`, none from `swift_fs_max_cwnd` up)
    #[schemars(extend("x-default" = "5 × swift_base_target"))]
    pub swift_fs_range: Opt<Time>,
    /// Swift: flow scaling's smallest window, packets
    #[schemars(extend("x-default" = "0.1"))]
    pub swift_fs_min_cwnd: Opt<PositiveNumber>,
    /// Swift: flow scaling's largest window, packets
    #[schemars(extend("x-default" = "100"))]
    pub swift_fs_max_cwnd: Opt<PositiveNumber>,
    /// Swift: endpoint target delay (the receiver's hold of an ACK)
    #[schemars(extend("x-default" = "`\"20us\"`"))]
    pub swift_endpoint_target: Opt<PositiveTime>,
    /// Swift: additive increase per RTT, packets
    #[schemars(extend("x-default" = "1"))]
    pub swift_ai: Opt<PositiveNumber>,
    /// Swift: multiplicative-decrease gain β (0 turns the delay-based decrease off)
    #[schemars(extend("x-default" = "0.8"))]
    pub swift_beta: Opt<Fraction>,
    /// Swift: largest decrease in one step, `max_mdf`
    #[schemars(extend("x-default" = "0.5"))]
    pub swift_max_mdf: Opt<Fraction>,
    /// Swift: smallest window, in bytes (a size: a bare number is bytes, unlike the packet counts of the Swift windows beside it; below one packet the sender paces)
    #[schemars(extend("x-default" = "`\"10B\"`"))]
    pub swift_min_cwnd: Opt<SegmentSize>,
    /// Swift: largest window, packets
    #[schemars(extend("x-default" = "1000"))]
    pub swift_max_cwnd: Opt<Int<1>>,
    /// Swift: initial window, packets, at most `swift_max_cwnd` (htsim's main_swift: 15)
    #[schemars(extend("x-default" = "15, or `swift_max_cwnd` if smaller"))]
    pub swift_initial_window: Opt<Int<1>>,
    /// Swift: timeouts in a row after which the window falls to `swift_min_cwnd`
    #[schemars(extend("x-default" = "5"))]
    pub swift_rtx_reset_threshold: Opt<Int<1>>,
    /// Swift: smallest retransmission timeout (1 ms before the first RTT sample)
    #[schemars(extend("x-default" = "`\"100us\"`"))]
    pub swift_rto_min: Opt<PositiveTime>,
    /// HPCC: η, the target utilisation of the most loaded link (Li et al. 2019, §3.3)
    #[schemars(extend("x-default" = "0.95"))]
    pub hpcc_eta: Opt<PositiveFraction>,
    /// HPCC: maxStage, rounds of additive increase before a multiplicative step towards η
    #[schemars(extend("x-default" = "5"))]
    pub hpcc_max_stage: Opt<Int<0>>,
    /// HPCC: W_AI, the additive increase per RTT
    #[schemars(extend("x-default" = "W_init·(1 − η)/`hpcc_n` (the paper's rule)"))]
    pub hpcc_w_ai: Opt<SegmentSize>,
    /// HPCC: N of the W_AI rule, the flows expected at once on a link
    #[schemars(extend("x-default" = "10"))]
    pub hpcc_n: Opt<Int<1>>,
    /// HPCC: T, the base RTT (W_init = line rate × T, pacing at W/T)
    #[schemars(extend("x-default" = "the flow's unloaded path RTT"))]
    pub hpcc_base_rtt: Opt<PositiveTime>,
    /// HPCC: U before the first ACK's telemetry is smoothed in (htsim's HPCC starts at η, the HPCC authors' ns-3 at 1; docs/hpcc.md)
    #[schemars(extend("x-default" = "0"))]
    pub hpcc_u_init: Opt<Fraction>,
    /// HPCC: with nothing acknowledged this long, go back to the first unacknowledged byte (a lost tail brings no NACK)
    #[schemars(extend("x-default" = "`\"1ms\"`"))]
    pub hpcc_rto: Opt<PositiveTime>,
    /// DCQCN: g, the gain of α's moving average (Zhu et al. 2015, §3)
    #[schemars(extend("x-default" = "`\"1/256\"`"))]
    pub dcqcn_g: Opt<PositiveFraction>,
    /// DCQCN: the period of the rate-increase timer and of α's decay (the paper's T and K)
    #[schemars(extend("x-default" = "`\"55us\"`"))]
    pub dcqcn_timer: Opt<PositiveTime>,
    /// DCQCN: B, the bytes sent per byte-counter stage
    #[schemars(extend("x-default" = "`10000000` (bytes: htsim's 10 MB, decimal; `\"10MB\"` here is 10,485,760)"))]
    pub dcqcn_byte_counter: Opt<PositiveSize>,
    /// DCQCN: F, the stages of fast recovery before additive increase
    #[schemars(extend("x-default" = "5"))]
    pub dcqcn_f: Opt<Int<1>>,
    /// DCQCN: R_AI, the target rate's additive increase per stage
    #[schemars(extend("x-default" = "the line rate / 20 (htsim's)"))]
    pub dcqcn_rai: Opt<Rate>,
    /// DCQCN: R_HAI, the target rate's hyper increase per stage
    #[schemars(extend("x-default" = "the line rate / 10 (htsim's)"))]
    pub dcqcn_rhai: Opt<Rate>,
    /// DCQCN: the lowest rate a cut leaves
    #[schemars(extend("x-default" = "the line rate / 1000"))]
    pub dcqcn_min_rate: Opt<Rate>,
    /// DCQCN: N, the receiver sends at most one CNP per flow in this interval
    #[schemars(extend("x-default" = "`\"50us\"`"))]
    pub dcqcn_cnp_interval: Opt<PositiveTime>,
    /// DCQCN: with nothing acknowledged this long, go back to the first unacknowledged byte (a lost tail brings no NACK)
    #[schemars(extend("x-default" = "`\"1ms\"`"))]
    pub dcqcn_rto: Opt<PositiveTime>,
    /// TIMELY: α, the weight of the newest RTT difference in the gradient's moving average (Mittal et al. 2015, Algorithm 1; docs/timely.md)
    #[schemars(extend("x-default" = "0.875 (the HPCC authors' ns-3)"))]
    pub timely_alpha: Opt<PositiveFraction>,
    /// TIMELY: β, the multiplicative decrease: by β·(1 − T_high/RTT) above `timely_t_high`, by β × gradient on a rising RTT
    #[schemars(extend("x-default" = "0.8"))]
    pub timely_beta: Opt<PositiveFraction>,
    /// TIMELY: T_low, below this RTT the rate rises whatever the gradient
    #[schemars(extend("x-default" = "`\"50us\"`"))]
    pub timely_t_low: Opt<Time>,
    /// TIMELY: T_high, above this RTT the rate falls whatever the gradient (more than `timely_t_low`)
    #[schemars(extend("x-default" = "`\"500us\"`"))]
    pub timely_t_high: Opt<PositiveTime>,
    /// TIMELY: minRTT, the gradient's normaliser (RTT difference / minRTT)
    #[schemars(extend("x-default" = "`\"20us\"`"))]
    pub timely_min_rtt: Opt<PositiveTime>,
    /// TIMELY: δ, the additive increase per update
    #[schemars(extend("x-default" = "the line rate / 1000 (100 Mbps at 100 Gbps, as the HPCC authors' run.py)"))]
    pub timely_rai: Opt<Rate>,
    /// TIMELY: the hyper-active increase, taken once `timely_hai_after` increases came in a row
    #[schemars(extend("x-default" = "5 × `timely_rai`"))]
    pub timely_rhai: Opt<Rate>,
    /// TIMELY: N, the increases in a row after which each is the hyper-active one
    #[schemars(extend("x-default" = "5"))]
    pub timely_hai_after: Opt<Int<1>>,
    /// TIMELY: the lowest rate a decrease leaves
    #[schemars(extend("x-default" = "the line rate / 1000"))]
    pub timely_min_rate: Opt<Rate>,
    /// TIMELY: with nothing acknowledged this long, go back to the first unacknowledged byte (a lost tail brings no NACK)
    #[schemars(extend("x-default" = "`\"1ms\"`"))]
    pub timely_rto: Opt<PositiveTime>,
}

// ------------------------------------------------------------------ reading

/// The keys of a serde-derived struct, in declaration order (what serde
/// passes to `deserialize_struct`): the candidates of "did you mean".
pub(crate) fn struct_fields<T: DeserializeOwned>() -> &'static [&'static str] {
    struct Probe<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for Probe<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("probed"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut fields));
    fields
}

/// A key unknown in its table but known in another section (`rto_min` in
/// `[topology]`, `buffer` at the top level, `rto_min` on an app): where it
/// goes, for the "unknown key" message. Keys that many sections have
/// (`kind`, `enabled`, `rate`, …) are left to the message alone.
fn home_of(key: &str, path: &str) -> Option<String> {
    // (and the sections' own names: `tcp` on a UDP app is no top-level slip)
    const GENERIC: &[&str] = &[
        "kind", "enabled", "name", "rate", "delay", "start", "stop", "seed", "hosts", "size",
        "tcp", "topology", "apps", "trimming", "pfc", "routing", "limits", "pcap", "trace",
        "failures",
    ];
    if GENERIC.contains(&key) {
        return None;
    }
    let topology = [
        struct_fields::<StarTopology>(),
        struct_fields::<TwoTierTopology>(),
        struct_fields::<FatTreeTopology>(),
        struct_fields::<LeafSpineTopology>(),
        struct_fields::<CustomTopology>(),
    ];
    let sections: [(&str, &[&str]); 8] = [
        ("", struct_fields::<Document>()),
        ("tcp", struct_fields::<TcpSection>()),
        ("trimming", struct_fields::<TrimmingSection>()),
        ("pfc", struct_fields::<PfcSection>()),
        ("routing", struct_fields::<RoutingSection>()),
        ("limits", struct_fields::<LimitsSection>()),
        ("pcap", struct_fields::<PcapSection>()),
        ("trace", struct_fields::<TraceSection>()),
    ];
    let app = path.starts_with("apps[") && !path.contains('.');
    if topology.iter().any(|f| f.contains(&key)) && path != "topology" {
        return Some(format!(" (a topology key: topology.{key})"));
    }
    if path == "topology" {
        // another kind's key: say whose, not a near spelling of this kind's
        let kinds = ["star", "two_tier", "fat_tree", "leaf_spine", "custom"];
        let of: Vec<&str> = kinds
            .iter()
            .zip(&topology)
            .filter(|(_, f)| f.contains(&key))
            .map(|(k, _)| *k)
            .collect();
        if !of.is_empty() {
            return Some(format!(" (a key of topology kind {})", of.join(" or ")));
        }
    }
    let apps = [
        struct_fields::<BulkApp>(),
        struct_fields::<PartitionAggregateApp>(),
        struct_fields::<SyncReadsApp>(),
        struct_fields::<UdpCbrApp>(),
        struct_fields::<PoissonApp>(),
    ];
    if path.is_empty() && apps.iter().any(|f| f.contains(&key)) {
        return Some(format!(
            " (an app's key: apps[i].{key}, in an [[apps]] table)"
        ));
    }
    let (section, _) = sections
        .iter()
        .find(|(sec, fields)| *sec != path && fields.contains(&key))?;
    Some(if section.is_empty() {
        format!(" (a top-level key: {key}, outside every table)")
    } else if *section == "tcp" && app {
        format!(" (a tcp key: {path}.tcp.{key} for this app, or tcp.{key} for every app)")
    } else {
        format!(" (a {section} key: {section}.{key})")
    })
}

/// A table read into `T`, with the keys that were read without problems
/// (what an override layers over: `scenario/mod.rs` merges them).
pub(crate) struct Read<T> {
    pub value: T,
    pub valid: Vec<String>,
}

/// Read the table `v` at `path` into the serde-derived `T`, reporting
/// every problem into `errs`: not a table, each unknown key (`what`
/// qualifies the message, e.g. " for app kind 'bulk'"), each bad value.
/// Returns `None` only when `v` is not a table or `T` cannot be built from
/// its valid keys (a required key is missing or bad).
pub(crate) fn read_table<T: DeserializeOwned>(
    v: &Value,
    path: &str,
    what: &str,
    errs: &mut Vec<ScenarioError>,
) -> Option<Read<T>> {
    let keys = struct_fields::<T>();
    let Value::Object(map) = v else {
        // `routing = "ecmp"` (the Python builder's shorthand, in a
        // document): the table it means, when the table has one such key
        let hint = match v {
            // a node written as its name (`nodes = ["h0", ...]`): "{kind =
            // \"h0\"}" sent the user to a second error
            Value::String(s) if keys.contains(&"name") && keys.contains(&"kind") => {
                format!(" (write {{name = \"{s}\", kind = \"host\"}}, or kind = \"switch\")")
            }
            Value::String(s) => ["mode", "kind"]
                .into_iter()
                .find(|k| keys.contains(k))
                .map(|k| format!(" (write {{{k} = \"{s}\"}})"))
                .unwrap_or_default(),
            _ => String::new(),
        };
        errs.push(ScenarioError {
            path: if path.is_empty() { DOCUMENT } else { path }.into(),
            message: format!("expected a table, got {}{hint}", units::json_type(v)),
        });
        return None;
    };
    let mut dropped = BTreeSet::new();
    for k in map.keys() {
        if !keys.contains(&k.as_str()) {
            // a key that is another table's (or kind's) own says where it
            // goes before a near spelling is guessed (tor_buffer on a
            // star is not a misspelt nic_buffer)
            let hint = home_of(k, path)
                .or_else(|| {
                    suggest(k, keys.iter().copied()).map(|s| format!(" (did you mean '{s}'?)"))
                })
                .unwrap_or_default();
            errs.push(ScenarioError {
                path: key_path(path, k),
                message: format!("unknown key{what}{hint}"),
            });
            dropped.insert(k.as_str());
        }
    }
    // The table without the keys at fault; borrowed while there are none
    // (the usual case: no copy of a large topology or app list).
    let without = |dropped: &BTreeSet<&str>| -> Value {
        Value::Object(
            map.iter()
                .filter(|(k, _)| !dropped.contains(k.as_str()))
                .map(|(k, x)| (k.clone(), x.clone()))
                .collect(),
        )
    };
    let mut copy = (!dropped.is_empty()).then(|| without(&dropped));
    // Each round either succeeds or drops the key at fault: at most one
    // round per key, plus one.
    loop {
        match serde_path_to_error::deserialize::<_, T>(copy.as_ref().unwrap_or(v)) {
            Ok(value) => {
                let valid = map
                    .keys()
                    .filter(|k| !dropped.contains(k.as_str()))
                    .cloned()
                    .collect();
                return Some(Read { value, valid });
            }
            Err(e) => {
                let mut at = path.to_string();
                let mut first = None;
                for seg in e.path().iter() {
                    match seg {
                        serde_path_to_error::Segment::Map { key } => {
                            first.get_or_insert_with(|| key.clone());
                            at = key_path(&at, key);
                        }
                        serde_path_to_error::Segment::Seq { index } => {
                            at = format!("{at}[{index}]");
                        }
                        _ => {}
                    }
                }
                errs.push(ScenarioError {
                    path: if at.is_empty() { DOCUMENT.into() } else { at },
                    message: e.into_inner().to_string(),
                });
                match first.and_then(|k| map.get_key_value(&k)) {
                    Some((k, _)) if dropped.insert(k.as_str()) => copy = Some(without(&dropped)),
                    _ => return None,
                }
            }
        }
    }
}

// ------------------------------------------------------------------- schema

/// The scenario's JSON Schema (draft 2020-12) as pretty-printed JSON text:
/// `_core.schema()` in Python, `dcnsim schema` on the command line.
/// The root is [`Document`]; section structs are `$defs` (`TcpSection`,
/// …), as is a value kind shared by many keys (`Time`, `LimitValue`, …).
/// `title` is a key's short type and `x-default` its default, as
/// docs/scenario.md's tables state them.
pub fn json_schema() -> String {
    let mut root = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<Document>();
    root.insert("title".into(), "dcnsim scenario".into());
    serde_json::to_string_pretty(&root).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_listed_in_order() {
        let f = struct_fields::<TcpSection>();
        assert_eq!(f[..2], ["profile", "cc"]);
        assert!(f.contains(&"tcprand_v_omega"));
    }

    #[test]
    fn schema_lists_every_key() {
        let s: Value = serde_json::from_str(&json_schema()).unwrap();
        let props = s["$defs"]["TcpSection"]["properties"].as_object().unwrap();
        let keys: Vec<&str> = props.keys().map(String::as_str).collect();
        assert_eq!(keys, struct_fields::<TcpSection>());
    }
}
