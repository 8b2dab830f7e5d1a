import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Result } from "effect"

import { parseAddressList } from "../../src/domain/NetworkAddress.js"
import { clientBudget, normalizeAddress } from "../../src/domain/NetworkAddress.js"
import { resolveClientAddress } from "../../src/http/ClientAddress.js"
import { AppConfig } from "../../src/runtime/Config.js"
import { subscribeLimits } from "../../src/services/notifications/Subscriptions.js"
import { sendJson, TestServer } from "../support/TestServer.js"

const trusted = (text: string) => Result.getOrThrow(parseAddressList(text))

describe("client address", () => {
  it("normalizes the forms proxies and sockets write addresses in", () => {
    expect(normalizeAddress(" 203.0.113.7 ")).toEqual(Option.some("203.0.113.7"))
    expect(normalizeAddress("203.0.113.7:51234")).toEqual(Option.some("203.0.113.7"))
    expect(normalizeAddress("[2001:DB8::1]:443")).toEqual(Option.some("2001:db8::1"))
    expect(normalizeAddress("::ffff:127.0.0.1")).toEqual(Option.some("127.0.0.1"))
    expect(normalizeAddress("unknown")).toEqual(Option.none())
    expect(normalizeAddress("")).toEqual(Option.none())
  })

  it("counts an IPv4 client by its address and an IPv6 client by its /64", () => {
    expect(clientBudget("203.0.113.7")).toBe("203.0.113.7")
    expect(clientBudget("::ffff:203.0.113.7")).toBe("203.0.113.7")
    expect(clientBudget("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64")
    expect(clientBudget("2001:0DB8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64")
    expect(clientBudget("2001:db8::1")).toBe("2001:db8:0:0::/64")
    expect(clientBudget("::1")).toBe("0:0:0:0::/64")
    expect(clientBudget("::1:2:3:4:5:6:7")).toBe("0:1:2:3::/64")
    expect(clientBudget("64:ff9b::192.0.2.1")).toBe("64:ff9b:0:0::/64")
    expect(clientBudget("unknown")).toBe("unknown")
  })

  it("reads TRUST_PROXY as addresses and CIDR ranges, and names an entry that is neither", () => {
    const proxies = trusted(" 10.0.0.0/8, ::1 ,fd00::/8,192.0.2.10")
    expect(proxies.isEmpty).toBe(false)
    expect(
      ["10.1.2.3", "::1", "fd12::5", "192.0.2.10", "::ffff:10.0.0.1"].map((a) =>
        proxies.includes(Option.getOrThrow(normalizeAddress(a)))
      )
    )
      .toEqual([true, true, true, true, true])
    expect(["11.0.0.1", "::2", "192.0.2.11"].map(proxies.includes)).toEqual([false, false, false])
    expect(trusted("").isEmpty).toBe(true)
    for (const bad of ["10.0.0.0/33", "::/129", "10.0.0.0/8/1", "proxy.internal", "10.0.0.0/", "10.0.0.0/x"]) {
      expect(parseAddressList(bad)).toEqual(Result.fail(`"${bad}" is not an IP address or CIDR range`))
    }
  })

  it("walks X-Forwarded-For from the right past trusted proxies only", () => {
    const proxies = trusted("127.0.0.1,10.0.0.0/8")
    // No proxy trusted: the peer, whatever the header says.
    expect(resolveClientAddress("127.0.0.1", "198.51.100.1", trusted(""))).toBe("127.0.0.1")
    // An untrusted peer's header is not believed.
    expect(resolveClientAddress("203.0.113.7", "198.51.100.1", proxies)).toBe("203.0.113.7")
    // One proxy: the address it appended.
    expect(resolveClientAddress("::ffff:127.0.0.1", "203.0.113.7", proxies)).toBe("203.0.113.7")
    // What the client wrote itself, left of the real address, is ignored.
    expect(resolveClientAddress("127.0.0.1", "1.1.1.1, 203.0.113.7", proxies)).toBe("203.0.113.7")
    // Two proxies in a row.
    expect(resolveClientAddress("127.0.0.1", "1.1.1.1, 203.0.113.7, 10.0.0.5", proxies)).toBe("203.0.113.7")
    // Every hop trusted: the left-most.
    expect(resolveClientAddress("127.0.0.1", "10.0.0.9, 10.0.0.5", proxies)).toBe("10.0.0.9")
    // A malformed entry ends the walk at the proxy that wrote it.
    expect(resolveClientAddress("127.0.0.1", "203.0.113.7, unknown", proxies)).toBe("127.0.0.1")
    expect(resolveClientAddress("127.0.0.1", undefined, proxies)).toBe("127.0.0.1")
  })

  it.effect("refuses to start with a TRUST_PROXY entry that is not an address or range", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(AppConfig).pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromEnvRecord({ TRUST_PROXY: "10.0.0.0/8, proxy.internal" })
        )
      )
      expect(String(error)).toContain(`"proxy.internal" is not an IP address or CIDR range`)
    }))
})

const subscribe = (email: string, forwardedFor?: string) =>
  sendJson(
    "POST",
    "/api/v1/subscribe",
    { email },
    forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor }
  )

/** Uses up the per-client budget of the client the server sees for `forwardedFor`; returns the statuses. */
const exhaustClient = (forwardedFor: string, tag: string) =>
  Effect.forEach(
    Array.from({ length: subscribeLimits.perClient.max + 1 }, (_, i) => i),
    (i) => Effect.map(subscribe(`${tag}${i}@example.test`, forwardedFor), (response) => response.status)
  )

it.layer(TestServer({ TRUST_PROXY: "127.0.0.1" }))("behind a trusted reverse proxy", (it) => {
  it.effect("each client behind the proxy has a subscription budget of its own, and cannot pick another one", () =>
    Effect.gen(function*() {
      const statuses = yield* exhaustClient("203.0.113.7", "first")
      expect(statuses.at(-1)).toBe(429)
      expect(statuses.filter((status) => status === 202)).toHaveLength(subscribeLimits.perClient.max)
      // The same client claiming another address in its own header is still itself.
      expect((yield* subscribe("spoof@example.test", "198.51.100.9, 203.0.113.7")).status).toBe(429)
      // Another client behind the same proxy is not affected.
      expect((yield* subscribe("other@example.test", "198.51.100.9")).status).toBe(202)
      // IPv6 clients count by their /64: another address of the same one shares its budget.
      expect((yield* exhaustClient("2001:db8:1:2::1", "six")).at(-1)).toBe(429)
      expect((yield* subscribe("six-more@example.test", "2001:db8:1:2:ffff::9")).status).toBe(429)
      expect((yield* subscribe("six-next@example.test", "2001:db8:1:3::1")).status).toBe(202)
    }))
})

it.layer(TestServer())("without a trusted proxy", (it) => {
  it.effect("X-Forwarded-For is ignored: the TCP peer is the client", () =>
    Effect.gen(function*() {
      const statuses = yield* exhaustClient("203.0.113.7", "direct")
      expect(statuses.at(-1)).toBe(429)
      expect((yield* subscribe("other@example.test", "198.51.100.9")).status).toBe(429)
    }))
})
