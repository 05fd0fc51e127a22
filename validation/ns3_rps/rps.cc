// ns-3 (3.37, Debian's libns3-dev) side of the RPS differential harness
// (validation/ns3_rps/README.md): RPS Fig. 3's static pairs on a k = 4
// fat-tree, n long 10 MiB flows S0..S(n-1) -> S15 and one 200 KiB short
// flow S0 -> S15, all at t = 0, with ns-3.23's TCP as docs/rps.md sets it.
// Prints one line per flow:
//   flow <i> <long|short> src <h> fct_us <us> fast_recoveries <k> rtos <t>
//     retx <r> dupacks <d> duprun3 <r3> maxrun <m> ooo <o> segs <s>
// and one line `drops <d>` (every device queue). With --trace=FILE it also
// writes, per flow, every data arrival at S15 and every ACK arrival at the
// sender (time, flow, kind, seq/ack) for the trace comparison of one run.
// A tool, not a test: validation/ns3_rps/run.py builds and drives it.
//
// Counting, the same rules as run.py's for dcnsim: a fast recovery is a
// CongState transition into CA_RECOVERY; an RTO one into CA_LOSS; an
// out-of-order arrival a data segment starting above the receiver's next
// expected byte; a duplicate ACK a pure ACK repeating the last cumulative
// ACK while data is outstanding, and duprun3 counts runs of >= 3 of them.
// FCT runs from the connection's establishment (the first data segment
// leaves then; dcnsim simulates no handshake) to the last byte's arrival.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "../ns3_fattree.h"

#include <cstdio>
#include <map>
#include <set>
#include <vector>

using namespace ns3;

namespace
{

struct Flow
{
    uint32_t src = 0;
    uint32_t bytes = 0;
    bool isShort = false;
    Ptr<Socket> snd;
    Time start;
    Time end;
    uint32_t got = 0;
    // sender
    uint32_t fastRecoveries = 0;
    uint32_t rtos = 0;
    uint32_t retx = 0;
    uint32_t highTx = 0; // one past the highest byte sent
    uint32_t lastAck = 0;
    uint32_t run = 0;
    uint32_t dupacks = 0;
    uint32_t duprun3 = 0;
    uint32_t maxrun = 0;
    // receiver
    uint32_t rcvNxt = 1; // ns-3's ISN is 0: data starts at 1
    std::map<uint32_t, uint32_t> above; // out-of-order segments: start -> end
    uint32_t ooo = 0;
    uint32_t segs = 0;
};

std::vector<Flow> g_flows;
uint64_t g_drops = 0;
FILE* g_trace = nullptr;

void
CongState(uint32_t f, TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
    if (to == TcpSocketState::CA_RECOVERY && from != TcpSocketState::CA_RECOVERY)
    {
        g_flows[f].fastRecoveries++;
        if (g_trace)
        {
            std::fprintf(g_trace, "%.3f %u fr 0\n", Simulator::Now().GetNanoSeconds() / 1e3, f);
        }
    }
    if (to == TcpSocketState::CA_LOSS && from != TcpSocketState::CA_LOSS)
    {
        g_flows[f].rtos++;
    }
}

void
EndRun(Flow& fl)
{
    if (fl.run >= 3)
    {
        fl.duprun3++;
    }
    fl.maxrun = std::max(fl.maxrun, fl.run);
    fl.run = 0;
}

void
SenderTx(uint32_t f, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    Flow& fl = g_flows[f];
    uint32_t len = p->GetSize();
    if (len == 0)
    {
        return;
    }
    uint32_t seq = h.GetSequenceNumber().GetValue();
    if (seq < fl.highTx)
    {
        fl.retx++;
    }
    fl.highTx = std::max(fl.highTx, seq + len);
}

void
SenderRx(uint32_t f, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    Flow& fl = g_flows[f];
    uint8_t fl_ = h.GetFlags();
    if (p->GetSize() > 0 || (fl_ & (TcpHeader::SYN | TcpHeader::FIN)) || !(fl_ & TcpHeader::ACK))
    {
        return;
    }
    uint32_t ack = h.GetAckNumber().GetValue();
    if (g_trace)
    {
        std::fprintf(g_trace, "%.3f %u ack %u\n", Simulator::Now().GetNanoSeconds() / 1e3, f, ack);
    }
    if (ack == fl.lastAck && ack < fl.highTx)
    {
        fl.dupacks++;
        fl.run++;
    }
    else if (ack > fl.lastAck)
    {
        EndRun(fl);
        fl.lastAck = ack;
    }
}

void
ReceiverRx(uint32_t f, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    Flow& fl = g_flows[f];
    uint32_t len = p->GetSize();
    if (len == 0)
    {
        return;
    }
    uint32_t seq = h.GetSequenceNumber().GetValue();
    if (g_trace)
    {
        std::fprintf(g_trace, "%.3f %u data %u\n", Simulator::Now().GetNanoSeconds() / 1e3, f, seq);
    }
    fl.segs++;
    if (seq > fl.rcvNxt)
    {
        fl.ooo++;
        fl.above[seq] = std::max(fl.above[seq], seq + len);
        return;
    }
    if (seq + len <= fl.rcvNxt)
    {
        return;
    }
    fl.rcvNxt = seq + len;
    while (!fl.above.empty() && fl.above.begin()->first <= fl.rcvNxt)
    {
        fl.rcvNxt = std::max(fl.rcvNxt, fl.above.begin()->second);
        fl.above.erase(fl.above.begin());
    }
}

void
SinkRecv(uint32_t f, Ptr<Socket> s)
{
    Flow& fl = g_flows[f];
    Ptr<Packet> p;
    while ((p = s->Recv()))
    {
        fl.got += p->GetSize();
    }
    if (fl.got >= fl.bytes && fl.end.IsZero())
    {
        fl.end = Simulator::Now();
    }
}

void
Accepted(uint32_t f, Ptr<Socket> s, const Address&)
{
    s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&ReceiverRx, f));
    s->SetRecvCallback(MakeBoundCallback(&SinkRecv, f));
}

void
Connected(uint32_t f, Ptr<Socket> s)
{
    Flow& fl = g_flows[f];
    fl.start = Simulator::Now();
    fl.lastAck = 1;
    s->Send(Create<Packet>(fl.bytes));
}

void
DeviceDrop(Ptr<const Packet>)
{
    g_drops++;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t n = 3;
    bool spray = true;
    uint32_t seed = 1;
    uint32_t longBytes = 10 << 20;
    uint32_t shortBytes = 200 << 10;
    std::string queue = "1000p";
    std::string trace;
    std::string pcap;
    double stop = 30;
    std::string cc = "newreno";
    CommandLine cmd;
    cmd.AddValue("cc", "newreno (ns-3.23's: slow start adds one SMSS per ACK) or linuxreno (slow start "
                 "adds every acknowledged segment, congestion avoidance counts bytes)", cc);
    cmd.AddValue("n", "long flows S0..S(n-1) -> S15", n);
    cmd.AddValue("spray", "RandomEcmpRouting: a random equal-cost next hop per packet at every node", spray);
    cmd.AddValue("seed", "RngRun", seed);
    cmd.AddValue("queue", "every device queue (hosts' NICs too)", queue);
    cmd.AddValue("trace", "write per-flow arrivals to this file", trace);
    cmd.AddValue("pcap", "pcap prefix: the hosts' devices", pcap);
    cmd.AddValue("stop", "seconds", stop);
    cmd.Parse(argc, argv);
    if (n > 15)
    {
        std::fprintf(stderr, "n must be in 0..15, got %u\n", n);
        return 2;
    }

    RngSeedManager::SetRun(seed);
    // ns-3.23's TCP as docs/rps.md sets it (python/dcnsim/experiments/rps/common.py tcp()).
    if (cc != "newreno" && cc != "linuxreno")
    {
        std::fprintf(stderr, "--cc must be newreno or linuxreno, got %s\n", cc.c_str());
        return 2;
    }
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(cc == "linuxreno" ? TcpLinuxReno::GetTypeId() : TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(16 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(131072));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(3));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(spray));

    const uint32_t k = 4;
    NodeContainer hosts, edges, aggs, cores;
    hosts.Create(k * k * k / 4);
    edges.Create(k * k / 2);
    aggs.Create(k * k / 2);
    cores.Create(k * k / 4);
    InternetStackHelper stack;
    stack.Install(hosts);
    stack.Install(edges);
    stack.Install(aggs);
    stack.Install(cores);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("25us"));
    // ns-3.23 had no traffic-control layer: the device queue is the port's
    // buffer, 1000 packets at both ends of every link.
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue(queue));

    uint32_t subnet = 0;
    std::vector<Ipv4Address> hostAddr(hosts.GetN());
    std::vector<Ptr<NetDevice>> hostDev(hosts.GetN());
    dcnsim_ns3::WireFatTree(
        k, hosts, edges, aggs, cores,
        [&](uint32_t h, Ptr<Node> host, Ptr<Node> edge) {
            auto [d, ifs] = dcnsim_ns3::LinkP2p(p2p, host, edge, subnet);
            hostAddr[h] = ifs.GetAddress(0);
            hostDev[h] = d.Get(0);
        },
        [&](Ptr<Node> a, Ptr<Node> b) { dcnsim_ns3::LinkP2p(p2p, a, b, subnet); });
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/TxQueue/Drop",
                                  MakeCallback(&DeviceDrop));
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/MacTxDrop",
                                  MakeCallback(&DeviceDrop));
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyRxDrop",
                                  MakeCallback(&DeviceDrop));

    const uint32_t dst = hosts.GetN() - 1;
    g_flows.resize(n + 1);
    for (uint32_t f = 0; f <= n; ++f)
    {
        Flow& fl = g_flows[f];
        fl.isShort = f == n;
        fl.src = fl.isShort ? 0 : f;
        fl.bytes = fl.isShort ? shortBytes : longBytes;
        uint16_t port = 5000 + f;
        dcnsim_ns3::ListenTcp(hosts.Get(dst), port, MakeBoundCallback(&Accepted, f));
        Ptr<Socket> s = Socket::CreateSocket(hosts.Get(fl.src), TcpSocketFactory::GetTypeId());
        s->Bind();
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongState, f));
        s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&SenderTx, f));
        s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&SenderRx, f));
        s->SetConnectCallback(MakeBoundCallback(&Connected, f), MakeNullCallback<void, Ptr<Socket>>());
        fl.snd = s;
        Simulator::Schedule(Seconds(0), &Socket::Connect, s, InetSocketAddress(hostAddr[dst], port));
    }
    if (!trace.empty())
    {
        g_trace = std::fopen(trace.c_str(), "w");
        if (!g_trace)
        {
            std::fprintf(stderr, "cannot write --trace %s\n", trace.c_str());
            return 2;
        }
    }
    if (!pcap.empty())
    {
        for (uint32_t h = 0; h < n; ++h)
        {
            p2p.EnablePcap(pcap, hostDev[h], false);
        }
        p2p.EnablePcap(pcap, hostDev[dst], false);
    }
    Simulator::Stop(Seconds(stop));
    Simulator::Run();
    for (uint32_t f = 0; f <= n; ++f)
    {
        Flow& fl = g_flows[f];
        EndRun(fl);
        double fct = fl.end.IsZero() ? -1 : (fl.end - fl.start).GetNanoSeconds() / 1e3;
        std::printf("flow %u %s src %u fct_us %.3f fast_recoveries %u rtos %u retx %u dupacks %u duprun3 %u "
                    "maxrun %u ooo %u segs %u\n",
                    f, fl.isShort ? "short" : "long", fl.src, fct, fl.fastRecoveries, fl.rtos, fl.retx,
                    fl.dupacks, fl.duprun3, fl.maxrun, fl.ooo, fl.segs);
    }
    std::printf("drops %lu\n", (unsigned long)g_drops);
    if (g_trace)
    {
        std::fclose(g_trace);
    }
    Simulator::Destroy();
    return 0;
}
