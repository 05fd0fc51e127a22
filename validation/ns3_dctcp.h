// What the ns-3 programs that run DCTCP (ns3_incast/incast.cc,
// ns3_outcast/outcast.cc) share: the work-around for ns-3.37's DCTCP
// connections that stay in CA_CWR (validation/README.md has the trace).
// Included by path ("../ns3_dctcp.h"); ns3_common.py rebuilds a program when
// this file changes.

#ifndef DCNSIM_VALIDATION_NS3_DCTCP_H
#define DCNSIM_VALIDATION_NS3_DCTCP_H

#include "ns3/internet-module.h"

#include <string>

namespace ns3
{

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
