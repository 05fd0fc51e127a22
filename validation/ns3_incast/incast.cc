// ns-3 (3.37, Debian's libns3-dev) side of the incast differential harness
// (validation/README.md): the FaST-style partition/aggregate incast of
// issue 18 on a star, one fresh TCP connection per worker and query.
// Prints one line per query (or "query <q> unfinished ..." with the
// workers whose response never arrived):
//   query <q> fast_recoveries <k> timeouts <t> qct_us <us> drops <d> marks <m>
//   rto_kinds <q> abtt <a> whole_window <x> few_dupacks <y> many_dupacks <z>
//       ibtt_whole_window <x'> ibtt_few_dupacks <y'>   (the IBTTs among x, y)
//   worker_timeouts <q> <t_0> ... <t_n-1>   (each worker's share of <t>)
// then "packet_hops <h>" (every packet sent onto a link, host or switch);
// with --bulk=S no queries: every worker sends to the aggregator for S
// seconds (BulkSendApplication) and "bulk drops <d> marks <m>
// fast_recoveries <r> timeouts <t>" (the senders') and
// packet_hops are printed (benchmarks/ns3_side_by_side.py's 64 DCTCP bulk
// flows);
// and with --verbose one line per sender event and the drop reasons:
//   query_start <q> <time_us>
//   event <q> <worker> <time_us> recovery|rto|ssthresh <bytes>|cwnd <bytes>|state <CA_...>
//   bg_event <i> <time_us> state <CA_...>|rto <ms>|cwnd <bytes>   (--bg's flows)
//   drop_reason "<reason>" <count>
// With --two-tier=1 the FaST paper's two-tier topology replaces the star
// (experiments/fast's: five ToRs under one aggregation switch), and with
// --bg=1 a background host on ToR 1 sends a long flow to the aggregator
// before each query (after the queries, one line per such flow:
//   background <i> bytes <b> connected_us <t> done_us <t> resent_bytes <r>
// from its connection's setup to the sink's receipt of its last byte, and
// the payload it sent again (below the highest it had sent); or
//   background <i> unfinished <got> of <b> B); with --verbose and --two-tier the 10 Gbps ports'
// totals follow: "port <node> <to> marked <m> dropped <d>".
// With --karn-backoff=1 a last line "karn_backoff_kept <k>" counts the new
// ACKs after which a worker kept its backed-off RTO (below).
// A tool, not a test: validation/ns3_incast/run.py builds and drives it.
//
// Counting is on the workers' (the data senders') sockets: a fast recovery
// is a CongState transition into CA_RECOVERY; a timeout is the RTO trace
// doubling (ReTxTimeout backs m_rto off by 2, and an RTT sample cannot
// double it exactly while RTOmin = 10 ms dominates SRTT + 4 RTTVAR).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "../ns3_dctcp.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct QueryStats
{
    uint32_t fastRecoveries = 0;
    uint32_t timeouts = 0;
    uint32_t done = 0;
    uint64_t dropsAtStart = 0;
    uint64_t marksAtStart = 0;
    Time start;
    Time end;
    // per worker: its timeouts in this query (Fig. 6 of the FaST paper is
    // their distribution), sized on the first one
    std::vector<uint32_t> workerTimeouts;
    // its timeouts by what the sender had when each fired (Kulkarni's
    // Figs. 3.11-3.12, dcnsim's flows table's ibtt and rto_* columns):
    // none of its response acknowledged yet (an ABTT), and no duplicate
    // ACK since the last new ACK (the whole window lost), one or two, or
    // three or more (dupthresh)
    uint32_t abtt = 0;
    uint32_t wholeWindow = 0;
    uint32_t fewDupacks = 0;
    uint32_t manyDupacks = 0;
    // the IBTTs (not ABTTs) among wholeWindow and fewDupacks
    uint32_t ibttWholeWindow = 0;
    uint32_t ibttFewDupacks = 0;
};

std::vector<QueryStats> g_q;
uint32_t g_n = 30;
uint32_t g_response = 10000;
uint32_t g_request = 64;
uint64_t g_drops = 0;
uint64_t g_marks = 0;
bool g_verbose = false;
bool g_persistent = false;
uint32_t g_cur = 0;      // the query running (persistent connections)
uint32_t g_queries = 20;
double g_gap = 0.01;     // persistent: seconds from a query's end to the next
uint64_t g_hops = 0;     // packets sent onto a link (PhyTxBegin on every device)

void
CountHop(Ptr<const Packet>)
{
    g_hops++;
}

uint32_t
QueryOf(uint32_t q)
{
    return q == UINT32_MAX ? g_cur : q;
}

// Per (query, worker): bytes the worker has read / the aggregator has read.
std::vector<std::vector<uint32_t>> g_workerGot;
std::vector<std::vector<bool>> g_answered;
std::vector<std::vector<uint32_t>> g_aggGot;
std::vector<std::vector<Ptr<Socket>>> g_aggSock;
std::vector<std::vector<Ptr<Socket>>> g_listen;

void
CongStateChange(uint32_t q,
                uint32_t w,
                TcpSocketState::TcpCongState_t from,
                TcpSocketState::TcpCongState_t to)
{
    q = QueryOf(q);
    if (g_verbose && to != from)
    {
        std::printf("event %u %u %.3f state %s\n", q, w, Simulator::Now().GetMicroSeconds() * 1.0,
                    TcpSocketState::TcpCongStateName[to]);
    }
    if (to == TcpSocketState::CA_RECOVERY && from != TcpSocketState::CA_RECOVERY)
    {
        g_q[q].fastRecoveries++;
        if (g_verbose)
        {
            std::printf("event %u %u %.3f recovery\n", q, w, Simulator::Now().GetMicroSeconds() * 1.0);
        }
    }
}

// The end of the highest sequence a socket has sent (its `Tx` trace's
// data segments): whatever it sends below that it sends again.
struct SentEdge
{
    bool any = false;
    SequenceNumber32 end{0};

    // Note a data segment; returns how many of its bytes were sent before.
    uint32_t Note(SequenceNumber32 start, uint32_t len)
    {
        uint32_t again = any && start < end ? std::min<uint32_t>(len, end - start) : 0;
        if (!any || start + len > end)
        {
            end = start + len;
        }
        any = true;
        return again;
    }
};

// What a worker's socket has seen of its ACKs and sent of its responses,
// for classifying its timeouts; keyed by the accept tag (a query, or
// UINT32_MAX on persistent connections) and the worker.
struct SenderTrack
{
    bool haveAck = false;
    SequenceNumber32 lastAck{0};
    uint32_t dupacks = 0;
    SentEdge sent;
    // the first byte of the response being sent; set by the first data
    // segment when the response is written before any other was sent
    SequenceNumber32 blockStart{0};
    bool awaitingStart = true;
    // in fast recovery (CA_RECOVERY): a partial ACK there is new but does
    // not end the duplicate ACKs' count, as dcnsim's sender keeps it
    // (recovery's timeouts are its `rto_many_dupacks`), so a timeout in
    // recovery counts the duplicate ACKs that started it
    bool inRecovery = false;
};

std::map<uint64_t, SenderTrack> g_track;

SenderTrack&
Track(uint32_t tag, uint32_t w)
{
    return g_track[(uint64_t(tag) << 32) | w];
}

// An arriving segment without data that acknowledges nothing new is a
// duplicate ACK (RFC 5681's, less its window test: ns-3's windows here
// do not move), counted until the next new ACK outside fast recovery, the
// end of fast recovery, or a timeout.
void
WorkerRx(uint32_t tag, uint32_t w, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (!(h.GetFlags() & TcpHeader::ACK) || (h.GetFlags() & (TcpHeader::SYN | TcpHeader::FIN)))
    {
        return;
    }
    SenderTrack& t = Track(tag, w);
    SequenceNumber32 ack = h.GetAckNumber();
    if (!t.haveAck || ack > t.lastAck)
    {
        t.haveAck = true;
        t.lastAck = ack;
        if (!t.inRecovery)
        {
            t.dupacks = 0;
        }
    }
    else if (ack == t.lastAck && p->GetSize() == 0)
    {
        t.dupacks++;
    }
}

void
WorkerTx(uint32_t tag, uint32_t w, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    uint32_t len = p->GetSize();
    if (len == 0)
    {
        return;
    }
    SenderTrack& t = Track(tag, w);
    if (t.awaitingStart)
    {
        t.blockStart = h.GetSequenceNumber();
        t.awaitingStart = false;
    }
    t.sent.Note(h.GetSequenceNumber(), len);
}

void
WorkerState(uint32_t tag, uint32_t w, TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
    SenderTrack& t = Track(tag, w);
    t.inRecovery = to == TcpSocketState::CA_RECOVERY;
    if (from == TcpSocketState::CA_RECOVERY && !t.inRecovery)
    {
        t.dupacks = 0;
    }
}

// A response is written: its first byte is the next new one.
void
ResponseStarts(uint32_t tag, uint32_t w)
{
    SenderTrack& t = Track(tag, w);
    if (t.sent.any)
    {
        t.blockStart = t.sent.end;
        t.awaitingStart = false;
    }
    else
    {
        t.awaitingStart = true;
    }
}

void
RtoChange(uint32_t q, uint32_t w, Time oldVal, Time newVal)
{
    uint32_t tag = q;
    q = QueryOf(q);
    if (oldVal.IsStrictlyPositive() && newVal == oldVal * 2)
    {
        SenderTrack& t = Track(tag, w);
        bool abtt = !t.haveAck || t.lastAck <= t.blockStart;
        if (abtt)
        {
            g_q[q].abtt++;
        }
        (t.dupacks == 0 ? g_q[q].wholeWindow : t.dupacks < 3 ? g_q[q].fewDupacks : g_q[q].manyDupacks)++;
        if (!abtt && t.dupacks < 3)
        {
            (t.dupacks == 0 ? g_q[q].ibttWholeWindow : g_q[q].ibttFewDupacks)++;
        }
        t.dupacks = 0;
        g_q[q].timeouts++;
        std::vector<uint32_t>& per = g_q[q].workerTimeouts;
        per.resize(std::max<size_t>(per.size(), g_n), 0);
        per[w]++;
        if (g_verbose)
        {
            std::printf("event %u %u %.3f rto\n", q, w, Simulator::Now().GetMicroSeconds() * 1.0);
        }
    }
}

void
SsthreshChange(uint32_t q, uint32_t w, uint32_t, uint32_t newVal)
{
    if (g_verbose)
    {
        std::printf("event %u %u %.3f ssthresh %u\n", QueryOf(q), w, Simulator::Now().GetMicroSeconds() * 1.0, newVal);
    }
}

void
CwndChange(uint32_t q, uint32_t w, uint32_t, uint32_t newVal)
{
    if (g_verbose)
    {
        std::printf("event %u %u %.3f cwnd %u\n", QueryOf(q), w, Simulator::Now().GetMicroSeconds() * 1.0, newVal);
    }
}

void
QueueDrop(Ptr<const QueueDiscItem>)
{
    g_drops++;
}

std::map<std::string, uint64_t> g_dropReasons;

// --verbose with --two-tier: the 10 Gbps ports' totals at the end
// ("port <node> <to> marked <m> dropped <d>", dcnsim's queues table's
// names), where the aggregator's port is the one the query lines count
std::vector<std::pair<std::string, Ptr<QueueDisc>>> g_ports;

void
QueueDropReason(Ptr<const QueueDiscItem>, const char* reason)
{
    g_dropReasons[reason]++;
}

// Marks are counted on the packets the queue takes: RedQueueDisc marks
// (and fires its Mark trace) before its internal queue refuses a packet for
// lack of room, so its Mark trace also counts packets then dropped; dcnsim
// marks only the packets it enqueues.
void
QueueEnqueue(Ptr<const QueueDiscItem> item)
{
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (ip && ip->GetHeader().GetEcn() == Ipv4Header::ECN_CE)
    {
        g_marks++;
    }
}

// What each worker's socket still has to write of its responses: with
// --sndbuf below a response the worker writes it as the send buffer frees
// (one write when it fits, as before --sndbuf).
std::map<Ptr<Socket>, uint64_t> g_responseLeft;

void
WorkerSend(Ptr<Socket> s, uint32_t)
{
    auto it = g_responseLeft.find(s);
    while (it != g_responseLeft.end() && it->second > 0 && s->GetTxAvailable() > 0)
    {
        uint32_t n = uint32_t(std::min<uint64_t>(it->second, s->GetTxAvailable()));
        int sent = s->Send(Create<Packet>(n));
        if (sent <= 0)
        {
            break;
        }
        it->second -= sent;
    }
}

void
WorkerRecv(uint32_t q, uint32_t w, Ptr<Socket> s)
{
    uint32_t tag = q;
    q = QueryOf(q);
    Ptr<Packet> p;
    while ((p = s->Recv()))
    {
        g_workerGot[q][w] += p->GetSize();
    }
    if (!g_answered[q][w] && g_workerGot[q][w] >= g_request)
    {
        g_answered[q][w] = true;
        ResponseStarts(tag, w);
        g_responseLeft[s] += g_response;
        WorkerSend(s, 0);
    }
}

void Query(uint32_t q);

// --bg: one flow of `bytes` to the aggregator's sink, written a segment at
// a time as the send buffer frees, never closed (its size is all a query
// needs of it). ns-3.37 crashes on such a long flow (TcpRateLinux::SkbSent
// on a null item, from SendPendingData) once its losses meet a receive
// window below its 1 MB send buffer, with BulkSendApplication as with this:
// run.py gives --bg runs 1 MB windows (--rcvbuf).
struct Background
{
    Ptr<Socket> socket;
    uint32_t left;
    // for its throughput (FaST's Fig. 9): from the connection's setup (the
    // first data can leave then; dcnsim's flows have no handshake) to the
    // sink's receipt of its last byte, counted by its source port
    uint32_t bytes = 0;
    uint32_t got = 0;
    Time connected;
    Time done;
    // payload it sent again: below the end of the highest it had sent
    SentEdge sent;
    uint64_t resent = 0;
};

std::vector<Background> g_bg;
uint32_t g_bgChunk = 1460;
std::map<uint16_t, size_t> g_bgByPort;

void
BackgroundRx(Ptr<const Packet> p, const Address& from, const Address&)
{
    auto it = g_bgByPort.find(InetSocketAddress::ConvertFrom(from).GetPort());
    if (it == g_bgByPort.end())
    {
        return;
    }
    Background& b = g_bg[it->second];
    b.got += p->GetSize();
    if (b.got >= b.bytes && b.done.IsZero())
    {
        b.done = Simulator::Now();
    }
}

void
BackgroundSend(size_t i, Ptr<Socket> s, uint32_t)
{
    Background& b = g_bg[i];
    while (b.left > 0 && s->GetTxAvailable() > 0)
    {
        // a segment at a time, as an application's writes (the send buffer
        // splits and merges them when it sends)
        uint32_t n = std::min({b.left, s->GetTxAvailable(), g_bgChunk});
        int sent = s->Send(Create<Packet>(n));
        if (sent <= 0)
        {
            break;
        }
        b.left -= sent;
    }
}

// --verbose: the background flow's own course, as the workers' events
//   bg_event <i> <time_us> state <CA_...>|rto <ms>|cwnd <bytes>
void
BackgroundState(size_t i, TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
    if (to != from)
    {
        std::printf("bg_event %zu %.3f state %s\n", i, Simulator::Now().GetMicroSeconds() * 1.0,
                    TcpSocketState::TcpCongStateName[to]);
    }
}

void
BackgroundRto(size_t i, Time, Time rto)
{
    std::printf("bg_event %zu %.3f rto %.3f\n", i, Simulator::Now().GetMicroSeconds() * 1.0, rto.GetMicroSeconds() / 1e3);
}

void
BackgroundCwnd(size_t i, uint32_t, uint32_t cwnd)
{
    std::printf("bg_event %zu %.3f cwnd %u\n", i, Simulator::Now().GetMicroSeconds() * 1.0, cwnd);
}

void
BackgroundTx(size_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0)
    {
        g_bg[i].resent += g_bg[i].sent.Note(h.GetSequenceNumber(), p->GetSize());
    }
}

void
BackgroundConnected(size_t i, Ptr<Socket> s)
{
    g_bg[i].connected = Simulator::Now();
    BackgroundSend(i, s, 0);
}

void
StartBackground(Ptr<Node> host, Ipv4Address to, uint32_t bytes)
{
    Ptr<Socket> s = Socket::CreateSocket(host, TcpSocketFactory::GetTypeId());
    s->Bind();
    g_bg.push_back({s, bytes});
    size_t i = g_bg.size() - 1;
    g_bg[i].bytes = bytes;
    Address local;
    s->GetSockName(local);
    g_bgByPort[InetSocketAddress::ConvertFrom(local).GetPort()] = i;
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&BackgroundTx, i));
    if (g_verbose)
    {
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&BackgroundState, i));
        s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&BackgroundRto, i));
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&BackgroundCwnd, i));
    }
    s->SetSendCallback(MakeBoundCallback(&BackgroundSend, i));
    s->SetConnectCallback(MakeBoundCallback(&BackgroundConnected, i), MakeNullCallback<void, Ptr<Socket>>());
    s->Connect(InetSocketAddress(to, 9));
}

// --reno-entry=1 (an experiment): without SACK and Limited Transmit,
// TcpSocketBase counts only the third duplicate ACK as a segment that has
// left the network (AddRenoSack runs in CA_DISORDER only when
// LimitedTransmit is on, and once in EnterRecovery), so in recovery its
// pipe holds two segments more than RFC 5681 §3.2's cwnd = ssthresh +
// 3·SMSS allows for, and its first new segment waits two duplicate ACKs
// longer. This counts the first two as well, when recovery begins (the
// state's trace runs inside EnterRecovery before the retransmission and
// the first send; ssthresh, computed after it from the pipe, is RFC
// 5681's only with --flightsize=1).
bool g_renoEntry = false;

void
RenoEntry(Ptr<TcpSocketBase> s, TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
    if (to == TcpSocketState::CA_RECOVERY && from != TcpSocketState::CA_RECOVERY)
    {
        Ptr<TcpTxBuffer> tx = s->GetTxBuffer();
        tx->AddRenoSack();
        tx->AddRenoSack();
    }
}

void
WorkerAccept(uint32_t q, uint32_t w, Ptr<Socket> s, const Address&)
{
    if (g_renoEntry)
    {
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&RenoEntry, DynamicCast<TcpSocketBase>(s)));
    }
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongStateChange, q, w));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&RtoChange, q, w));
    s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&SsthreshChange, q, w));
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&CwndChange, q, w));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&WorkerState, q, w));
    s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&WorkerRx, q, w));
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&WorkerTx, q, w));
    s->SetRecvCallback(MakeBoundCallback(&WorkerRecv, q, w));
    s->SetSendCallback(MakeCallback(&WorkerSend));
}

void
AggRecv(uint32_t q, uint32_t w, Ptr<Socket> s)
{
    q = QueryOf(q);
    Ptr<Packet> p;
    bool was = g_aggGot[q][w] >= g_response;
    while ((p = s->Recv()))
    {
        g_aggGot[q][w] += p->GetSize();
    }
    if (!was && g_aggGot[q][w] >= g_response)
    {
        if (++g_q[q].done == g_n)
        {
            g_q[q].end = Simulator::Now();
            if (g_persistent && q + 1 < g_queries)
            {
                Simulator::Schedule(Seconds(g_gap), &Query, q + 1);
            }
        }
    }
}

void
Connect(uint32_t q, Ptr<Node> agg, std::vector<Ipv4Address> addrs)
{
    for (uint32_t w = 0; w < g_n; ++w)
    {
        Ptr<Socket> s = Socket::CreateSocket(agg, TcpSocketFactory::GetTypeId());
        s->Bind();
        s->Connect(InetSocketAddress(addrs[w], 5000 + q));
        s->SetRecvCallback(MakeBoundCallback(&AggRecv, g_persistent ? UINT32_MAX : q, w));
        for (uint32_t r = q; r < (g_persistent ? g_queries : q + 1); ++r)
        {
            g_aggSock[r][w] = s;
        }
    }
}

// --host-jitter: a worker's link that delivers each packet it carries from
// the worker U[0, jitter] later than its delay alone (never reordering: the
// jitter must stay below a segment's serialization). Without it every
// ACK-clocked arrival at the port lands on the port's departure grid, so
// two arrivals tie to the picosecond and ns-3's scheduling order (the
// event scheduled first runs first) decides which one a nearly full buffer
// keeps; dcnsim's `host_jitter` (or its seeded `ties`) takes that order
// away, and this puts ns-3 on the same footing (validation/README.md,
// "Kulkarni's Table 3.1: the timeouts sorted").
class JitterChannel : public PointToPointChannel
{
  public:
    Ptr<PointToPointNetDevice> m_from; // the worker's end
    Ptr<UniformRandomVariable> m_u;
    uint64_t m_maxPs = 0;

    bool TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime) override
    {
        if (src != m_from || m_maxPs == 0)
        {
            return PointToPointChannel::TransmitStart(p, src, txTime);
        }
        // the base schedules the far end's receipt from the time it is called
        Simulator::Schedule(PicoSeconds(uint64_t(m_u->GetValue(0, double(m_maxPs)))),
                            &JitterChannel::Late, this, p->Copy(), src, txTime);
        return true;
    }

  private:
    void Late(Ptr<Packet> p, Ptr<PointToPointNetDevice> src, Time txTime)
    {
        PointToPointChannel::TransmitStart(p, src, txTime);
    }
};

// PointToPointHelper::Install's link (devices, their one-packet queues with
// flow control, the channel) on a JitterChannel: the helper's channel type
// is fixed
NetDeviceContainer
JitteredLink(Ptr<Node> worker, Ptr<Node> sw, const std::string& delay, uint64_t maxPs,
             Ptr<UniformRandomVariable> u)
{
    NetDeviceContainer c;
    Ptr<JitterChannel> ch = CreateObject<JitterChannel>();
    ch->SetAttribute("Delay", StringValue(delay));
    ch->m_u = u;
    ch->m_maxPs = maxPs;
    for (Ptr<Node> n : {worker, sw})
    {
        Ptr<PointToPointNetDevice> d = CreateObject<PointToPointNetDevice>();
        d->SetAttribute("DataRate", StringValue("1Gbps"));
        d->SetAddress(Mac48Address::Allocate());
        n->AddDevice(d);
        Ptr<Queue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
        q->SetAttribute("MaxSize", StringValue("1p"));
        d->SetQueue(q);
        Ptr<NetDeviceQueueInterface> ndqi = CreateObject<NetDeviceQueueInterface>();
        ndqi->GetTxQueue(0)->ConnectQueueTraces(q);
        d->AggregateObject(ndqi);
        d->Attach(ch);
        c.Add(d);
    }
    ch->m_from = DynamicCast<PointToPointNetDevice>(c.Get(0));
    return c;
}

Ptr<UniformRandomVariable> g_requestJitter;
uint64_t g_requestJitterPs = 0;

void
SendRequest(uint32_t q, uint32_t w)
{
    g_aggSock[q][w]->Send(Create<Packet>(g_request));
}

void
Query(uint32_t q)
{
    g_cur = q;
    g_q[q].start = Simulator::Now();
    if (g_verbose)
    {
        // run.py --rto-timeline reads each RTO's time from the query's start
        std::printf("query_start %u %.3f\n", q, Simulator::Now().GetMicroSeconds() * 1.0);
    }
    g_q[q].dropsAtStart = g_drops;
    g_q[q].marksAtStart = g_marks;
    for (uint32_t w = 0; w < g_n; ++w)
    {
        if (g_requestJitter)
        {
            // each request after U[0, --request-jitter] (ns-2's in Kulkarni's
            // dissertation; dcnsim's sync_reads `jitter`), drawn from
            // --RngRun's stream
            Simulator::Schedule(PicoSeconds(uint64_t(g_requestJitter->GetValue(0, double(g_requestJitterPs)))),
                                &SendRequest, q, w);
        }
        else
        {
            SendRequest(q, w);
        }
    }
}

} // namespace

namespace ns3
{

// Opt-in work-arounds for the two ns-3.37 behaviours that together stall a
// persistent DCTCP connection (validation/README.md has the trace): a
// flow's last ACK of a response lands exactly on the CWR recovery point,
// so it stays in CA_CWR with PRR's cwnd (here 1312 B < one segment, from
// an ssthresh of 1630 B that TcpDctcp::GetSsThresh did not floor), and
// with nothing outstanding no segment of the next response is ever sent.

uint32_t g_dctcpCeAck = 0; // 0: TcpDctcp's; 1: prior data; 2: and this segment at once
bool g_dctcpLossHalve = false;
bool g_lossExitAck = false;
bool g_flightSize = false;

// --loss-exit-ack=1 (an experiment): the ACK that ends CA_LOSS grows cwnd
// as any ACK of new data does (RFC 5681 §3.1: slow start or congestion
// avoidance). TcpSocketBase passes IncreaseWindow only the segments beyond
// m_recover there, none when the ACK is exactly the recovery point (a
// response whose last segments an RTO resent), so that ACK grows nothing.
template <class Base>
class LossExitAck : public Base
{
  public:
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override
    {
        m_exitingLoss = g_lossExitAck && tcb->m_congState == TcpSocketState::CA_LOSS &&
                        newState == TcpSocketState::CA_OPEN;
        Base::CongestionStateSet(tcb, newState);
    }

    // --flightsize=1 (an experiment): ssthresh from RFC 5681's FlightSize
    // (everything sent and not cumulatively acknowledged) where
    // TcpSocketBase passes BytesInFlight(), which with SACK leaves out the
    // SACKed and lost segments (RFC 6675's pipe).
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        if (g_flightSize && tcb->m_highTxMark.Get() > tcb->m_lastAckedSeq)
        {
            bytesInFlight = tcb->m_highTxMark.Get() - tcb->m_lastAckedSeq;
        }
        return Base::GetSsThresh(tcb, bytesInFlight);
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override
    {
        // ProcessAck has set m_lastAckedSeq to this ACK: keep the one before.
        m_prevAcked = m_lastAcked;
        m_lastAcked = tcb->m_lastAckedSeq;
        Base::PktsAcked(tcb, segmentsAcked, rtt);
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (m_exitingLoss && segmentsAcked == 0 && m_lastAcked > m_prevAcked)
        {
            // What this ACK acknowledged, in segments (rounded up).
            segmentsAcked = (m_lastAcked - m_prevAcked + tcb->m_segmentSize - 1) / tcb->m_segmentSize;
        }
        m_exitingLoss = false;
        Base::IncreaseWindow(tcb, segmentsAcked);
    }

  private:
    bool m_exitingLoss{false};
    SequenceNumber32 m_lastAcked{0};
    SequenceNumber32 m_prevAcked{0};
};

class TcpNewRenoX : public LossExitAck<TcpNewReno>
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpNewRenoX")
                                .SetParent<TcpNewReno>()
                                .AddConstructor<TcpNewRenoX>()
                                .SetGroupName("Internet");
        return tid;
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpNewRenoX>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(TcpNewRenoX);

class TcpLinuxRenoX : public LossExitAck<TcpLinuxReno>
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpLinuxRenoX")
                                .SetParent<TcpLinuxReno>()
                                .AddConstructor<TcpLinuxRenoX>()
                                .SetGroupName("Internet");
        return tid;
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpLinuxRenoX>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(TcpLinuxRenoX);

// --dctcp-floor=1: DCTCP's cut never below 2 segments, and --dctcp-abc=1
// its byte counting (TcpDctcpFloorOf, ../ns3_dctcp.h).
class TcpDctcpFloor : public TcpDctcpFloorOf<LossExitAck<TcpDctcp>>
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpDctcpFloor")
                                .SetParent<TcpDctcp>()
                                .AddConstructor<TcpDctcpFloor>()
                                .SetGroupName("Internet");
        return tid;
    }

    TcpDctcpFloor() = default;

    TcpDctcpFloor(const TcpDctcpFloor& sock) = default;

    std::string GetName() const override
    {
        return "TcpDctcpFloor";
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpDctcpFloor>(this);
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        // the floor's cut, which also clears the byte count
        uint32_t cut = TcpDctcpFloorOf::GetSsThresh(tcb, bytesInFlight);
        // --dctcp-loss-halve=1 (an experiment): TcpDctcp answers every
        // congestion signal with (1 − α/2)·cwnd, losses too; RFC 8257 §3.4
        // answers a loss as standard TCP, max(FlightSize/2, 2·SMSS). A
        // call is an ECN cut when an ECE just arrived outside fast recovery
        // (EnterCwr), a loss otherwise (EnterRecovery sets CA_RECOVERY
        // first; an RTO right after an ECE counts as ECN: approximate).
        bool ecn = tcb->m_congState != TcpSocketState::CA_RECOVERY &&
                   tcb->m_ecnState == TcpSocketState::ECN_ECE_RCVD;
        if (g_dctcpLossHalve && !ecn)
        {
            return std::max(bytesInFlight / 2, 2 * tcb->m_segmentSize);
        }
        return cut;
    }

    // --dctcp-ce-ack=1 (an experiment): the receiver's immediate ACK on a
    // change of the CE state acknowledges the segments that arrived before
    // this one, with the old state's ECE (RFC 8257 §3.2; Linux's
    // dctcp_ece_ack_update). TcpDctcp::CeState0to1/1to0 send it with
    // m_priorRcvNxt, which they update only on a state change, so the ACK
    // number is that of the previous change: below what the receiver holds,
    // even below an ACK it already sent. The socket raises the CE events
    // before it adds the segment to its buffer, so NextRxSequence() is the
    // right number here. Everything else stays TcpDctcp's.
    // --dctcp-ce-ack=2: and, as Linux's dctcp_ece_ack_update also does
    // (ICSK_ACK_NOW), the segment that changed the state is acknowledged at
    // once, with the new state's ECE, instead of waiting for the delayed-ACK
    // count or timer (AckThisAtOnce).
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override
    {
        if (!g_dctcpCeAck)
        {
            TcpDctcp::CwndEvent(tcb, event);
            return;
        }
        switch (event)
        {
        case TcpSocketState::CA_EVENT_ECN_IS_CE:
            if (!m_ce && m_ackReserved)
            {
                tcb->m_sendEmptyPacketCallback(TcpHeader::ACK);
            }
            if (!m_ce && g_dctcpCeAck >= 2)
            {
                AckThisAtOnce(tcb, TcpHeader::ACK | TcpHeader::ECE);
            }
            m_ce = true;
            tcb->m_ecnState = TcpSocketState::ECN_CE_RCVD;
            break;
        case TcpSocketState::CA_EVENT_ECN_NO_CE:
            if (m_ce && m_ackReserved)
            {
                tcb->m_sendEmptyPacketCallback(TcpHeader::ACK | TcpHeader::ECE);
            }
            if (m_ce && g_dctcpCeAck >= 2)
            {
                AckThisAtOnce(tcb, TcpHeader::ACK);
            }
            m_ce = false;
            if (tcb->m_ecnState == TcpSocketState::ECN_CE_RCVD ||
                tcb->m_ecnState == TcpSocketState::ECN_SENDING_ECE)
            {
                tcb->m_ecnState = TcpSocketState::ECN_IDLE;
            }
            break;
        case TcpSocketState::CA_EVENT_DELAYED_ACK:
            m_ackReserved = true;
            break;
        case TcpSocketState::CA_EVENT_NON_DELAYED_ACK:
            // the socket acknowledges this segment itself (a gap, or its
            // delayed-ACK count): no second ACK of it
            m_ackReserved = false;
            m_ackNow = false;
            break;
        default:
            break;
        }
    }

  private:
    // After the socket has taken the segment in (the same instant), unless
    // it acknowledged the segment itself meanwhile: one ACK, as Linux's
    // ICSK_ACK_NOW gives, never a duplicate that a sender would count.
    void AckThisAtOnce(Ptr<TcpSocketState> tcb, uint8_t flags)
    {
        m_ackNow = true;
        Ptr<TcpDctcpFloor> self(this);
        Callback<void, uint8_t> send = tcb->m_sendEmptyPacketCallback;
        Simulator::ScheduleNow([self, send, flags]() {
            if (self->m_ackNow)
            {
                self->m_ackNow = false;
                self->m_ackReserved = false;
                send(flags);
            }
        });
    }

    bool m_ce{false};
    bool m_ackReserved{false};
    bool m_ackNow{false};
};

NS_OBJECT_ENSURE_REGISTERED(TcpDctcpFloor);

// TcpPrrCwrExit (--cwr-exit=1): ../ns3_dctcp.h, shared with ns3_outcast.

bool g_eceRecovery = false;
uint64_t g_eceKept = 0; // ECE ACKs that arrived in loss recovery and did not enter CWR
bool g_karnBackoff = false;
uint64_t g_karnKept = 0; // new ACKs after which a backed-off RTO was kept

// --ece-recovery=1 (an experiment): an ECE that arrives during loss
// recovery (CA_RECOVERY, or CA_LOSS after an RTO) does not enter CWR.
// TcpSocketBase::ReceivedAck enters CWR on every new ECE outside CA_CWR,
// so in CA_LOSS an ECE ACK ends loss recovery below its recovery point and
// cuts the window a second time for the same loss (docs/model.md, ns-3's
// departure 4). Linux's tcp_enter_cwr acts only below CA_CWR, and dcnsim
// ignores ECE in loss recovery. The ECE is recorded as the base records it
// (m_ecnEchoSeq, ECN_ECE_RCVD), so the base does not act on it again and
// DCTCP still counts the ACK's bytes as marked. The workers' sockets are of
// this class (their listeners', whose accepted connections are its forks).
//
// --karn-backoff=1 (an experiment): a backed-off RTO is kept until an ACK
// yields an RTT sample, as Karn's algorithm keeps it (RFC 6298 §5: the RTO
// collapses once "a new RTT measurement is obtained"; ns-2's TcpAgent ends
// its backoff only on a timed, never-resent segment, and dcnsim keeps it
// alike). TcpSocketBase::NewAck recomputes m_rto from the estimator on
// every ACK of new data, so an ACK of resent data alone, which Karn's rule
// leaves unsampled, ends the backoff there.
class TcpSocketEceRecovery : public TcpSocketBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpSocketEceRecovery")
                                .SetParent<TcpSocketBase>()
                                .AddConstructor<TcpSocketEceRecovery>()
                                .SetGroupName("Internet");
        return tid;
    }

    TcpSocketEceRecovery() = default;

    TcpSocketEceRecovery(const TcpSocketEceRecovery& sock) = default;

  protected:
    Ptr<TcpSocketBase> Fork() override
    {
        return CopyObject<TcpSocketEceRecovery>(this);
    }

    void ReceivedAck(Ptr<Packet> packet, const TcpHeader& tcpHeader) override
    {
        const SequenceNumber32 ack = tcpHeader.GetAckNumber();
        const TcpSocketState::TcpCongState_t st = m_tcb->m_congState;
        // the base's test of a new ECE (ReceivedAck), in loss recovery
        if (g_eceRecovery && (st == TcpSocketState::CA_LOSS || st == TcpSocketState::CA_RECOVERY) &&
            m_tcb->m_ecnState != TcpSocketState::ECN_DISABLED && (tcpHeader.GetFlags() & TcpHeader::ECE) &&
            ack > m_txBuffer->HeadSequence() && m_ecnEchoSeq.Get() < ack)
        {
            m_ecnEchoSeq = ack;
            m_tcb->m_ecnState = TcpSocketState::ECN_ECE_RCVD;
            ++g_eceKept;
        }
        TcpSocketBase::ReceivedAck(packet, tcpHeader);
    }

    void NewAck(const SequenceNumber32& seq, bool resetRTO) override
    {
        if (!g_karnBackoff)
        {
            TcpSocketBase::NewAck(seq, resetRTO);
            return;
        }
        // DoForwardUp runs EstimateRtt before the ACK reaches NewAck: a
        // sample of this ACK is counted by now
        const uint32_t samples = m_rtt->GetNSamples();
        const bool sampled = samples != m_karnSamples;
        m_karnSamples = samples;
        const Time fresh =
            Max(m_rtt->GetEstimate() + Max(m_clockGranularity, m_rtt->GetVariation() * 4), m_minRto);
        if (!resetRTO || sampled || m_rto.Get() <= fresh)
        {
            TcpSocketBase::NewAck(seq, resetRTO);
            return;
        }
        // the base without its recomputation of m_rto (left untouched, so
        // the RTO trace, which counts timeouts by its doublings, sees
        // nothing), then the timer restarted on the kept value, as the base
        // restarts it (RFC 6298 (5.3)) unless nothing is left outstanding
        ++g_karnKept;
        TcpSocketBase::NewAck(seq, false);
        if (m_retxEvent.IsRunning())
        {
            m_retxEvent.Cancel();
            m_retxEvent = Simulator::Schedule(m_rto, &TcpSocketEceRecovery::ReTxTimeout, this);
        }
    }

  private:
    uint32_t m_karnSamples = 0; // the estimator's samples at the last new ACK
};

NS_OBJECT_ENSURE_REGISTERED(TcpSocketEceRecovery);

// A worker's listening socket: TcpL4Protocol::CreateSocket's, or with
// --ece-recovery=1 or --karn-backoff=1 the same socket of the class above (the same RTT
// estimator, congestion control and recovery types, from the protocol's
// attributes; the protocol adds it to its list when it is bound).
Ptr<Socket>
WorkerSocket(Ptr<Node> node)
{
    if (!g_eceRecovery && !g_karnBackoff)
    {
        return Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
    }
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    TypeIdValue rtt;
    TypeIdValue cc;
    TypeIdValue rec;
    tcp->GetAttribute("RttEstimatorType", rtt);
    tcp->GetAttribute("SocketType", cc);
    tcp->GetAttribute("RecoveryType", rec);
    ObjectFactory f;
    f.SetTypeId(rtt.Get());
    Ptr<RttEstimator> r = f.Create<RttEstimator>();
    f.SetTypeId(cc.Get());
    Ptr<TcpCongestionOps> algo = f.Create<TcpCongestionOps>();
    f.SetTypeId(rec.Get());
    Ptr<TcpRecoveryOps> recovery = f.Create<TcpRecoveryOps>();
    Ptr<TcpSocketEceRecovery> s = CreateObject<TcpSocketEceRecovery>();
    s->SetNode(node);
    s->SetTcp(tcp);
    s->SetRtt(r);
    s->SetCongestionControlAlgorithm(algo);
    s->SetRecoveryAlgorithm(recovery);
    return s;
}

} // namespace ns3

int
main(int argc, char* argv[])
{
    std::string cc = "newreno";
    uint32_t& queries = g_queries;
    double spacing = 0.2;
    std::string buffer = "100000B";
    std::string delay = "25us";
    uint32_t k = 20;
    // RED with ECN at K on the switch ports for every transport, not only
    // DCTCP: packets that are not ECN-capable are dropped at K (dcnsim's
    // topology.ecn_non_ect = "drop")
    bool red = false;
    uint32_t mss = 1448;
    uint32_t iw = 10;
    double rtoMinMs = 10;
    bool sack = true;
    bool timestamps = true;
    bool limitedTransmit = true;
    uint32_t rcvBuf = 1 << 20;
    uint32_t sndBuf = 1 << 20;
    uint32_t delAck = 1;  // 1: every segment ACKed at once (ns-3's default is 2, with a 200 ms timer)
    bool dctcpFloor = false;
    bool cwrExit = false;
    std::string recovery = "prr";
    CommandLine cmd;
    cmd.AddValue("n", "workers", g_n);
    cmd.AddValue("cc", "newreno, linuxreno (congestion avoidance by byte counting) or dctcp", cc);
    cmd.AddValue("queries", "queries", queries);
    cmd.AddValue("spacing", "fresh: seconds between query starts", spacing);
    cmd.AddValue("persistent", "one connection per worker for all queries", g_persistent);
    cmd.AddValue("gap", "persistent: seconds from a query's end to the next", g_gap);
    cmd.AddValue("buffer", "switch port buffer (ns-3 QueueSize)", buffer);
    cmd.AddValue("delay", "the star's links: propagation delay each (ns-3 Time; Kulkarni's setup: 50us or 100us)", delay);
    cmd.AddValue("k", "ECN marking threshold, packets (dctcp, or any cc with --red)", k);
    cmd.AddValue("red", "RED with ECN at K for every cc (not ECN-capable: dropped at K)", red);
    cmd.AddValue("mss", "segment size", mss);
    cmd.AddValue("iw", "initial window, segments", iw);
    cmd.AddValue("response", "response bytes", g_response);
    cmd.AddValue("rtomin", "RTOmin, ms", rtoMinMs);
    cmd.AddValue("sack", "SACK option", sack);
    cmd.AddValue("timestamps", "timestamp option", timestamps);
    cmd.AddValue("lt", "Limited Transmit (RFC 3042)", limitedTransmit);
    cmd.AddValue("rcvbuf", "receive buffer, bytes", rcvBuf);
    cmd.AddValue("sndbuf",
                 "send buffer, bytes: ns-3.37 crashes (TcpRateLinux::SkbSent) when a flow's losses meet a receive "
                 "window below it, so a small window runs with both buffers at its size",
                 sndBuf);
    cmd.AddValue("delack", "delayed ACK: ACK every this many segments (ns-3's DelAckCount; 200 ms timer)", delAck);
    cmd.AddValue("dctcp-floor", "work-around: DCTCP's ssthresh at least 2 segments", dctcpFloor);
    cmd.AddValue("dctcp-loss-halve", "experiment (with dctcp-floor): losses halve as TCP", g_dctcpLossHalve);
    cmd.AddValue("dctcp-abc", "experiment (with dctcp-floor): RFC 3465 byte counting", g_dctcpAbc);
    cmd.AddValue("dctcp-ce-ack",
                 "experiment (with dctcp-floor): the ACK on a CE change acknowledges what arrived before (1), "
                 "and the segment that changed it at once, as Linux does (2)",
                 g_dctcpCeAck);
    cmd.AddValue("flightsize", "experiment: ssthresh from FlightSize, not pipe", g_flightSize);
    cmd.AddValue("loss-exit-ack", "experiment: the ACK ending CA_LOSS grows cwnd (RFC 5681)", g_lossExitAck);
    cmd.AddValue("reno-entry",
                 "experiment (no SACK, no Limited Transmit): recovery counts all three duplicate ACKs "
                 "(RFC 5681's ssthresh + 3 SMSS)",
                 g_renoEntry);
    cmd.AddValue("recovery",
                 "prr (ns-3's default, RFC 6937) or classic (cwnd = ssthresh on entry, RFC 6675 as dcnsim)",
                 recovery);
    cmd.AddValue("cwr-exit", "work-around: leave CWR on the ACK of the recovery point", cwrExit);
    cmd.AddValue("ece-recovery",
                 "experiment: an ECE during loss recovery (CA_RECOVERY, CA_LOSS) does not enter CWR, as in Linux "
                 "and dcnsim (the workers' sockets)",
                 g_eceRecovery);
    cmd.AddValue("karn-backoff",
                 "experiment: the workers keep a backed-off RTO until an RTT sample (Karn's algorithm, as ns-2 "
                 "and dcnsim), where ns-3.37 recomputes it on every new ACK",
                 g_karnBackoff);
    cmd.AddValue("verbose", "print per-sender events", g_verbose);
    double stopS = 0;
    cmd.AddValue("stop",
                 "seconds: when the simulation stops (0: 5 s past the last query's start, its queries a second "
                 "apart on persistent connections)",
                 stopS);
    double requestJitterUs = 0;
    cmd.AddValue("request-jitter",
                 "microseconds: each request leaves U[0, this] after its query starts, from --RngRun's stream "
                 "(0: all at once)",
                 requestJitterUs);
    double hostJitterUs = 0;
    cmd.AddValue("host-jitter",
                 "microseconds: every packet a worker sends reaches its switch U[0, this] later, from --RngRun's "
                 "stream (0: none; below a segment's serialization, so no reordering; the star only)",
                 hostJitterUs);
    double bulk = 0;
    cmd.AddValue("bulk", "no queries: every worker sends to the aggregator for this many seconds", bulk);
    std::string pcap;
    bool pcapAll = false;
    cmd.AddValue("pcap", "write a pcap of the aggregator's interface to this prefix", pcap);
    cmd.AddValue("pcap-all", "with --pcap: every host's interface, not only the aggregator's", pcapAll);
    bool twoTier = false;
    std::string coreBuffer = "100000B";
    std::string aggBuffer = "10000000B";
    uint32_t k10 = 65;
    cmd.AddValue("two-tier",
                 "the FaST paper's two-tier topology (experiments/fast): 5 ToRs, worker w on ToR w mod 5 and the "
                 "aggregator on ToR 0, each ToR 10 Gbps (25 us) to its own switch and on (10 Gbps, no delay) to "
                 "one aggregation switch; hosts' own queues 100 packets",
                 twoTier);
    cmd.AddValue("core-buffer", "two-tier: ToR-side buffer of the 10 Gbps links", coreBuffer);
    cmd.AddValue("agg-buffer", "two-tier: buffer of the links to the aggregation switch", aggBuffer);
    cmd.AddValue("k10", "two-tier: ECN threshold of the 10 Gbps ports, packets", k10);
    bool bg = false;
    uint32_t bgBytes = 10000000;
    double bgLead = 0.02;
    cmd.AddValue("bg",
                 "two-tier, fresh connections: a background host on ToR 1 (1 Gbps) sends a --bg-bytes flow to the "
                 "aggregator, starting --bg-lead seconds before each query (the FaST paper's Figs. 7-9)",
                 bg);
    cmd.AddValue("bg-bytes", "the background flow's bytes", bgBytes);
    cmd.AddValue("bg-lead", "seconds from a background flow's start to its query", bgLead);
    double bgLeadStep = 0;
    cmd.AddValue("bg-lead-step",
                 "query q's background flow starts --bg-lead + q times this before it (samples the flow's phase)",
                 bgLeadStep);
    cmd.Parse(argc, argv);
    g_bgChunk = mss;
    if (bg && (!twoTier || g_persistent))
    {
        NS_FATAL_ERROR("--bg: with --two-tier=1 and fresh connections (--persistent=0)");
    }
    if (g_dctcpCeAck > 2)
    {
        NS_FATAL_ERROR("--dctcp-ce-ack: 0, 1 or 2, got " << g_dctcpCeAck);
    }
    // run.py passes its --ns3-args to every cc of a table, so these change
    // nothing for the others; for DCTCP they live in TcpDctcpFloor
    if (cc == "dctcp" && !dctcpFloor && (g_dctcpCeAck || g_dctcpAbc || g_dctcpLossHalve))
    {
        NS_FATAL_ERROR("--dctcp-ce-ack, --dctcp-abc and --dctcp-loss-halve work on TcpDctcpFloor: "
                       "add --dctcp-floor=1 (run.py: --ns3-workarounds)");
    }
    if (g_eceRecovery && bulk > 0)
    {
        NS_FATAL_ERROR("--ece-recovery: the queries' workers only, not --bulk");
    }
    if (twoTier && g_n > 100)
    {
        NS_FATAL_ERROR("--two-tier: at most 100 workers (5 ToRs of 20), got --n=" << g_n);
    }
    if (g_renoEntry && (sack || limitedTransmit || bulk > 0))
    {
        // with either option ns-3 counts the first two duplicate ACKs itself
        NS_FATAL_ERROR("--reno-entry: needs --sack=0 and --lt=0, and the queries' workers (not --bulk)");
    }

    if (requestJitterUs < 0)
    {
        NS_FATAL_ERROR("--request-jitter: must be >= 0, got " << requestJitterUs);
    }
    if (hostJitterUs < 0 || hostJitterUs >= (mss + 42) * 8e-3)
    {
        NS_FATAL_ERROR("--host-jitter: must be >= 0 and below a segment's serialization ("
                       << (mss + 42) * 8e-3 << " us at 1 Gbps), got " << hostJitterUs);
    }
    if (hostJitterUs > 0 && twoTier)
    {
        NS_FATAL_ERROR("--host-jitter: the star only, not with --two-tier");
    }
    Ptr<UniformRandomVariable> hostJitter;
    if (hostJitterUs > 0)
    {
        hostJitter = CreateObject<UniformRandomVariable>();
    }
    if (requestJitterUs > 0)
    {
        g_requestJitter = CreateObject<UniformRandomVariable>();
        g_requestJitterPs = uint64_t(requestJitterUs * 1e6);
    }
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(cc == "dctcp"       ? (dctcpFloor ? TcpDctcpFloor::GetTypeId()
                                                                     : TcpDctcp::GetTypeId())
                                   : cc == "linuxreno" ? (g_lossExitAck || g_flightSize
                                                              ? TcpLinuxRenoX::GetTypeId()
                                                              : TcpLinuxReno::GetTypeId())
                                                       : (g_lossExitAck || g_flightSize
                                                              ? TcpNewRenoX::GetTypeId()
                                                              : TcpNewReno::GetTypeId())));
    if (recovery != "prr" && recovery != "classic")
    {
        NS_FATAL_ERROR("--recovery: prr or classic, got " << recovery);
    }
    if (cwrExit && recovery == "classic")
    {
        NS_FATAL_ERROR("--cwr-exit works on PRR: not with --recovery=classic");
    }
    if (cwrExit)
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpPrrCwrExit::GetTypeId()));
    }
    else if (recovery == "classic")
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpClassicRecovery::GetTypeId()));
    }
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(iw));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAck));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rcvBuf));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(limitedTransmit));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(rtoMinMs * 1000)));
    if (cc == "dctcp")
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    }

    NodeContainer hosts;
    hosts.Create(g_n + 1); // 0: aggregator
    // the star's one switch, or (two-tier) ToRs, their uplink switches and
    // the aggregation switch
    const uint32_t racks = twoTier ? 5 : 1;
    NodeContainer tors;
    tors.Create(racks);
    NodeContainer ups;
    Ptr<Node> agg;
    InternetStackHelper stack;
    stack.Install(hosts);
    stack.Install(tors);
    if (twoTier)
    {
        ups.Create(racks);
        agg = CreateObject<Node>();
        stack.Install(ups);
        stack.Install(agg);
    }

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    // The queue disc holds the packets: the device queue only one.
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    // A switch port: RED with ECN at K (DCTCP, or any cc with --red), else
    // a drop-tail FIFO, of `size`.
    // K counts full packets in bytes: a full segment's IP packet is MSS +
    // 40 B of TCP/IP header, + 12 B of timestamp option when timestamps are
    // on (1,500 B in both setups; before 2026-12, mss + 52 here gave the
    // FaST setup's MSS 1460 without timestamps 1,512 B a packet)
    const uint32_t fullPkt = mss + (timestamps ? 52 : 40);
    auto port = [&](const std::string& size, uint32_t kPkts, const std::string& rate, const std::string& delay) {
        TrafficControlHelper h;
        if (cc == "dctcp" || red)
        {
            h.SetRootQueueDisc("ns3::RedQueueDisc",
                               "MaxSize", StringValue(size),
                               "MeanPktSize", UintegerValue(fullPkt),
                               "MinTh", DoubleValue(kPkts * double(fullPkt)),
                               "MaxTh", DoubleValue(kPkts * double(fullPkt)),
                               "QW", DoubleValue(1.0),
                               "Gentle", BooleanValue(false),
                               "UseEcn", BooleanValue(true),
                               "UseHardDrop", BooleanValue(false),
                               "LinkBandwidth", StringValue(rate),
                               "LinkDelay", StringValue(delay));
        }
        else
        {
            h.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(size));
        }
        return h;
    };
    TrafficControlHelper tch = port(buffer, k, "1Gbps", delay);
    // two-tier: a host's own queue, 100 packets (dcnsim's nic_buffer there)
    TrafficControlHelper nic;
    nic.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("100p"));

    Ipv4AddressHelper ip;
    std::vector<Ipv4Address> addrs;
    Ptr<QueueDisc> bottleneck;
    for (uint32_t h = 0; h <= g_n; ++h)
    {
        NetDeviceContainer d =
            hostJitter && h > 0
                ? JitteredLink(hosts.Get(h), tors.Get(0), delay, uint64_t(hostJitterUs * 1e6), hostJitter)
                : p2p.Install(hosts.Get(h), tors.Get(h == 0 ? 0 : (h - 1) % racks));
        QueueDiscContainer qd = tch.Install(d.Get(1));
        if (twoTier)
        {
            nic.Install(d.Get(0));
        }
        if (h == 0)
        {
            bottleneck = qd.Get(0);
        }
        if (!pcap.empty() && (h == 0 || pcapAll))
        {
            p2p.EnablePcap(pcap, d.Get(0), true);
        }
        char base[32];
        std::snprintf(base, sizeof base, "10.%u.%u.0", 1 + h / 256, h % 256);
        ip.SetBase(base, "255.255.255.0");
        Ipv4InterfaceContainer ifs = ip.Assign(d);
        if (h > 0)
        {
            addrs.push_back(ifs.GetAddress(0));
        }
    }
    // the background sender (--bg): a host of its own on ToR 1
    Ptr<Node> bgHost;
    Ipv4Address rootAddr = hosts.Get(0)->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
    if (bg)
    {
        bgHost = CreateObject<Node>();
        stack.Install(bgHost);
        NetDeviceContainer d = p2p.Install(bgHost, tors.Get(1));
        tch.Install(d.Get(1));
        nic.Install(d.Get(0));
        ip.SetBase("12.0.0.0", "255.255.255.0");
        ip.Assign(d);
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
        ApplicationContainer apps = sink.Install(hosts.Get(0));
        apps.Start(Seconds(0));
        apps.Get(0)->TraceConnectWithoutContext("RxWithAddresses", MakeCallback(&BackgroundRx));
    }
    if (twoTier)
    {
        PointToPointHelper up;
        up.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        up.SetChannelAttribute("Delay", StringValue("25us"));
        up.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
        PointToPointHelper core;
        core.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        core.SetChannelAttribute("Delay", StringValue("0s"));
        core.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
        TrafficControlHelper torPort = port(coreBuffer, k10, "10Gbps", "25us");
        TrafficControlHelper aggPort = port(aggBuffer, k10, "10Gbps", "0s");
        for (uint32_t r = 0; r < racks; ++r)
        {
            NetDeviceContainer a = up.Install(tors.Get(r), ups.Get(r));
            QueueDiscContainer qa = torPort.Install(a);
            NetDeviceContainer b = core.Install(ups.Get(r), agg);
            QueueDiscContainer qb = aggPort.Install(b);
            std::string rs = std::to_string(r);
            g_ports.push_back({"tor" + rs + " up" + rs, qa.Get(0)});
            g_ports.push_back({"up" + rs + " tor" + rs, qa.Get(1)});
            g_ports.push_back({"up" + rs + " agg", qb.Get(0)});
            g_ports.push_back({"agg up" + rs, qb.Get(1)});
            for (uint32_t i = 0; i < 2; ++i)
            {
                char base[32];
                std::snprintf(base, sizeof base, "11.%u.%u.0", r, i);
                ip.SetBase(base, "255.255.255.0");
                ip.Assign(i == 0 ? a : b);
            }
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    bottleneck->TraceConnectWithoutContext("Drop", MakeCallback(&QueueDrop));
    bottleneck->TraceConnectWithoutContext("Enqueue", MakeCallback(&QueueEnqueue));
    bottleneck->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&QueueDropReason));

    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyTxBegin",
                                  MakeCallback(&CountHop));
    if (bulk > 0)
    {
        // Each worker's socket is made before its application starts, so
        // the attributes set above (ECN, SACK, ...) apply as to a query's.
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
        sink.Install(hosts.Get(0)).Start(Seconds(0));
        Ipv4Address agg = hosts.Get(0)->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
        std::vector<Ptr<BulkSendApplication>> senders;
        for (uint32_t w = 0; w < g_n; ++w)
        {
            BulkSendHelper send("ns3::TcpSocketFactory", InetSocketAddress(agg, 9));
            send.SetAttribute("MaxBytes", UintegerValue(0));
            send.SetAttribute("SendSize", UintegerValue(mss));
            ApplicationContainer a = send.Install(hosts.Get(1 + w));
            a.Start(Seconds(0));
            a.Stop(Seconds(bulk));
            senders.push_back(DynamicCast<BulkSendApplication>(a.Get(0)));
        }
        // The whole run is one "query": each sender's fast recoveries and
        // timeouts, counted as a query's are, once its socket exists (its
        // application makes it at start; nothing happens in the first ns).
        g_q.assign(1, QueryStats());
        Simulator::Schedule(NanoSeconds(1), [senders]() {
            for (uint32_t w = 0; w < senders.size(); ++w)
            {
                Ptr<Socket> s = senders[w]->GetSocket();
                s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongStateChange, 0u, w));
                s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&RtoChange, 0u, w));
            }
        });
        Simulator::Stop(Seconds(bulk));
        Simulator::Run();
        std::printf("bulk drops %lu marks %lu fast_recoveries %u timeouts %u\n", (unsigned long)g_drops,
                    (unsigned long)g_marks, g_q[0].fastRecoveries, g_q[0].timeouts);
        std::printf("packet_hops %lu\n", (unsigned long)g_hops);
        Simulator::Destroy();
        return 0;
    }
    g_q.resize(queries);
    g_workerGot.assign(queries, std::vector<uint32_t>(g_n, 0));
    g_answered.assign(queries, std::vector<bool>(g_n, false));
    g_aggGot.assign(queries, std::vector<uint32_t>(g_n, 0));
    g_aggSock.assign(queries, std::vector<Ptr<Socket>>(g_n));
    g_listen.assign(queries, std::vector<Ptr<Socket>>(g_n));
    for (uint32_t q = 0; q < (g_persistent ? 1 : queries); ++q)
    {
        uint32_t tag = g_persistent ? UINT32_MAX : q;
        for (uint32_t w = 0; w < g_n; ++w)
        {
            Ptr<Socket> l = WorkerSocket(hosts.Get(1 + w));
            l->Bind(InetSocketAddress(Ipv4Address::GetAny(), 5000 + q));
            l->Listen();
            l->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                 MakeBoundCallback(&WorkerAccept, tag, w));
            g_listen[q][w] = l;
        }
        double t0 = 0.1 + q * spacing;
        if (bg)
        {
            Simulator::Schedule(Seconds(t0 - bgLead - q * bgLeadStep), &StartBackground, bgHost, rootAddr, bgBytes);
        }
        // Connections open 20 ms early: the handshake is over (and has
        // given the RTT sample) when the request goes out.
        Simulator::Schedule(Seconds(t0 - 0.02), &Connect, q, hosts.Get(0), addrs);
        if (!g_persistent || q == 0)
        {
            Simulator::Schedule(Seconds(t0), &Query, q);
        }
    }
    Simulator::Stop(Seconds(stopS > 0 ? stopS : 0.1 + queries * (g_persistent ? 1.0 : spacing) + 5));
    Simulator::Run();
    for (uint32_t q = 0; q < queries; ++q)
    {
        const QueryStats& s = g_q[q];
        if (s.done < g_n)
        {
            // Never finished (a stalled flow), or never started because
            // the one before it did not finish (persistent connections).
            std::printf("query %u unfinished %u of %u responses:", q, g_n - s.done, g_n);
            for (uint32_t w = 0; w < g_n && s.start.IsStrictlyPositive(); ++w)
            {
                if (g_aggGot[q][w] < g_response)
                {
                    std::printf(" worker %u (%u B)", w, g_aggGot[q][w]);
                }
            }
            std::printf("\n");
            continue;
        }
        bool next = q + 1 < queries && g_q[q + 1].start.IsStrictlyPositive();
        uint64_t dropsEnd = next ? g_q[q + 1].dropsAtStart : g_drops;
        uint64_t marksEnd = next ? g_q[q + 1].marksAtStart : g_marks;
        std::printf("query %u fast_recoveries %u timeouts %u qct_us %.1f drops %lu marks %lu\n",
                    q, s.fastRecoveries, s.timeouts, (s.end - s.start).GetMicroSeconds() * 1.0,
                    (unsigned long)(dropsEnd - s.dropsAtStart), (unsigned long)(marksEnd - s.marksAtStart));
        std::printf("rto_kinds %u abtt %u whole_window %u few_dupacks %u many_dupacks %u "
                    "ibtt_whole_window %u ibtt_few_dupacks %u\n",
                    q, s.abtt, s.wholeWindow, s.fewDupacks, s.manyDupacks, s.ibttWholeWindow, s.ibttFewDupacks);
        std::printf("worker_timeouts %u", q);
        for (uint32_t w = 0; w < g_n; ++w)
        {
            std::printf(" %u", w < s.workerTimeouts.size() ? s.workerTimeouts[w] : 0u);
        }
        std::printf("\n");
    }
    // each background flow's throughput: its bytes over the time from its
    // connection's setup to the sink's receipt of the last of them
    for (size_t i = 0; i < g_bg.size(); ++i)
    {
        const Background& b = g_bg[i];
        if (b.done.IsZero())
        {
            std::printf("background %zu unfinished %u of %u B\n", i, b.got, b.bytes);
        }
        else
        {
            std::printf("background %zu bytes %u connected_us %.3f done_us %.3f resent_bytes %lu\n", i, b.bytes,
                        b.connected.GetNanoSeconds() / 1e3, b.done.GetNanoSeconds() / 1e3,
                        (unsigned long)b.resent);
        }
    }
    std::printf("packet_hops %lu\n", (unsigned long)g_hops);
    if (g_eceRecovery)
    {
        std::printf("ece_in_recovery %lu\n", (unsigned long)g_eceKept);
    }
    if (g_karnBackoff)
    {
        std::printf("karn_backoff_kept %lu\n", (unsigned long)g_karnKept);
    }
    if (g_verbose)
    {
        for (const auto& [name, qd] : g_ports)
        {
            const QueueDisc::Stats& st = qd->GetStats();
            std::printf("port %s marked %u dropped %u\n", name.c_str(), st.nTotalMarkedPackets,
                        st.nTotalDroppedPackets);
        }
        for (const auto& [reason, count] : g_dropReasons)
        {
            std::printf("drop_reason \"%s\" %lu\n", reason.c_str(), (unsigned long)count);
        }
    }
    Simulator::Destroy();
    return 0;
}
