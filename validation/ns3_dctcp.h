// What the ns-3 programs that run DCTCP (ns3_incast/incast.cc,
// ns3_outcast/outcast.cc) share: DCTCP's 2-segment floor with the byte
// counting experiment, and the work-around for ns-3.37's DCTCP connections
// that stay in CA_CWR (validation/README.md has the trace).
// Included by path ("../ns3_dctcp.h"); ns3_common.py rebuilds a program when
// this file changes.

#ifndef DCNSIM_VALIDATION_NS3_DCTCP_H
#define DCNSIM_VALIDATION_NS3_DCTCP_H

#include "ns3/internet-module.h"

#include <algorithm>
#include <string>

namespace ns3
{

// --dctcp-abc=1 (an experiment, not a work-around): TcpDctcpFloorOf's
// congestion avoidance is RFC 3465's byte counting, one SMSS per cwnd of
// acknowledged bytes with the count cleared on every cut, in place of
// TcpLinuxReno's, which divides by w = floor(cwnd / SMSS) and keeps its
// count across cuts.
inline bool g_dctcpAbc = false;

// DCTCP's cut never below 2 segments (Linux's dctcp_ssthresh, RFC 5681's
// floor; ns-3.37's TcpDctcp has none). Base is TcpDctcp or a class
// derived from it; the program's own class adds GetTypeId and Fork.
template <class Base>
class TcpDctcpFloorOf : public Base
{
  public:
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        m_acked = 0;
        return std::max(Base::GetSsThresh(tcb, bytesInFlight), 2 * tcb->m_segmentSize);
    }

  protected:
    void CongestionAvoidance(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (!g_dctcpAbc)
        {
            Base::CongestionAvoidance(tcb, segmentsAcked);
            return;
        }
        m_acked += segmentsAcked * tcb->m_segmentSize;
        if (m_acked >= tcb->m_cWnd)
        {
            m_acked -= tcb->m_cWnd;
            tcb->m_cWnd += tcb->m_segmentSize;
        }
    }

  private:
    uint32_t m_acked{0};
};

// incast's --cwr-exit=1 (and outcast's --cc=dctcp): PRR, but a flow in CA_CWR leaves it (cwnd = ssthresh) on
// the ACK that reaches its recovery point, not only on one beyond it.
// EnterCwr sets the socket's m_recover to m_highTxMark just before it calls
// EnterRecovery, so that is the recovery point recorded here; ProcessAck
// has set m_lastAckedSeq to this ACK before it calls DoRecovery.
class TcpPrrCwrExit : public TcpPrrRecovery
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpPrrCwrExit")
                                .SetParent<TcpPrrRecovery>()
                                .AddConstructor<TcpPrrCwrExit>()
                                .SetGroupName("Internet");
        return tid;
    }

    TcpPrrCwrExit() = default;

    TcpPrrCwrExit(const TcpPrrCwrExit& r) = default;

    std::string GetName() const override
    {
        return "TcpPrrCwrExit";
    }

    Ptr<TcpRecoveryOps> Fork() override
    {
        return CopyObject<TcpPrrCwrExit>(this);
    }

    void EnterRecovery(Ptr<TcpSocketState> tcb,
                       uint32_t dupAckCount,
                       uint32_t unAckDataCount,
                       uint32_t deliveredBytes) override
    {
        m_point = tcb->m_highTxMark;
        TcpPrrRecovery::EnterRecovery(tcb, dupAckCount, unAckDataCount, deliveredBytes);
    }

    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes) override
    {
        if (tcb->m_congState == TcpSocketState::CA_CWR && tcb->m_lastAckedSeq >= m_point)
        {
            tcb->m_congState = TcpSocketState::CA_OPEN;
            tcb->m_cWnd = tcb->m_ssThresh.Get();
            TcpPrrRecovery::ExitRecovery(tcb);
            return;
        }
        TcpPrrRecovery::DoRecovery(tcb, deliveredBytes);
    }

  private:
    SequenceNumber32 m_point{0};
};

NS_OBJECT_ENSURE_REGISTERED(TcpPrrCwrExit);

} // namespace ns3

#endif
