//! Request/response over persistent TCP connections: clients that send requests on a schedule
//! and servers that answer each with a response of the size the schedule gives it.
//!
//! A client keeps one connection per server and class (class 0 short and high-priority, DSCP 0;
//! class 1 long, DSCP 1), opened at the start; requests on one connection are answered in order
//! (as HTTP/1.1 with pipelining, or memcached). A request is [`REQUEST_BYTES`] of payload; a
//! server answers each in its class's DSCP with the next response size of that connection's
//! list (payload bytes are zeros, so the size is agreed through the schedule, not carried in
//! the request). A request's **completion time** runs from when the client sends it to when the
//! last byte of its response arrives in order.
//!
//! A client runs its schedule open-loop (each request at its time) or closed-loop
//! ([`RpcClient::closed_loop`]: one request at a time, the next as soon as the last is answered,
//! as a memcached client issuing GETs back to back); a closed-loop request's completion time runs
//! from when it was actually sent.
//!
//! Timer id `u64::MAX` is the client's next request; the TCP host's own ids are below it.

use crate::host::{Host, HostIo};
use crate::tcp::{TcpConfig, TcpHost};
use std::any::Any;
use std::collections::{HashMap, VecDeque};

/// Payload bytes of a request.
pub const REQUEST_BYTES: u64 = 100;
/// The servers' port.
pub const SERVER_PORT: u16 = 80;
const FIRST_CLIENT_PORT: u16 = 10_000;
const NEXT_REQUEST: u64 = u64::MAX;

/// One request of a client's schedule.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Request {
    pub at_ns: f64,
    /// Index into the client's server list.
    pub server: usize,
    /// 0 short (high priority), 1 long.
    pub class: usize,
    pub response_bytes: u64,
}

/// A request answered.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Completion {
    pub class: usize,
    pub response_bytes: u64,
    pub sent_ns: f64,
    pub done_ns: f64,
}

/// The client's connection to `server` in `class` (the order `RpcClient::new` opens them in).
fn connection(server: usize, class: usize) -> usize {
    2 * server + class
}

/// The client's port for `server` and `class` (and so its connection).
pub fn client_port(server: usize, class: usize) -> u16 {
    FIRST_CLIENT_PORT + connection(server, class) as u16
}

/// A client: sends its schedule's requests and records their completions.
#[derive(Clone, Debug)]
pub struct RpcClient {
    pub tcp: TcpHost,
    schedule: Vec<Request>,
    next: usize,
    /// One request at a time ([`RpcClient::closed_loop`]).
    closed_loop: bool,
    /// Per connection: its requests in order, with the response bytes received when each is
    /// complete and when it was sent.
    waiting: Vec<VecDeque<(usize, u64, f64)>>,
    expected: Vec<u64>,
    pub completions: Vec<Completion>,
}

impl RpcClient {
    /// A client at `ip` with connections to every server of `servers` in both classes, sending
    /// `schedule` (sorted by time here).
    pub fn new(ip: u32, config: TcpConfig, servers: &[u32], mut schedule: Vec<Request>) -> Result<Self, String> {
        if servers.len() > 1000 {
            return Err(format!("{} servers: valid at most 1000 per client", servers.len()));
        }
        if let Some(r) = schedule.iter().find(|r| r.server >= servers.len() || r.class > 1) {
            return Err(format!(
                "request to server {} in class {}: valid servers 0..{}, classes 0 and 1",
                r.server,
                r.class,
                servers.len()
            ));
        }
        schedule.sort_by(|a, b| a.at_ns.total_cmp(&b.at_ns));
        let mut tcp = TcpHost::new(ip, config)?;
        for (s, &server_ip) in servers.iter().enumerate() {
            for class in 0..2 {
                let c = tcp.open(server_ip, client_port(s, class), SERVER_PORT, 0, 0.0);
                assert_eq!(c, connection(s, class), "connections are opened in their index order");
                tcp.connections[c].dscp = class as u8;
            }
        }
        let n = tcp.connections.len();
        Ok(RpcClient {
            tcp,
            schedule,
            next: 0,
            closed_loop: false,
            waiting: vec![VecDeque::new(); n],
            expected: vec![0; n],
            completions: Vec::new(),
        })
    }

    /// A client as [`RpcClient::new`] that sends its requests one at a time: each at its time at
    /// the earliest and once the one before it is answered.
    pub fn closed_loop(ip: u32, config: TcpConfig, servers: &[u32], schedule: Vec<Request>) -> Result<Self, String> {
        Ok(RpcClient { closed_loop: true, ..Self::new(ip, config, servers, schedule)? })
    }

    /// The send times of the requests sent and not answered yet.
    pub fn outstanding_since_ns(&self) -> impl Iterator<Item = f64> + '_ {
        self.waiting.iter().flatten().map(|w| w.2)
    }

    /// Requests sent and not answered yet.
    pub fn outstanding(&self) -> usize {
        self.waiting.iter().map(VecDeque::len).sum()
    }

    fn send_due(&mut self, io: &mut HostIo) {
        while let Some(r) = self.schedule.get(self.next).copied().filter(|r| r.at_ns <= io.now_ns() + 0.5) {
            if self.closed_loop && self.outstanding() > 0 {
                return;
            }
            let c = connection(r.server, r.class);
            self.expected[c] += r.response_bytes;
            let sent_ns = if self.closed_loop { io.now_ns() } else { r.at_ns };
            self.waiting[c].push_back((self.next, self.expected[c], sent_ns));
            self.tcp.send(c, REQUEST_BYTES, io);
            self.next += 1;
        }
        if let Some(r) = self.schedule.get(self.next) {
            io.set_timer_at(r.at_ns, NEXT_REQUEST);
        }
    }
}

impl Host for RpcClient {
    fn ip(&self) -> u32 {
        self.tcp.ip
    }
    fn start(&mut self, io: &mut HostIo) {
        self.send_due(io);
    }
    fn receive(&mut self, frame: Vec<u8>, io: &mut HostIo) {
        let Some(c) = self.tcp.receive_segment(&frame, io) else { return };
        let received = self.tcp.connections[c].stats.bytes_received;
        let mut answered = false;
        while let Some(&(k, needed, sent_ns)) = self.waiting.get(c).and_then(|w| w.front()) {
            if received < needed {
                break;
            }
            self.waiting[c].pop_front();
            let r = self.schedule[k];
            self.completions.push(Completion { class: r.class, response_bytes: r.response_bytes, sent_ns, done_ns: io.now_ns() });
            answered = true;
        }
        if answered && self.closed_loop {
            self.send_due(io);
        }
    }
    fn timer(&mut self, id: u64, io: &mut HostIo) {
        if id == NEXT_REQUEST {
            self.send_due(io);
        } else {
            self.tcp.timer(id, io);
        }
    }
    fn tx_done(&mut self, io: &mut HostIo) {
        self.tcp.tx_done(io);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A server: answers each request on a connection with that connection's next response size.
#[derive(Clone, Debug)]
pub struct RpcServer {
    pub tcp: TcpHost,
    /// Response sizes by (client address, client port), in request order.
    responses: HashMap<(u32, u16), VecDeque<u64>>,
    /// The size of every further response by (client address, client port).
    always: HashMap<(u32, u16), u64>,
    /// Requests answered per connection.
    answered: Vec<u64>,
    /// Requests with no response size left for them (not answered).
    pub unexpected_requests: u64,
}

impl RpcServer {
    pub fn new(ip: u32, config: TcpConfig) -> Result<Self, String> {
        Ok(RpcServer {
            tcp: TcpHost::new(ip, config)?,
            responses: HashMap::new(),
            always: HashMap::new(),
            answered: Vec::new(),
            unexpected_requests: 0,
        })
    }

    /// Appends a response size for the next request from `client_ip` on `client_port`.
    pub fn expect(&mut self, client_ip: u32, client_port: u16, response_bytes: u64) {
        self.responses.entry((client_ip, client_port)).or_default().push_back(response_bytes);
    }

    /// Answers every request from `client_ip` on `client_port` beyond the sizes given with
    /// [`RpcServer::expect`] with `response_bytes` (a memcached server of one value size).
    pub fn answer_always(&mut self, client_ip: u32, client_port: u16, response_bytes: u64) {
        self.always.insert((client_ip, client_port), response_bytes);
    }
}

impl Host for RpcServer {
    fn ip(&self) -> u32 {
        self.tcp.ip
    }
    fn receive(&mut self, frame: Vec<u8>, io: &mut HostIo) {
        let Some(c) = self.tcp.receive_segment(&frame, io) else { return };
        if self.answered.len() <= c {
            self.answered.resize(c + 1, 0);
        }
        let conn = &self.tcp.connections[c];
        let requests = conn.stats.bytes_received / REQUEST_BYTES;
        let key = (conn.peer_ip, conn.peer_port);
        while self.answered[c] < requests {
            self.answered[c] += 1;
            match self.responses.get_mut(&key).and_then(VecDeque::pop_front).or_else(|| self.always.get(&key).copied()) {
                Some(bytes) => self.tcp.send(c, bytes, io),
                None => self.unexpected_requests += 1,
            }
        }
    }
    fn timer(&mut self, id: u64, io: &mut HostIo) {
        self.tcp.timer(id, io);
    }
    fn tx_done(&mut self, io: &mut HostIo) {
        self.tcp.tx_done(io);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
