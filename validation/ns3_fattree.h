// What the ns-3 programs on a fat-tree (ns3_rps/rps.cc, ns3_outcast/outcast.cc,
// ns3_perm/perm.cc) share: point-to-point links with an address block each and
// no queue disc, the k-ary fat-tree's wiring, a listening TCP socket, and the
// frame of a routing protocol that routes by its own rules. Included by path ("../ns3_fattree.h");
// ns3_common.py rebuilds a program when this file changes.

#ifndef DCNSIM_VALIDATION_NS3_FATTREE_H
#define DCNSIM_VALIDATION_NS3_FATTREE_H

#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <utility>

namespace dcnsim_ns3
{

// Connect a and b with p2p's current attributes, give the link the next
// 10.x.y.0/24 (subnet counts the links made) and remove the queue disc
// that ns-3.37's Ipv4AddressHelper::Assign installs (FqCoDel): the device
// queue is the port.
inline std::pair<ns3::NetDeviceContainer, ns3::Ipv4InterfaceContainer>
LinkP2p(ns3::PointToPointHelper& p2p, ns3::Ptr<ns3::Node> a, ns3::Ptr<ns3::Node> b, uint32_t& subnet)
{
    ns3::NetDeviceContainer d = p2p.Install(a, b);
    char base[32];
    std::snprintf(base, sizeof base, "10.%u.%u.0", subnet / 256, subnet % 256);
    ++subnet;
    ns3::Ipv4AddressHelper ip;
    ip.SetBase(base, "255.255.255.0");
    ns3::Ipv4InterfaceContainer ifs = ip.Assign(d);
    ns3::TrafficControlHelper tch;
    tch.Uninstall(d);
    return std::make_pair(d, ifs);
}

// Wire a k-ary fat-tree: host h under edge h / (k/2); edge e to the k/2
// aggregation switches of its pod e / (k/2); aggregation switch j of a pod
// to cores j·(k/2) .. j·(k/2) + k/2 − 1. Calls onHost(h, host, edge), then
// onSwitches(a, b) for every edge-aggregation and aggregation-core pair.
template <class OnHost, class OnSwitches>
void
WireFatTree(uint32_t k, ns3::NodeContainer& hosts, ns3::NodeContainer& edges, ns3::NodeContainer& aggs,
            ns3::NodeContainer& cores, OnHost onHost, OnSwitches onSwitches)
{
    for (uint32_t h = 0; h < hosts.GetN(); ++h)
    {
        onHost(h, hosts.Get(h), edges.Get(h / (k / 2)));
    }
    for (uint32_t e = 0; e < edges.GetN(); ++e)
    {
        uint32_t pod = e / (k / 2);
        for (uint32_t j = 0; j < k / 2; ++j)
        {
            onSwitches(edges.Get(e), aggs.Get(pod * (k / 2) + j));
        }
    }
    for (uint32_t a = 0; a < aggs.GetN(); ++a)
    {
        uint32_t j = a % (k / 2);
        for (uint32_t c = 0; c < k / 2; ++c)
        {
            onSwitches(aggs.Get(a), cores.Get(j * (k / 2) + c));
        }
    }
}

// A TCP socket on node listening on port; accepted(socket, from) runs for
// each connection it accepts (all are accepted).
inline void
ListenTcp(ns3::Ptr<ns3::Node> node, uint16_t port,
          ns3::Callback<void, ns3::Ptr<ns3::Socket>, const ns3::Address&> accepted)
{
    ns3::Ptr<ns3::Socket> l = ns3::Socket::CreateSocket(node, ns3::TcpSocketFactory::GetTypeId());
    l->Bind(ns3::InetSocketAddress(ns3::Ipv4Address::GetAny(), port));
    l->Listen();
    l->SetAcceptCallback(ns3::MakeNullCallback<bool, ns3::Ptr<ns3::Socket>, const ns3::Address&>(), accepted);
}

// A routing protocol that decides each packet itself (RouteInput /
// RouteOutput): the members it leaves empty, and the node's Ipv4.
class RoutingBase : public ns3::Ipv4RoutingProtocol
{
  public:
    void NotifyInterfaceUp(uint32_t) override
    {
    }

    void NotifyInterfaceDown(uint32_t) override
    {
    }

    void NotifyAddAddress(uint32_t, ns3::Ipv4InterfaceAddress) override
    {
    }

    void NotifyRemoveAddress(uint32_t, ns3::Ipv4InterfaceAddress) override
    {
    }

    void SetIpv4(ns3::Ptr<ns3::Ipv4> ipv4) override
    {
        m_ipv4 = ipv4;
    }

    void PrintRoutingTable(ns3::Ptr<ns3::OutputStreamWrapper>, ns3::Time::Unit) const override
    {
    }

  protected:
    ns3::Ptr<ns3::Ipv4> m_ipv4;
};

// InternetStackHelper::SetRoutingHelper's argument: a fresh R on every node.
template <class R>
class RoutingHelperOf : public ns3::Ipv4RoutingHelper
{
  public:
    ns3::Ipv4RoutingHelper* Copy() const override
    {
        return new RoutingHelperOf<R>(*this);
    }

    ns3::Ptr<ns3::Ipv4RoutingProtocol> Create(ns3::Ptr<ns3::Node>) const override
    {
        return ns3::CreateObject<R>();
    }
};

} // namespace dcnsim_ns3

#endif
