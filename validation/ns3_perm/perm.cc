// ns-3 (3.37, Debian's libns3-dev) side of the DCTCP permutation timed by
// benchmarks/ns3_side_by_side.py (issue 42 item 5): dcnsim.bench's
// dctcp_perm on a k-ary fat-tree, one long DCTCP flow from each listed
// source to its partner, every link --rate with --delay-us, switch ports of
// --buffer bytes marking ECN (CE) above --ecn-k bytes, hosts that never drop.
// validation/ns3_perm/perm_args.py writes the arguments from the dcnsim document.
//
// Paths: each flow's data and its ACKs follow the paths dcnsim's ECMP hash
// gives them in that document (perm_args.py works them out; tests/test_ns3_perm.py
// holds them to dcnsim's own queue_inputs table). A flow is
//   src:dst:jd:id:ja:ia
// where jd / ja is the aggregation switch (0 .. k/2 - 1, within the pod)
// the data / the ACKs leave the source's / the destination's edge switch
// for, and id / ia the core (0 .. k/2 - 1, among that aggregation switch's)
// they go up to; a choice a path does not make (the same edge or pod) is 0.
// Packets are told apart by port: flow f's receiver listens on 5000 + f, so
// data carries it as destination port and ACKs as source port. Independent
// random ECMP draws would be a different network load: dcnsim alone moves
// its packet-hops by ±15 % at k = 4 and ±4 % at k = 8 between ECMP seeds.
//
// Prints `packet_hops N`: every packet a point-to-point device starts to
// send (PhyTxBegin on every device, hosts and switches), and `marks M`, the
// packets the switch queue discs marked.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "../ns3_fattree.h"

#include <cstdio>
#include <sstream>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

const uint16_t BASE_PORT = 5000;

struct FlowSpec
{
    uint32_t src = 0;
    uint32_t dst = 0;
    // [0]: data, [1]: ACKs; (aggregation switch within the pod, core among its k/2)
    uint32_t agg[2] = {0, 0};
    uint32_t core[2] = {0, 0};
};

uint32_t g_k = 4;
std::vector<FlowSpec> g_flows;
std::unordered_map<uint32_t, uint32_t> g_hostOfAddr; // host address -> host index
uint64_t g_hops = 0;
uint64_t g_marks = 0;

void
CountHop(Ptr<const Packet>)
{
    g_hops++;
}

void
CountMark(Ptr<const QueueDiscItem>, const char*)
{
    g_marks++;
}

enum Kind
{
    HOST,
    EDGE,
    AGG,
    CORE
};

// Source routing on the fat-tree with each flow's path given: the node's
// kind and index, and its interface towards each neighbour node (by ns-3
// node id) with the neighbour's address.
class PermRouting : public dcnsim_ns3::RoutingBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("dcnsim::PermRouting")
                                .SetParent<Ipv4RoutingProtocol>()
                                .AddConstructor<PermRouting>();
        return tid;
    }

    Kind kind = HOST;
    uint32_t index = 0;
    std::unordered_map<uint32_t, std::pair<uint32_t, Ipv4Address>> port; // neighbour node id -> (iface, address)
    const NodeContainer* edges = nullptr;
    const NodeContainer* aggs = nullptr;
    const NodeContainer* cores = nullptr;
    const NodeContainer* hosts = nullptr;

    // The route out of port p (interface, neighbour's address) from source address src.
    Ptr<Ipv4Route> Via(const Ipv4Header& header, const std::pair<uint32_t, Ipv4Address>& p, Ipv4Address src)
    {
        Ptr<Ipv4Route> r = Create<Ipv4Route>();
        r->SetDestination(header.GetDestination());
        r->SetGateway(p.second);
        r->SetSource(src);
        r->SetOutputDevice(m_ipv4->GetNetDevice(p.first));
        return r;
    }

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet>, const Ipv4Header& header, Ptr<NetDevice>,
                               Socket::SocketErrno& err) override
    {
        // hosts only: one port, to their edge switch
        NS_ASSERT(kind == HOST && port.size() == 1);
        err = Socket::ERROR_NOTERROR;
        auto& p = port.begin()->second;
        return Via(header, p, m_ipv4->GetAddress(p.first, 0).GetLocal());
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
        if (kind == HOST)
        {
            return false;
        }
        uint32_t h = g_hostOfAddr.at(header.GetDestination().Get());
        const uint32_t half = g_k / 2;
        const uint32_t podHosts = half * half;
        Ptr<Node> next;
        if (kind == EDGE && h / half == index)
        {
            next = hosts->Get(h);
        }
        else if (kind == AGG && h / podHosts == index / half)
        {
            next = edges->Get(h / half);
        }
        else if (kind == CORE)
        {
            // core c reaches pod p through aggregation switch c / (k/2) of it
            next = aggs->Get((h / podHosts) * half + index / half);
        }
        else
        {
            // up: the flow's path names the choice (the TCP ports follow the IP header)
            uint8_t b[4] = {0, 0, 0, 0};
            p->CopyData(b, 4);
            uint16_t sport = uint16_t(b[0] << 8 | b[1]);
            uint16_t dport = uint16_t(b[2] << 8 | b[3]);
            bool data = dport >= BASE_PORT && dport < BASE_PORT + g_flows.size();
            uint32_t f = (data ? dport : sport) - BASE_PORT;
            NS_ABORT_MSG_IF(f >= g_flows.size(), "a packet of no flow: ports " << sport << " -> " << dport);
            uint32_t kindIdx = data ? 0 : 1;
            if (kind == EDGE)
            {
                next = aggs->Get((index / half) * half + g_flows[f].agg[kindIdx]);
            }
            else
            {
                next = cores->Get((index % half) * half + g_flows[f].core[kindIdx]);
            }
        }
        ucb(Via(header, port.at(next->GetId()), header.GetSource()), p, header);
        return true;
    }

};

// "src:dst:jd:id:ja:ia,..." -> flows; false on a malformed one.
bool
ParseFlows(const std::string& s, uint32_t hosts, uint32_t half)
{
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
    {
        FlowSpec f;
        char c1, c2, c3, c4, c5;
        std::stringstream one(item);
        if (!(one >> f.src >> c1 >> f.dst >> c2 >> f.agg[0] >> c3 >> f.core[0] >> c4 >> f.agg[1] >> c5 >>
              f.core[1]) ||
            c1 != ':' || c2 != ':' || c3 != ':' || c4 != ':' || c5 != ':' || f.src >= hosts || f.dst >= hosts ||
            f.src == f.dst || f.agg[0] >= half || f.core[0] >= half || f.agg[1] >= half || f.core[1] >= half)
        {
            std::fprintf(stderr, "--flows: bad flow '%s' (src:dst:jd:id:ja:ia, hosts < %u, choices < %u)\n",
                         item.c_str(), hosts, half);
            return false;
        }
        g_flows.push_back(f);
    }
    return !g_flows.empty();
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string rate = "10Gbps";
    double delayUs = 1;
    uint32_t mss = 8960;
    uint32_t iw = 10;
    uint32_t ssthresh = 15;
    double alphaInit = 0;
    double g = 0.0625;
    uint64_t buffer = 900000;
    uint64_t ecnK = 135000;
    double rtoMinMs = 250;
    double rtoInitMs = 10;
    double stop = 0.21;
    std::string flows;
    CommandLine cmd;
    cmd.AddValue("k", "fat-tree arity (even, >= 4)", g_k);
    cmd.AddValue("rate", "every link's rate", rate);
    cmd.AddValue("delay-us", "every link's propagation delay, µs", delayUs);
    cmd.AddValue("mss", "segment size, bytes (no TCP options: 40 B of headers)", mss);
    cmd.AddValue("iw", "initial window, segments", iw);
    cmd.AddValue("ssthresh", "initial ssthresh, segments", ssthresh);
    cmd.AddValue("alpha-init", "DCTCP's alpha before the first window of feedback", alphaInit);
    cmd.AddValue("g", "DCTCP's gain g", g);
    cmd.AddValue("buffer", "switch port buffer, bytes", buffer);
    cmd.AddValue("ecn-k", "switch ports mark CE above this many bytes queued", ecnK);
    cmd.AddValue("rto-min-ms", "MinRto, ms", rtoMinMs);
    cmd.AddValue("rto-init-ms", "RTO before an RTT sample, ms", rtoInitMs);
    cmd.AddValue("stop", "seconds simulated (every flow runs to the end)", stop);
    cmd.AddValue("flows", "src:dst:jd:id:ja:ia per flow, comma-separated (see the header comment)", flows);
    cmd.Parse(argc, argv);
    if (g_k < 4 || g_k % 2 != 0)
    {
        std::fprintf(stderr, "--k must be even and >= 4, got %u\n", g_k);
        return 2;
    }
    const uint32_t half = g_k / 2;
    const uint32_t nHosts = g_k * half * half;
    if (!ParseFlows(flows, nHosts, half))
    {
        std::fprintf(stderr, "--flows: at least one flow is needed\n");
        return 2;
    }
    if (ecnK >= buffer)
    {
        std::fprintf(stderr, "--ecn-k (%lu) must be below --buffer (%lu)\n", (unsigned long)ecnK,
                     (unsigned long)buffer);
        return 2;
    }

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpDctcp::GetTypeId()));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    Config::SetDefault("ns3::TcpDctcp::DctcpAlphaOnInit", DoubleValue(alphaInit));
    Config::SetDefault("ns3::TcpDctcp::DctcpShiftG", DoubleValue(g));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(iw));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(ssthresh * mss));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1)); // dcnsim: delayed_ack = false
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    // dcnsim's rwnd = 1GB: never the limit; the sender's buffer only has
    // to stay ahead of cwnd (a 900,000 B queue bounds it)
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 30));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false)); // 40 B of headers
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));      // dcnsim: sack = false
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(rtoMinMs * 1000)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(MicroSeconds(rtoInitMs * 1000)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(NanoSeconds(1))); // dcnsim: G = 0

    NodeContainer hosts, edges, aggs, cores;
    hosts.Create(nHosts);
    edges.Create(g_k * half);
    aggs.Create(g_k * half);
    cores.Create(half * half);
    InternetStackHelper stack;
    dcnsim_ns3::RoutingHelperOf<PermRouting> routing;
    stack.SetRoutingHelper(routing);
    stack.Install(hosts);
    stack.Install(edges);
    stack.Install(aggs);
    stack.Install(cores);
    auto setUp = [&](const NodeContainer& nodes, Kind kind) {
        for (uint32_t i = 0; i < nodes.GetN(); ++i)
        {
            Ptr<PermRouting> r =
                DynamicCast<PermRouting>(nodes.Get(i)->GetObject<Ipv4>()->GetRoutingProtocol());
            r->kind = kind;
            r->index = i;
            r->hosts = &hosts;
            r->edges = &edges;
            r->aggs = &aggs;
            r->cores = &cores;
        }
    };
    setUp(hosts, HOST);
    setUp(edges, EDGE);
    setUp(aggs, AGG);
    setUp(cores, CORE);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    // jumbo frames: a whole segment in one IP packet, as dcnsim sends it
    p2p.SetDeviceAttribute("Mtu", UintegerValue(mss + 40));
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(int64_t(delayUs * 1000))));
    // A switch port is a RED queue disc used as a byte-counting drop-tail
    // queue that marks every packet arriving above K (MinTh = MaxTh = K,
    // instantaneous length), over a device queue of one packet.
    TrafficControlHelper port;
    port.SetRootQueueDisc("ns3::RedQueueDisc",
                          "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, buffer)),
                          "MeanPktSize", UintegerValue(mss + 40),
                          "MinTh", DoubleValue(double(ecnK)),
                          "MaxTh", DoubleValue(double(ecnK)),
                          "QW", DoubleValue(1.0),
                          "Gentle", BooleanValue(false),
                          "UseEcn", BooleanValue(true),
                          "UseHardDrop", BooleanValue(false),
                          "LinkBandwidth", StringValue(rate),
                          "LinkDelay", TimeValue(NanoSeconds(int64_t(delayUs * 1000))));
    uint32_t subnet = 0;
    auto link = [&](Ptr<Node> a, Ptr<Node> b, bool aIsHost) {
        auto [d, ifs] = dcnsim_ns3::LinkP2p(p2p, a, b, subnet);
        for (uint32_t s = 0; s < 2; ++s)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(d.Get(s));
            Ptr<Node> self = s == 0 ? a : b;
            Ptr<Node> peer = s == 0 ? b : a;
            Ptr<PermRouting> r = DynamicCast<PermRouting>(self->GetObject<Ipv4>()->GetRoutingProtocol());
            r->port[peer->GetId()] = {self->GetObject<Ipv4>()->GetInterfaceForDevice(dev), ifs.GetAddress(1 - s)};
            if (s == 0 && aIsHost)
            {
                // dcnsim's nic_buffer = "unlimited": the host never drops its own packets
                dev->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, 1u << 30));
            }
            else
            {
                dev->GetQueue()->SetMaxSize(QueueSize("1p"));
                Ptr<QueueDisc> q = port.Install(dev).Get(0);
                q->TraceConnectWithoutContext("Mark", MakeCallback(&CountMark));
            }
        }
        return ifs;
    };
    std::vector<Ipv4Address> hostAddr(nHosts);
    dcnsim_ns3::WireFatTree(
        g_k, hosts, edges, aggs, cores,
        [&](uint32_t h, Ptr<Node> host, Ptr<Node> edge) {
            hostAddr[h] = link(host, edge, true).GetAddress(0);
            g_hostOfAddr[hostAddr[h].Get()] = h;
        },
        [&](Ptr<Node> a, Ptr<Node> b) { link(a, b, false); });

    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyTxBegin",
                                  MakeCallback(&CountHop));
    for (uint32_t f = 0; f < g_flows.size(); ++f)
    {
        uint16_t p = BASE_PORT + f;
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), p));
        sink.Install(hosts.Get(g_flows[f].dst)).Start(Seconds(0));
        BulkSendHelper send("ns3::TcpSocketFactory", InetSocketAddress(hostAddr[g_flows[f].dst], p));
        send.SetAttribute("MaxBytes", UintegerValue(0));
        send.SetAttribute("SendSize", UintegerValue(mss));
        send.Install(hosts.Get(g_flows[f].src)).Start(Seconds(0));
    }
    Simulator::Stop(Seconds(stop));
    Simulator::Run();
    std::printf("packet_hops %lu\nmarks %lu\n", (unsigned long)g_hops, (unsigned long)g_marks);
    Simulator::Destroy();
    return 0;
}
