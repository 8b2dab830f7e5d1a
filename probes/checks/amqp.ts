/**
 * The `amqp` check: connects to `amqp://[user@]host[:5672][/vhost]` (`amqps://`: TLS, port
 * 5671), opens an AMQP 0-9-1 connection (PLAIN login: the URL's user and the monitor's password,
 * `guest`/`guest` when the URL names no user), opens the vhost (`/` when the URL names none) and
 * a channel, and passes when the channel is open; then closes the connection. The handshake is
 * a handful of frames: hand-written, no client library.
 */
import { Effect } from "effect"

import type { CheckOutcome } from "../../src/domain/CheckJob.js"
import { type ConversationOptions, converse, failed, parseServiceTarget, type Verdict } from "./conversation.js"

export interface AmqpCheck {
  readonly url: string
  readonly timeoutMs: number
  readonly password?: string | null | undefined
}

const protocolHeader = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1])
const frameEnd = 0xce

const shortString = (text: string) => {
  const bytes = Buffer.from(text, "utf8")
  if (bytes.length > 255) throw new Error("a short string is at most 255 bytes")
  return Buffer.concat([Buffer.from([bytes.length]), bytes])
}
const longString = (bytes: Buffer) => {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(bytes.length)
  return Buffer.concat([length, bytes])
}
const uint16 = (value: number) => {
  const bytes = Buffer.alloc(2)
  bytes.writeUInt16BE(value)
  return bytes
}
const uint32 = (value: number) => {
  const bytes = Buffer.alloc(4)
  bytes.writeUInt32BE(value)
  return bytes
}
/** A field table of strings and nested tables (the client properties). */
const table = (entries: ReadonlyArray<readonly [string, Buffer]>) =>
  longString(Buffer.concat(entries.flatMap(([name, value]) => [shortString(name), value])))

/** A method frame on `channel`. */
const method = (channel: number, classId: number, methodId: number, ...args: ReadonlyArray<Buffer>) => {
  const payload = Buffer.concat([uint16(classId), uint16(methodId), ...args])
  return Buffer.concat([Buffer.from([1]), uint16(channel), uint32(payload.length), payload, Buffer.from([frameEnd])])
}

const clientProperties = table([
  ["product", Buffer.concat([Buffer.from("S"), longString(Buffer.from("status-page-probe"))])],
  // Asks the broker to say why a login fails (a Connection.Close) instead of dropping the connection.
  ["capabilities", Buffer.concat([Buffer.from("F"), table([["authentication_failure_close", Buffer.from([0x74, 1])]])])]
])

/** What a broker's Connection.Close means, by reply code; the reply text stays out (it is the broker's). */
const closeReason = (code: number, vhost: string) => {
  switch (code) {
    case 403:
      return "authentication failed"
    case 530:
      return `vhost ${vhost} does not exist or the user may not open it`
    case 320:
      return "the broker is shutting down"
    default:
      return `connection closed by the broker (AMQP ${code})`
  }
}

export const amqpCheck = (check: AmqpCheck, options: ConversationOptions = {}): Effect.Effect<CheckOutcome> => {
  const target = parseServiceTarget(check.url, { plain: "amqp", tls: "amqps", port: 5672, tlsPort: 5671 })
  if (target === undefined || (target.path !== undefined && Buffer.byteLength(target.path) > 255)) {
    return Effect.succeed(failed(`invalid amqp target (want amqp://[user@]host[:port][/vhost]): ${check.url}`, 0))
  }
  const vhost = target.path ?? "/"
  const user = target.user ?? "guest"
  const password = check.password ?? (target.user === undefined ? "guest" : "")
  let pending: Buffer = Buffer.alloc(0)
  let opened = false
  const onMethod = (classId: number, methodId: number, args: Buffer, write: (bytes: Buffer) => void): Verdict => {
    if (classId === 10 && methodId === 10) {
      // Connection.Start: the broker's mechanisms are a long string after the version and properties.
      write(method(
        0,
        10,
        11,
        clientProperties,
        shortString("PLAIN"),
        longString(Buffer.from(`\u0000${user}\u0000${password}`, "utf8")),
        shortString("en_US")
      ))
      return undefined
    }
    if (classId === 10 && methodId === 30) {
      // Connection.Tune: take the broker's limits, no heartbeats (the connection lives for one check).
      const channelMax = args.readUInt16BE(0)
      const frameMax = args.readUInt32BE(2)
      write(Buffer.concat([
        method(0, 10, 31, uint16(channelMax), uint32(frameMax), uint16(0)),
        method(0, 10, 40, shortString(vhost), shortString(""), Buffer.from([0]))
      ]))
      return undefined
    }
    if (classId === 10 && methodId === 41) {
      opened = true
      write(method(1, 20, 10, shortString("")))
      return undefined
    }
    if (classId === 20 && methodId === 11) {
      return { error: null, farewell: method(0, 10, 50, uint16(200), shortString(""), uint16(0), uint16(0)) }
    }
    if (classId === 10 && methodId === 50) return { error: closeReason(args.readUInt16BE(0), vhost) }
    if (classId === 20 && methodId === 40) return { error: `channel refused (AMQP ${args.readUInt16BE(0)})` }
    return undefined
  }
  return converse(target, check.timeoutMs, {
    opened: (write) => write(protocolHeader),
    received: (chunk, write) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      if (pending.subarray(0, 4).toString("latin1") === "AMQP") {
        return { error: "the broker does not speak AMQP 0-9-1" }
      }
      while (pending.length >= 7) {
        // Frame types: method, header, body, heartbeat; a broker's frames before Tune stay small.
        if (![1, 2, 3, 8].includes(pending[0]!)) return { error: "not an AMQP broker (bad frame)" }
        const size = pending.readUInt32BE(3)
        if (size > 1_048_576) return { error: "not an AMQP broker (bad frame)" }
        if (pending.length < 8 + size) return undefined
        if (pending[7 + size] !== frameEnd) return { error: "not an AMQP broker (bad frame)" }
        const type = pending[0]
        const payload = pending.subarray(7, 7 + size)
        pending = pending.subarray(8 + size)
        if (type === 1) {
          const verdict = onMethod(payload.readUInt16BE(0), payload.readUInt16BE(2), payload.subarray(4), write)
          if (verdict !== undefined) return verdict
        }
      }
      return undefined
    },
    get closedEarly() {
      // RabbitMQ drops a refused login without a word to clients that do not ask for the Close.
      return opened
        ? "connection closed by the broker"
        : "connection closed by the broker during the login (authentication failed?)"
    }
  }, options)
}
