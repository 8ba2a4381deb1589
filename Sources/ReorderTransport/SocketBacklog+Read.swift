import Glibc

extension SocketBacklog {
  /// Offsets in Linux' `struct tcp_info` (include/uapi/linux/tcp.h; the kernel only ever appends
  /// to it). glibc's `<netinet/tcp.h>` declares the struct only up to `tcpi_total_retrans`, without
  /// the fields read here, so the bytes are read at their offsets.
  private enum Offset {
    static let sendMSS = 16
    static let unacked = 24
    static let bytesAcked = 120  // Linux 4.1, 64-bit
    static let notSent = 144  // Linux 4.6
    static let bytesSent = 200  // Linux 4.19, 64-bit, retransmissions included
    static let bytesRetransmitted = 208  // Linux 4.19, 64-bit
    static let sendWindow = 228  // Linux 5.4
  }

  /// Bytes `getsockopt(TCP_INFO)` is asked for: the struct up to and including `tcpi_snd_wnd`.
  private static let infoBytes = 232

  /// What the kernel holds for TCP socket `fd` (one `getsockopt`); nil when it is not a TCP socket
  /// or the kernel is too old to report unsent bytes.
  static func read(socket fd: Int32) -> SocketBacklog? {
    withUnsafeTemporaryAllocation(byteCount: infoBytes, alignment: 8) { buffer -> SocketBacklog? in
      guard let base = buffer.baseAddress else { return nil }
      var length = socklen_t(infoBytes)
      guard getsockopt(fd, Int32(IPPROTO_TCP), 11 /* TCP_INFO */, base, &length) == 0 else { return nil }
      return SocketBacklog(tcpInfo: UnsafeRawBufferPointer(start: base, count: min(Int(length), infoBytes)))
    }
  }

  /// The backlog in the bytes of a `struct tcp_info` as the kernel filled them (as long as it
  /// reported); nil when they end before `tcpi_notsent_bytes`.
  ///
  /// In flight is the bytes sent and not acknowledged, counted in bytes: sent (retransmissions
  /// taken out) minus acknowledged. Unacknowledged segments times the MSS, all an older kernel
  /// reports, counts a 100-byte frame as a whole segment: 64 KiB on loopback, where one frame
  /// waiting for a delayed ACK would look like a reader 64 KiB behind.
  init?(tcpInfo info: UnsafeRawBufferPointer) {
    func field32(_ offset: Int) -> Int? {
      offset + 4 <= info.count ? Int(info.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) : nil
    }
    func field64(_ offset: Int) -> UInt64? {
      offset + 8 <= info.count ? info.loadUnaligned(fromByteOffset: offset, as: UInt64.self) : nil
    }
    guard let notSent = field32(Offset.notSent), let mss = field32(Offset.sendMSS),
      let unacked = field32(Offset.unacked)
    else { return nil }
    var inFlight = unacked * mss
    if let sent = field64(Offset.bytesSent), let retransmitted = field64(Offset.bytesRetransmitted),
      let acked = field64(Offset.bytesAcked)
    {
      let distinct = sent >= retransmitted ? sent - retransmitted : 0
      inFlight = distinct >= acked ? Int(min(distinct - acked, UInt64(Int.max))) : 0
    }
    self.init(unsentBytes: notSent, inFlightBytes: inFlight, peerWindowBytes: field32(Offset.sendWindow))
  }
}
