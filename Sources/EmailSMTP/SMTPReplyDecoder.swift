import NIOCore
import NIOSSL

/// Splits the server's byte stream into ``SMTPReply`` values, joining multi-line replies
/// (`250-first`, `250-second`, `250 last`; RFC 5321 4.2.1).
///
/// The client never pipelines: it sends one command and waits for its one reply. So bytes left over
/// after a complete reply are a protocol violation, and refusing them is what stops a reply from
/// being smuggled across the STARTTLS boundary in the same packet as the `220`.
struct SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply

    /// RFC 5321 allows 512 octets per reply line; servers write longer ones, but not this long.
    static let maximumLineLength = 4096
    static let maximumLines = 256

    private var code: Int?
    private var lines: [String] = []

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if view.count > Self.maximumLineLength { throw SMTPProtocolError("reply line too long") }
            return .needMoreData
        }
        let length = view.distance(from: view.startIndex, to: newline) + 1
        guard length <= Self.maximumLineLength, var line = buffer.readBytes(length: length) else {
            throw SMTPProtocolError("reply line too long")
        }
        line.removeLast()
        if line.last == UInt8(ascii: "\r") { line.removeLast() }

        guard line.count >= 3, line.prefix(3).allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            line.count == 3 || line[3] == UInt8(ascii: " ") || line[3] == UInt8(ascii: "-")
        else { throw SMTPProtocolError("malformed reply line") }
        let lineCode = line.prefix(3).reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        if let code, code != lineCode { throw SMTPProtocolError("reply lines with different codes") }
        code = lineCode
        lines.append(String(decoding: line.dropFirst(4), as: UTF8.self))
        if lines.count > Self.maximumLines { throw SMTPProtocolError("reply with too many lines") }

        let isLast = line.count == 3 || line[3] == UInt8(ascii: " ")
        guard isLast else { return .continue }
        if buffer.readableBytes > 0 { throw SMTPProtocolError("data after a reply that nothing asked for") }
        let overTLS = (try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self)) != nil
        context.fireChannelRead(Self.wrapInboundOut(SMTPReply(code: lineCode, lines: lines, overTLS: overTLS)))
        code = nil
        lines = []
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A reply cut off by the close is not a reply; the conversation sees the end of the stream.
        while case .continue = try decode(context: context, buffer: &buffer) {}
        return .needMoreData
    }
}

/// The server broke the SMTP reply syntax.
struct SMTPProtocolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
