import Glibc

extension SocketBacklog {
  /// Offsets in Linux' `struct tcp_info` (include/uapi/linux/tcp.h; the kernel only ever appends
  /// to it). glibc's `<netinet/tcp.h>` declares the struct only up to `tcpi_total_retrans`, without
  /// the two fields read here, so the bytes are read at their offsets.
  private enum Offset {
    static let sendMSS = 16
    static let unacked = 24
    static let notSent = 144  // Linux 4.6
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
      let filled = Int(length)
      func field(_ offset: Int) -> Int? {
        offset + 4 <= filled ? Int(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) : nil
      }
      guard let notSent = field(Offset.notSent), let mss = field(Offset.sendMSS), let unacked = field(Offset.unacked)
      else { return nil }
      return SocketBacklog(
        unsentBytes: notSent, inFlightBytes: unacked * mss, peerWindowBytes: field(Offset.sendWindow))
    }
  }
}
