//! The receiver's ECN-Echo: which ACKs carry ECE.
//!
//! * `Classic` (RFC 3168 §6.1.3): once a CE segment arrives, set ECE on
//!   every ACK until a segment carrying CWR (and no CE) arrives. Used by
//!   NewReno and CUBIC flows with `ecn = true`.
//! * `Dctcp` (RFC 8257 §3.2): ECE tells exactly which bytes were marked.
//!   The receiver remembers the CE bit of the last data segment (the
//!   one-bit "DCTCP.CE" state). Every ACK carries that state; when it
//!   changes, any delayed ACK for the earlier segments is sent first with
//!   the *old* state, and the segment that changed it is acknowledged
//!   immediately (as Linux's `dctcp_ece_ack_update` does), so delayed ACKs
//!   never merge marked and unmarked segments. Without delayed ACKs every
//!   segment is acknowledged at once and ECE is simply its CE bit. Used by
//!   DCTCP and FaST flows.
//!
//! The echo is the receiver's job; the sender's congestion control only
//! reads `ece` on ACKs (STYLE: ECN in three roles).

use crate::config::CcKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EchoMode {
    /// ECN not negotiated: ACKs never carry ECE.
    Off,
    Classic,
    Dctcp,
}

impl EchoMode {
    /// The mode a flow uses: DCTCP and FaST imply ECN with per-segment echo.
    pub fn for_flow(cc: CcKind, ecn: bool) -> Self {
        if cc.needs_ecn() {
            EchoMode::Dctcp
        } else if ecn {
            EchoMode::Classic
        } else {
            EchoMode::Off
        }
    }
}

/// What the receiver must do about acknowledgments, beyond its usual rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EchoAction {
    /// Nothing special.
    Normal,
    /// DCTCP CE state changed: send any pending delayed ACK now with ECE =
    /// `prior_ece`, then acknowledge this segment immediately.
    StateChanged { prior_ece: bool },
}

#[derive(Clone, Copy, Debug)]
pub struct EcnEcho {
    mode: EchoMode,
    /// Classic: the ECE latch. Dctcp: CE of the last data segment.
    state: bool,
}

impl EcnEcho {
    pub fn new(mode: EchoMode) -> Self {
        EcnEcho { mode, state: false }
    }

    pub fn mode(&self) -> EchoMode {
        self.mode
    }

    /// A data segment with these CE / CWR bits arrived.
    #[inline]
    pub fn on_segment(&mut self, ce: bool, cwr: bool) -> EchoAction {
        match self.mode {
            EchoMode::Off => EchoAction::Normal,
            EchoMode::Classic => {
                if ce {
                    self.state = true;
                } else if cwr {
                    self.state = false;
                }
                EchoAction::Normal
            }
            EchoMode::Dctcp => {
                let prior = self.state;
                self.state = ce;
                if prior != ce {
                    EchoAction::StateChanged { prior_ece: prior }
                } else {
                    EchoAction::Normal
                }
            }
        }
    }

    /// Whether the next ACK carries ECE.
    #[inline]
    pub fn ece(&self) -> bool {
        self.mode != EchoMode::Off && self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_follows_the_congestion_control() {
        assert_eq!(EchoMode::for_flow(CcKind::NewReno, false), EchoMode::Off);
        assert_eq!(EchoMode::for_flow(CcKind::Cubic, true), EchoMode::Classic);
        assert_eq!(EchoMode::for_flow(CcKind::Dctcp, false), EchoMode::Dctcp);
        assert_eq!(EchoMode::for_flow(CcKind::Fast, true), EchoMode::Dctcp);
    }

    #[test]
    fn classic_latches_until_cwr() {
        let mut e = EcnEcho::new(EchoMode::Classic);
        e.on_segment(false, false);
        assert!(!e.ece());
        e.on_segment(true, false);
        assert!(e.ece());
        e.on_segment(false, false);
        assert!(e.ece(), "stays set on unmarked segments");
        e.on_segment(true, true);
        assert!(e.ece(), "CWR together with CE keeps it set");
        e.on_segment(false, true);
        assert!(!e.ece());
    }

    #[test]
    fn dctcp_echoes_each_segment_and_reports_changes() {
        let mut e = EcnEcho::new(EchoMode::Dctcp);
        let pattern = [false, true, true, false, true, false, false];
        let mut actions = Vec::new();
        for &ce in &pattern {
            actions.push(e.on_segment(ce, false));
            assert_eq!(e.ece(), ce);
        }
        use EchoAction::*;
        assert_eq!(
            actions,
            vec![
                Normal,
                StateChanged { prior_ece: false },
                Normal,
                StateChanged { prior_ece: true },
                StateChanged { prior_ece: false },
                StateChanged { prior_ece: true },
                Normal,
            ]
        );
        // CWR is ignored.
        e.on_segment(true, true);
        assert!(e.ece());
    }

    #[test]
    fn off_never_echoes() {
        let mut e = EcnEcho::new(EchoMode::Off);
        assert_eq!(e.on_segment(true, false), EchoAction::Normal);
        assert!(!e.ece());
    }
}
