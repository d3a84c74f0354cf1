//! The CPU side of a NIC as the checkers see it: the messages the CPU sends, the messages the
//! NIC delivers to it, and the completion records of sent messages.

/// A message delivered to the CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxMessage {
    pub remote_ip: u32,
    pub remote_port: u16,
    pub local_port: u16,
    pub payload: Vec<u8>,
    /// Cycle its first beat was shown.
    pub first_cycle: u64,
}

impl RxMessage {
    /// The message `hdl/common/message_echo.rs` sends back: the same payload, from the port it
    /// was sent to, to the address and port it came from.
    pub fn echo(&self) -> TxMessage {
        TxMessage { remote_ip: self.remote_ip, remote_port: self.remote_port, local_port: self.local_port, payload: self.payload.clone() }
    }
}

/// A message for the CPU to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxMessage {
    pub remote_ip: u32,
    pub remote_port: u16,
    pub local_port: u16,
    pub payload: Vec<u8>,
}

/// A completion record of a sent message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub tx_msg_id: u16,
    pub abandoned: bool,
    pub cycle: u64,
}
