/**
 * The `mqtt` check: connects to `mqtt://[user@]host[:1883]` (`mqtts://`: TLS, port 8883), sends
 * an MQTT 3.1.1 CONNECT (clean session, the monitor's user and password), passes when CONNACK
 * accepts it (return code 0), and says DISCONNECT. Two packets of a well specified protocol:
 * hand-written, no client library.
 */
import { randomBytes } from "node:crypto"

import { Effect } from "effect"

import type { CheckOutcome } from "../../src/domain/CheckJob.js"
import { type ConversationOptions, converse, failed, parseServiceTarget } from "./conversation.js"

export interface MqttCheck {
  readonly url: string
  readonly timeoutMs: number
  readonly password?: string | null | undefined
}

/** CONNACK's refusals (MQTT 3.1.1, 3.2.2.3). */
const refusals: Record<number, string> = {
  1: "unacceptable protocol version",
  2: "identifier rejected",
  3: "server unavailable",
  4: "bad user name or password",
  5: "not authorized"
}

const utf8 = (text: string) => {
  const bytes = Buffer.from(text, "utf8")
  const length = Buffer.alloc(2)
  length.writeUInt16BE(bytes.length)
  return Buffer.concat([length, bytes])
}

/** MQTT's Remaining Length: 7 bits a byte, least significant first. */
const remainingLength = (length: number) => {
  const bytes: Array<number> = []
  do {
    let byte = length % 128
    length = Math.floor(length / 128)
    if (length > 0) byte |= 0x80
    bytes.push(byte)
  } while (length > 0)
  return Buffer.from(bytes)
}

/** CONNECT, MQTT 3.1.1 (3.1): clean session, a keep-alive of 10 s, a client id unique to this check. */
export const connectPacket = (user: string | undefined, password: string | null) => {
  // 3.1.1 allows a password only with a user name: an empty one when the URL names none.
  const userName = user ?? (password !== null ? "" : undefined)
  const flags = 0x02 | (userName !== undefined ? 0x80 : 0) | (password !== null ? 0x40 : 0)
  const body = Buffer.concat([
    utf8("MQTT"),
    Buffer.from([4, flags, 0, 10]),
    // At most 23 characters, which every 3.1.1 server must accept.
    utf8(`sp-probe-${randomBytes(6).toString("hex")}`),
    ...(userName !== undefined ? [utf8(userName)] : []),
    ...(password !== null ? [utf8(password)] : [])
  ])
  return Buffer.concat([Buffer.from([0x10]), remainingLength(body.length), body])
}

const disconnect = Buffer.from([0xe0, 0x00])

export const mqttCheck = (check: MqttCheck, options: ConversationOptions = {}): Effect.Effect<CheckOutcome> => {
  const target = parseServiceTarget(check.url, { plain: "mqtt", tls: "mqtts", port: 1883, tlsPort: 8883 })
  if (target === undefined || target.path !== undefined) {
    return Effect.succeed(failed(`invalid mqtt target (want mqtt://[user@]host[:port]): ${check.url}`, 0))
  }
  let pending: Buffer = Buffer.alloc(0)
  return converse(target, check.timeoutMs, {
    opened: (write) => write(connectPacket(target.user, check.password ?? null)),
    received: (chunk) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      if (pending[0] !== 0x20) return { error: "not an MQTT broker (no CONNACK)" }
      if (pending.length < 4) return undefined
      const code = pending[3]!
      return code === 0
        ? { error: null, farewell: disconnect }
        : { error: `CONNACK refused: ${refusals[code] ?? `return code ${code}`}` }
    },
    closedEarly: "connection closed by the broker before CONNACK"
  }, options)
}
