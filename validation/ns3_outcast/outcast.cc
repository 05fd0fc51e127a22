// ns-3 (3.37, Debian's libns3-dev) side of the outcast differential harness
// (issue 46; validation/ns3_outcast/run.py builds and drives it): TCPRand's
// Fig. 1, a k = 4 fat-tree, one long flow from each of hosts 1..15 into
// host 0, drop-tail switch ports, TCPRand's TCP settings (docs/tcprand.md).
// --k=8 --senders=1,16,17,... is Fig. 10 (validation/ns3_outcast/fig10.py):
// the 8-ary tree, host 1's 2-hop flow and 6-hop flows from other pods.
//
// Per-flow random ECMP: ns-3.37's RandomEcmpRouting draws a next hop per
// packet, so every node here runs FatTreeRouting below. A switch with more
// than one shortest next hop (an edge or aggregation switch sending up)
// draws one uniformly for each (src, dst, sport, dport) the first time it
// sees it, from its own stream of RngRun = --seed, and keeps it: data and
// ACKs of a flow are separate tuples, as in dcnsim's ECMP, which hashes the
// packet kind too. Flows start (connect) at U[0, --jitter-us] from the seed.
//
// Timing as dcnsim's: dcnsim adds its 25 µs switch delay to links into
// switches; here host links get 1 + 12.5 µs each way and switch-switch
// links 1 + 25 µs, so every round trip (and every path from the receiver's
// edge port back to it) has the same propagation delay. Point-to-point
// framing adds 2 bytes to every packet (dcnsim's l2_overhead = 2 matches
// it). A switch port's device queue holds --qmax - 1 packets: with the one
// on the wire the port holds Qmax, as dcnsim counts its buffer.
//
// --cc=dctcp (TCPRand's DCTCP series, K = --ecn-k packets): ns-3's TcpDctcp
// with Linux's and dcnsim's 2-segment floor on its cut (TcpDctcpFloor below),
// ECN on, PRR for its reductions with ns3_incast's exit from CWR
// (../ns3_dctcp.h), and every switch port a RED queue disc that marks on its
// instantaneous length (QW = 1, MinTh = MaxTh) ahead of a 1-packet device
// queue. dcnsim marks a packet when the port holds more than K packets as
// it arrives, the one on the wire counted; here the device queue's packet
// and the one on the wire are outside the queue disc, so RED's threshold is
// K - 1 packets of queue disc (it marks at >= MinTh) and its limit
// Qmax - 2: the same port, counted as dcnsim counts it. (Only data crosses
// the receiver's edge port, so packets are the unit on both sides.)
//
// Prints per flow `flow <i> src <h> bytes <b> timeouts <t> drops <d>`
// (bytes delivered to the receiving socket by start + --secs; timeouts are
// entries into CA_LOSS, so a further RTO in loss recovery is not counted;
// drops of the flow's data at the receiver's edge port), per input port of the receiver's edge
// port `port <from> offered <o> dropped <d>`, drops elsewhere, `marks <m>` (CE marks at
// the receiver's edge port) and `events <n>`. With
// --trace=FILE, for the first --trace-ms: `a t from src` (a data packet
// arrives at the edge port), `d t from src` (dropped there), `x t src`
// (it starts on the wire to host 0), `q t n` (packets in the device queue;
// with --cc=dctcp in the queue disc, and `m t n`: a CE mark at queue disc
// length n) and `c t flow cwnd` (every cwnd change), times in ns.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "../ns3_dctcp.h"
#include "../ns3_fattree.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

// the fat-tree's arity (--k) and its host count, set once from the command line
uint32_t K = 4;
uint32_t HOSTS = 16;

// What FatTreeRouting needs to know of the topology, filled while linking.
struct NodeInfo
{
    enum Kind
    {
        HOST,
        EDGE,
        AGG,
        CORE
    } kind = HOST;
    uint32_t index = 0;
    // neighbour name -> (interface, neighbour address)
    std::map<std::string, std::pair<uint32_t, Ipv4Address>> ports;
    std::map<uint32_t, std::string> names; // interface -> neighbour name
};

std::map<uint32_t, uint32_t> g_hostOfAddr; // host address (as uint32) -> host index

std::string
HostName(uint32_t h)
{
    return "h" + std::to_string(h);
}

std::string
EdgeName(uint32_t e)
{
    return "edge" + std::to_string(e / (K / 2)) + "_" + std::to_string(e % (K / 2));
}

std::string
AggName(uint32_t a)
{
    return "aggr" + std::to_string(a / (K / 2)) + "_" + std::to_string(a % (K / 2));
}

std::string
CoreName(uint32_t c)
{
    return "core" + std::to_string(c);
}

struct Flow
{
    uint32_t src = 0;
    Ptr<Socket> snd;
    Time start;
    uint64_t got = 0;
    uint64_t gotByDeadline = 0;
    bool deadlinePassed = false;
    uint32_t timeouts = 0;
    uint64_t drops = 0;
};

std::vector<Flow> g_flows;
std::map<uint32_t, uint32_t> g_flowOfSrc; // source host -> its flow's index
FILE* g_trace = nullptr;
Time g_traceEnd;
uint64_t g_chunk = 1 << 16;
// the receiver's edge port: input port name -> (offered, dropped)
std::map<std::string, std::pair<uint64_t, uint64_t>> g_ports;
// packet uid -> (input port, source host), from its arrival at the edge port to its drop or transmission
std::map<uint64_t, std::pair<std::string, uint32_t>> g_inPortOf;
uint64_t g_edgeMarks = 0; // CE marks at the receiver's edge port (--cc=dctcp)
uint64_t g_otherDrops = 0; // at every other port
uint64_t g_deviceDrops = 0; // in a device queue (none expected)

bool
Tracing()
{
    return g_trace && Simulator::Now() <= g_traceEnd;
}

uint32_t
SrcHost(const Ipv4Header& h)
{
    auto it = g_hostOfAddr.find(h.GetSource().Get());
    return it == g_hostOfAddr.end() ? UINT32_MAX : it->second;
}

class FatTreeRouting : public dcnsim_ns3::RoutingBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("dcnsim::FatTreeRouting")
                                .SetParent<Ipv4RoutingProtocol>()
                                .AddConstructor<FatTreeRouting>();
        return tid;
    }

    NodeInfo* info = nullptr;
    Ptr<UniformRandomVariable> rng;
    std::map<std::tuple<uint32_t, uint32_t, uint16_t, uint16_t>, uint32_t> chosen;

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet>, const Ipv4Header& header, Ptr<NetDevice>,
                               Socket::SocketErrno& err) override
    {
        // Hosts only: one interface, to their edge switch.
        NS_ASSERT(info->kind == NodeInfo::HOST);
        auto& port = info->ports.begin()->second;
        Ptr<Ipv4Route> r = Create<Ipv4Route>();
        r->SetDestination(header.GetDestination());
        r->SetGateway(port.second);
        r->SetSource(m_ipv4->GetAddress(port.first, 0).GetLocal());
        r->SetOutputDevice(m_ipv4->GetNetDevice(port.first));
        err = Socket::ERROR_NOTERROR;
        return r;
    }

    bool RouteInput(Ptr<const Packet> p, const Ipv4Header& header, Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb, MulticastForwardCallback, LocalDeliverCallback lcb,
                    ErrorCallback) override
    {
        uint32_t iif = m_ipv4->GetInterfaceForDevice(idev);
        if (m_ipv4->IsDestinationAddress(header.GetDestination(), iif))
        {
            lcb(p, header, iif);
            return true;
        }
        if (info->kind == NodeInfo::HOST)
        {
            return false;
        }
        auto dit = g_hostOfAddr.find(header.GetDestination().Get());
        NS_ABORT_MSG_IF(dit == g_hostOfAddr.end(), "no host has " << header.GetDestination());
        uint32_t h = dit->second;
        std::vector<std::string> up;
        std::string next;
        if (info->kind == NodeInfo::EDGE)
        {
            if (h / (K / 2) == info->index)
            {
                next = HostName(h);
            }
            else
            {
                uint32_t pod = info->index / (K / 2);
                for (uint32_t j = 0; j < K / 2; ++j)
                {
                    up.push_back(AggName(pod * (K / 2) + j));
                }
            }
        }
        else if (info->kind == NodeInfo::AGG)
        {
            uint32_t pod = info->index / (K / 2);
            if (h / (K * K / 4) == pod)
            {
                next = EdgeName(h / (K / 2));
            }
            else
            {
                uint32_t j = info->index % (K / 2);
                for (uint32_t c = 0; c < K / 2; ++c)
                {
                    up.push_back(CoreName(j * (K / 2) + c));
                }
            }
        }
        else
        {
            // core c reaches pod p through aggregation switch c / (k/2) of it
            next = AggName((h / (K * K / 4)) * (K / 2) + info->index / (K / 2));
        }
        if (!up.empty())
        {
            uint8_t b[4] = {0, 0, 0, 0};
            p->CopyData(b, 4);
            auto key = std::make_tuple(header.GetSource().Get(), header.GetDestination().Get(),
                                       uint16_t(b[0] << 8 | b[1]), uint16_t(b[2] << 8 | b[3]));
            auto it = chosen.find(key);
            if (it == chosen.end())
            {
                it = chosen.emplace(key, rng->GetInteger(0, up.size() - 1)).first;
            }
            next = up[it->second];
        }
        auto& port = info->ports.at(next);
        uint8_t t[13] = {0};
        if (info->kind == NodeInfo::EDGE && info->index == 0 && h == 0 && p->CopyData(t, 13) == 13 &&
            p->GetSize() > uint32_t(t[12] >> 4) * 4)
        {
            // data arriving at the receiver's edge port (ACKs and SYNs carry no payload)
            std::string from = info->names.at(iif);
            g_inPortOf[p->GetUid()] = {from, SrcHost(header)};
            g_ports[from].first++;
            if (Tracing())
            {
                std::fprintf(g_trace, "a %ld %s %u\n", (long)Simulator::Now().GetNanoSeconds(), from.c_str(),
                             SrcHost(header));
            }
        }
        Ptr<Ipv4Route> r = Create<Ipv4Route>();
        r->SetDestination(header.GetDestination());
        r->SetGateway(port.second);
        r->SetSource(header.GetSource());
        r->SetOutputDevice(m_ipv4->GetNetDevice(port.first));
        ucb(r, p, header);
        return true;
    }

};

uint32_t
Ipv4SrcOf(Ptr<const Packet> p)
{
    // A device's packets are PPP-framed: skip the 2-byte PPP header.
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    c->RemoveHeader(ppp);
    Ipv4Header ip;
    c->PeekHeader(ip);
    return SrcHost(ip);
}

// ns-3.37 drops a packet for a full device queue in the traffic-control
// layer (the queue stops its NetDeviceQueue when it cannot take another
// packet; without a queue disc TrafficControlLayer::Send then drops, before
// the IP header is added): drop-tail at the port, seen by this trace.
void
NodeDrop(bool edge0, Ptr<const Packet> p)
{
    auto it = edge0 ? g_inPortOf.find(p->GetUid()) : g_inPortOf.end();
    if (it == g_inPortOf.end())
    {
        g_otherDrops++;
        return;
    }
    g_ports[it->second.first].second++;
    auto fi = g_flowOfSrc.find(it->second.second);
    if (fi != g_flowOfSrc.end())
    {
        g_flows[fi->second].drops++;
    }
    if (Tracing())
    {
        std::fprintf(g_trace, "d %ld %s %u\n", (long)Simulator::Now().GetNanoSeconds(), it->second.first.c_str(),
                     it->second.second);
    }
    g_inPortOf.erase(it);
}

void
EdgePortTx(Ptr<const Packet> p)
{
    g_inPortOf.erase(p->GetUid());
    if (Tracing())
    {
        std::fprintf(g_trace, "x %ld %u\n", (long)Simulator::Now().GetNanoSeconds(), Ipv4SrcOf(p));
    }
}

void
DeviceDrop(Ptr<const Packet>)
{
    g_deviceDrops++;
}

void
EdgePortLen(uint32_t, uint32_t n)
{
    if (Tracing())
    {
        std::fprintf(g_trace, "q %ld %u\n", (long)Simulator::Now().GetNanoSeconds(), n);
    }
}

void
Cwnd(uint32_t f, uint32_t, uint32_t w)
{
    if (Tracing())
    {
        std::fprintf(g_trace, "c %ld %u %u\n", (long)Simulator::Now().GetNanoSeconds(), f, w);
    }
}

void
CongState(uint32_t f, TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
    if (to == TcpSocketState::CA_LOSS && from != TcpSocketState::CA_LOSS)
    {
        g_flows[f].timeouts++;
    }
}

void
Fill(uint32_t, Ptr<Socket> s, uint32_t)
{
    while (s->GetTxAvailable() >= g_chunk)
    {
        if (s->Send(Create<Packet>(g_chunk)) < 0)
        {
            break;
        }
    }
}

void
Connected(uint32_t f, Ptr<Socket> s)
{
    s->SetSendCallback(MakeBoundCallback(&Fill, f));
    Fill(f, s, 0);
}

void
SinkRecv(uint32_t f, Ptr<Socket> s)
{
    Ptr<Packet> p;
    while ((p = s->Recv()))
    {
        g_flows[f].got += p->GetSize();
    }
}

void
Accepted(uint32_t f, Ptr<Socket> s, const Address&)
{
    s->SetRecvCallback(MakeBoundCallback(&SinkRecv, f));
}

void
Deadline(uint32_t f)
{
    g_flows[f].gotByDeadline = g_flows[f].got;
    g_flows[f].deadlinePassed = true;
}

// A queue disc's drop (--cc=dctcp: the ports are RED queue discs, whose
// drops TcDrop does not see), counted as NodeDrop counts the others.
void
QdiscDrop(bool edge0, Ptr<const QueueDiscItem> item)
{
    NodeDrop(edge0, item->GetPacket());
}

void
EdgeMark(Ptr<QueueDisc> q, Ptr<const QueueDiscItem>, const char*)
{
    g_edgeMarks++;
    if (Tracing())
    {
        std::fprintf(g_trace, "m %ld %u\n", (long)Simulator::Now().GetNanoSeconds(), q->GetNPackets());
    }
}

} // namespace

// --cc=dctcp: DCTCP's cut never below 2 segments, as Linux's and dcnsim's
// (ns-3.37's TcpDctcp has none, and 15 flows sharing a port that marks at a
// few packets would shrink to a segment each), and with --dctcp-abc=1 its
// byte counting (TcpDctcpFloorOf, ../ns3_dctcp.h).
class TcpDctcpFloor : public TcpDctcpFloorOf<TcpDctcp>
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("dcnsim::TcpDctcpFloor")
                                .SetParent<TcpDctcp>()
                                .AddConstructor<TcpDctcpFloor>();
        return tid;
    }

    std::string GetName() const override
    {
        return "TcpDctcpFloor";
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpDctcpFloor>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(TcpDctcpFloor);

int
main(int argc, char* argv[])
{
    uint32_t seed = 1;
    uint32_t qmax = 20;
    uint32_t header = 40;
    std::string cc = "cubic";
    double secs = 3;
    double jitterUs = 100;
    double linkUs = 1;
    double switchUs = 25;
    double rtoMinMs = 2;
    uint32_t initCwnd = 2;
    uint32_t nicPkts = 100;
    uint32_t ecnK = 0;
    bool dctcpFloor = true;
    std::string senders;
    std::string trace;
    double traceMs = 100;
    CommandLine cmd;
    cmd.AddValue("seed", "RngRun: ECMP draws and start offsets", seed);
    cmd.AddValue("k", "the fat-tree's arity (even, >= 4): 4 is Fig. 1's, 8 Fig. 10's", K);
    cmd.AddValue("senders", "comma-separated source hosts, each sending one long flow to host 0 (default: all others)",
                 senders);
    cmd.AddValue("qmax", "switch port buffer, packets (the one on the wire included)", qmax);
    cmd.AddValue("header", "40 (MSS 1460, no timestamps) or 52 (MSS 1448, timestamps)", header);
    cmd.AddValue("cc", "cubic (TcpCubic, HyStart off), newreno (TcpNewReno) or dctcp (TcpDctcp, 2-segment floor)", cc);
    cmd.AddValue("dctcp-floor", "--cc=dctcp: 1 keeps the 2-segment floor (Linux's, dcnsim's); 0 runs ns-3.37's TcpDctcp as it is",
                 dctcpFloor);
    cmd.AddValue("dctcp-abc", "--cc=dctcp, an experiment: RFC 3465's byte counting in congestion avoidance", g_dctcpAbc);
    cmd.AddValue("ecn-k", "--cc=dctcp: mark above this many packets at a switch port, as dcnsim's ecn_k", ecnK);
    cmd.AddValue("secs", "each flow's duration", secs);
    cmd.AddValue("jitter-us", "flows connect at U[0, this] µs", jitterUs);
    cmd.AddValue("link-us", "link propagation delay, µs", linkUs);
    cmd.AddValue("switch-us", "switch delay, µs, added to the links as dcnsim adds it", switchUs);
    cmd.AddValue("rto-min-ms", "MinRto", rtoMinMs);
    cmd.AddValue("init-cwnd", "InitialCwnd, segments", initCwnd);
    cmd.AddValue("nic", "hosts' device queues, packets", nicPkts);
    cmd.AddValue("trace", "write the edge port's arrivals, drops, queue and every cwnd to this file", trace);
    cmd.AddValue("trace-ms", "... for the first this many ms", traceMs);
    cmd.Parse(argc, argv);
    if (header != 40 && header != 52)
    {
        std::fprintf(stderr, "--header must be 40 or 52, got %u\n", header);
        return 2;
    }
    if (cc != "cubic" && cc != "newreno" && cc != "dctcp")
    {
        std::fprintf(stderr, "--cc must be cubic, newreno or dctcp, got %s\n", cc.c_str());
        return 2;
    }
    const bool dctcp = cc == "dctcp";
    // RED marks at >= MinTh = K - 1 only where the queue disc holds more
    // than one packet, and its limit Qmax - 2 must leave room above it.
    if (dctcp && (ecnK < 3 || ecnK + 1 > qmax - 2))
    {
        std::fprintf(stderr, "--cc=dctcp needs --ecn-k between 3 and --qmax - 3 (%d), got %u\n", int(qmax) - 3,
                     ecnK);
        return 2;
    }
    if (!dctcp && (g_dctcpAbc || !dctcpFloor))
    {
        std::fprintf(stderr, "--dctcp-abc and --dctcp-floor are for --cc=dctcp only\n");
        return 2;
    }
    if (g_dctcpAbc && !dctcpFloor)
    {
        // ns-3's own TcpDctcp has no byte counting to switch on
        std::fprintf(stderr, "--dctcp-abc needs the floor's class: not with --dctcp-floor=0\n");
        return 2;
    }
    if (!dctcp && ecnK != 0)
    {
        std::fprintf(stderr, "--ecn-k is for --cc=dctcp only\n");
        return 2;
    }
    if (K < 4 || K % 2 != 0)
    {
        std::fprintf(stderr, "--k must be even and >= 4, got %u\n", K);
        return 2;
    }
    HOSTS = K * K * K / 4;
    std::vector<uint32_t> srcs;
    for (size_t at = 0; at < senders.size();)
    {
        size_t end = senders.find(',', at);
        std::string part = senders.substr(at, end == std::string::npos ? std::string::npos : end - at);
        char* rest = nullptr;
        unsigned long h = std::strtoul(part.c_str(), &rest, 10);
        if (part.empty() || *rest != '\0' || h < 1 || h >= HOSTS ||
            std::find(srcs.begin(), srcs.end(), uint32_t(h)) != srcs.end())
        {
            std::fprintf(stderr, "--senders: each must be a distinct host 1..%u, got '%s'\n", HOSTS - 1, part.c_str());
            return 2;
        }
        srcs.push_back(uint32_t(h));
        at = end == std::string::npos ? senders.size() : end + 1;
    }
    if (srcs.empty())
    {
        for (uint32_t h = 1; h < HOSTS; ++h)
        {
            srcs.push_back(h);
        }
    }
    if (qmax < 2)
    {
        std::fprintf(stderr, "--qmax must be >= 2, got %u\n", qmax);
        return 2;
    }
    RngSeedManager::SetRun(seed);

    // TCPRand's settings (docs/tcprand.md; python/dcnsim/experiments/tcprand/common.py tcp_table)
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(cc == "cubic"   ? TcpCubic::GetTypeId()
                                   : cc == "dctcp" ? (dctcpFloor ? TcpDctcpFloor::GetTypeId() : TcpDctcp::GetTypeId())
                                                   : TcpNewReno::GetTypeId()));
    if (dctcp)
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    }
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false)); // dcnsim's hystart = "off"
    // DCTCP's cut on a mark is ns-3's CWR, which runs the recovery
    // algorithm. With classic recovery, ns-3.37's DCTCP senders here put
    // more data packets through the receiver's port than they delivered
    // (Qmax 20, seed 1: F1 24,170 for 12,083 segments' worth, all fifteen
    // 17 % more), so DCTCP takes PRR (Linux also reduces by PRR in CWR)
    // with the exit at the recovery point that ns3_incast's DCTCP uses; then
    // F1 offers what it delivers, and each flow's goodput is within 2 % of
    // dcnsim's.
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(dctcp ? TcpPrrCwrExit::GetTypeId() : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(header == 40 ? 1460 : 1448));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(header == 52));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 20)); // dcnsim's rwnd = 1MB
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(3));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(rtoMinMs * 1000)));
    // dcnsim's granularity = 0 (ns-3's default G is 1 ms)
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(NanoSeconds(1)));

    NodeContainer hosts, edges, aggs, cores;
    hosts.Create(HOSTS);
    edges.Create(K * K / 2);
    aggs.Create(K * K / 2);
    cores.Create(K * K / 4);
    std::map<uint32_t, NodeInfo> info; // node id -> info
    for (uint32_t i = 0; i < HOSTS; ++i)
    {
        info[hosts.Get(i)->GetId()] = {NodeInfo::HOST, i, {}, {}};
    }
    for (uint32_t i = 0; i < edges.GetN(); ++i)
    {
        info[edges.Get(i)->GetId()] = {NodeInfo::EDGE, i, {}, {}};
        info[aggs.Get(i)->GetId()] = {NodeInfo::AGG, i, {}, {}};
    }
    for (uint32_t i = 0; i < cores.GetN(); ++i)
    {
        info[cores.Get(i)->GetId()] = {NodeInfo::CORE, i, {}, {}};
    }
    std::map<uint32_t, std::string> nameOf;
    for (uint32_t i = 0; i < HOSTS; ++i)
    {
        nameOf[hosts.Get(i)->GetId()] = HostName(i);
    }
    for (uint32_t i = 0; i < edges.GetN(); ++i)
    {
        nameOf[edges.Get(i)->GetId()] = EdgeName(i);
        nameOf[aggs.Get(i)->GetId()] = AggName(i);
    }
    for (uint32_t i = 0; i < cores.GetN(); ++i)
    {
        nameOf[cores.Get(i)->GetId()] = CoreName(i);
    }

    InternetStackHelper stack;
    dcnsim_ns3::RoutingHelperOf<FatTreeRouting> routing;
    stack.SetRoutingHelper(routing);
    stack.Install(hosts);
    stack.Install(edges);
    stack.Install(aggs);
    stack.Install(cores);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    uint32_t subnet = 0;
    Ptr<PointToPointNetDevice> edgePort; // edge 0 -> host 0
    // --cc=dctcp: each switch port's RED queue disc (see the header comment)
    TrafficControlHelper red;
    red.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", StringValue(std::to_string(qmax - 2) + "p"), "MinTh",
                         DoubleValue(ecnK - 1.0), "MaxTh", DoubleValue(ecnK - 1.0), "QW", DoubleValue(1.0), "Gentle",
                         BooleanValue(false), "UseEcn", BooleanValue(true), "UseHardDrop", BooleanValue(false));
    auto link = [&](Ptr<Node> a, Ptr<Node> b, double delayUs, bool aIsHost) {
        p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(delayUs * 1000)));
        auto [d, ifs] = dcnsim_ns3::LinkP2p(p2p, a, b, subnet);
        for (uint32_t s = 0; s < 2; ++s)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(d.Get(s));
            bool host = s == 0 && aIsHost;
            dev->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, host ? nicPkts : dctcp ? 1 : qmax - 1));
            if (dctcp && !host)
            {
                red.Install(dev);
            }
            Ptr<Node> self = s == 0 ? a : b;
            Ptr<Node> peer = s == 0 ? b : a;
            NodeInfo& ni = info[self->GetId()];
            uint32_t iface = self->GetObject<Ipv4>()->GetInterfaceForDevice(dev);
            ni.ports[nameOf[peer->GetId()]] = {iface, ifs.GetAddress(1 - s)};
            ni.names[iface] = nameOf[peer->GetId()];
        }
        return std::make_pair(d, ifs);
    };
    const double hostLinkUs = linkUs + switchUs / 2;
    const double switchLinkUs = linkUs + switchUs;
    std::vector<Ipv4Address> hostAddr(HOSTS);
    dcnsim_ns3::WireFatTree(
        K, hosts, edges, aggs, cores,
        [&](uint32_t h, Ptr<Node> host, Ptr<Node> edge) {
            auto [d, ifs] = link(host, edge, hostLinkUs, true);
            hostAddr[h] = ifs.GetAddress(0);
            g_hostOfAddr[hostAddr[h].Get()] = h;
            if (h == 0)
            {
                edgePort = DynamicCast<PointToPointNetDevice>(d.Get(1));
            }
        },
        [&](Ptr<Node> a, Ptr<Node> b) { link(a, b, switchLinkUs, false); });
    int64_t stream = 1000;
    for (auto& [id, ni] : info)
    {
        Ptr<FatTreeRouting> r = DynamicCast<FatTreeRouting>(NodeList::GetNode(id)->GetObject<Ipv4>()->GetRoutingProtocol());
        r->info = &ni;
        r->rng = CreateObject<UniformRandomVariable>();
        r->rng->SetStream(stream++);
    }

    if (!trace.empty())
    {
        g_trace = std::fopen(trace.c_str(), "w");
        if (!g_trace)
        {
            std::fprintf(stderr, "cannot write --trace %s\n", trace.c_str());
            return 2;
        }
        g_traceEnd = MicroSeconds(traceMs * 1000);
    }
    if (dctcp)
    {
        Ptr<QueueDisc> q = edgePort->GetNode()->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(edgePort);
        q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&EdgePortLen));
        q->TraceConnectWithoutContext("Mark", MakeBoundCallback(&EdgeMark, q));
    }
    else
    {
        edgePort->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&EdgePortLen));
    }
    edgePort->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&EdgePortTx));
    for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i)
    {
        Ptr<Node> n = NodeList::GetNode(i);
        bool ok = n->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
            "TcDrop", MakeBoundCallback(&NodeDrop, n == edgePort->GetNode()));
        NS_ABORT_MSG_IF(!ok, "no TcDrop trace");
        for (uint32_t j = 0; j < n->GetNDevices(); ++j)
        {
            // the device queue itself never overflows (see NodeDrop); say so if it does
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(n->GetDevice(j));
            if (dev)
            {
                dev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&DeviceDrop));
                Ptr<QueueDisc> q = n->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(dev);
                if (q)
                {
                    q->TraceConnectWithoutContext("Drop", MakeBoundCallback(&QdiscDrop, dev == edgePort));
                }
            }
        }
    }

    Ptr<UniformRandomVariable> startRng = CreateObject<UniformRandomVariable>();
    startRng->SetStream(1);
    g_flows.resize(srcs.size());
    for (uint32_t f = 0; f < srcs.size(); ++f)
    {
        Flow& fl = g_flows[f];
        fl.src = srcs[f];
        g_flowOfSrc[fl.src] = f;
        uint16_t port = 5000 + f;
        dcnsim_ns3::ListenTcp(hosts.Get(0), port, MakeBoundCallback(&Accepted, f));
        Ptr<Socket> s = Socket::CreateSocket(hosts.Get(fl.src), TcpSocketFactory::GetTypeId());
        s->Bind();
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongState, f));
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&Cwnd, f));
        s->SetConnectCallback(MakeBoundCallback(&Connected, f), MakeNullCallback<void, Ptr<Socket>>());
        fl.snd = s;
        fl.start = NanoSeconds(int64_t(startRng->GetValue(0, jitterUs * 1000)));
        Simulator::Schedule(fl.start, &Socket::Connect, s, InetSocketAddress(hostAddr[0], port));
        Simulator::Schedule(fl.start + Seconds(secs), &Deadline, f);
    }
    Simulator::Stop(NanoSeconds(int64_t(jitterUs * 1000)) + Seconds(secs) + MilliSeconds(1));
    Simulator::Run();
    for (uint32_t f = 0; f < g_flows.size(); ++f)
    {
        Flow& fl = g_flows[f];
        std::printf("flow %u src %u bytes %lu timeouts %u drops %lu\n", f, fl.src,
                    (unsigned long)(fl.deadlinePassed ? fl.gotByDeadline : fl.got), fl.timeouts,
                    (unsigned long)fl.drops);
    }
    for (auto& [from, od] : g_ports)
    {
        std::printf("port %s offered %lu dropped %lu\n", from.c_str(), (unsigned long)od.first,
                    (unsigned long)od.second);
    }
    std::printf("other_drops %lu device_drops %lu\n", (unsigned long)g_otherDrops, (unsigned long)g_deviceDrops);
    std::printf("marks %lu\n", (unsigned long)g_edgeMarks);
    std::printf("events %lu\n", (unsigned long)Simulator::GetEventCount());
    if (g_trace)
    {
        std::fclose(g_trace);
    }
    Simulator::Destroy();
    return 0;
}
