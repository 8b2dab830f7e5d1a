/**
 * The pieces of the check types' protocols that a server on this machine cannot show alone:
 * how a target URL is read (defaults, TLS ports, percent-decoding), the two gRPC health
 * messages, MQTT's two-byte Remaining Length. The exchanges themselves are tested against real
 * servers (the *Check.test.ts files).
 */
import { describe, expect, it } from "@effect/vitest"

import { parseServiceTarget } from "../../probes/checks/conversation.js"
import { decodeHealthResponse, encodeHealthRequest } from "../../probes/checks/grpc.js"
import { connectPacket } from "../../probes/checks/mqtt.js"

describe("the check types' protocols", () => {
  it("reads a target URL: default and TLS ports, the user and path percent-decoded, IPv6 without brackets", () => {
    const amqp = { plain: "amqp", tls: "amqps", port: 5672, tlsPort: 5671 }
    expect(parseServiceTarget("amqp://mq.example", amqp)).toEqual({
      tls: false,
      host: "mq.example",
      port: 5672,
      user: undefined,
      path: undefined
    })
    expect(parseServiceTarget("AMQPS://app%40corp@mq.example/%2F", amqp)).toEqual({
      tls: true,
      host: "mq.example",
      port: 5671,
      user: "app@corp",
      path: "/"
    })
    expect(parseServiceTarget("amqp://[::1]:5673/jobs", amqp)).toMatchObject({ host: "::1", port: 5673, path: "jobs" })
    expect(parseServiceTarget("rediss://cache.example/2", { plain: "redis", tls: "rediss", port: 6379 }))
      .toMatchObject({ tls: true, port: 6379, path: "2" })
    expect(parseServiceTarget("http://mq.example", amqp)).toBeUndefined()
    expect(parseServiceTarget("amqp://mq.example/%E0%A4%A", amqp)).toBeUndefined()
  })

  it("encodes HealthCheckRequest and decodes HealthCheckResponse as protobuf does", () => {
    expect(encodeHealthRequest({ service: "" })).toEqual(Buffer.alloc(0))
    expect(encodeHealthRequest({ service: "shop.Cart" })).toEqual(Buffer.from("\n\tshop.Cart", "latin1"))
    // A name of 200 bytes: its length is a two-byte varint (200 = 0xc8 0x01).
    expect(encodeHealthRequest({ service: "s".repeat(200) }).subarray(0, 3)).toEqual(Buffer.from([0x0a, 0xc8, 0x01]))
    expect(decodeHealthResponse(Buffer.from([0x08, 0x01]))).toEqual({ status: 1 })
    // Absent: the default, UNKNOWN; unknown fields are skipped.
    expect(decodeHealthResponse(Buffer.alloc(0))).toEqual({ status: 0 })
    expect(decodeHealthResponse(Buffer.from([0x12, 0x02, 0x61, 0x62, 0x08, 0x02]))).toEqual({ status: 2 })
    expect(() => decodeHealthResponse(Buffer.from([0x08]))).toThrow("truncated")
  })

  it("writes MQTT's Remaining Length in two bytes past 127", () => {
    const packet = connectPacket("probe", "p".repeat(200))
    const length = (packet[1]! & 0x7f) + 128 * packet[2]!
    expect(packet[1]! & 0x80).toBe(0x80)
    expect(packet.length).toBe(3 + length)
  })
})
