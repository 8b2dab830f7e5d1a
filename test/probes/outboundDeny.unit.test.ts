/**
 * OUTBOUND_DENY in the checks: a denied address, written as the host or resolved from a name
 * (each time it is resolved), is never connected to, and the check fails saying so. The loopback
 * address 127.0.0.2 stands in for the metadata service: nothing here leaves the machine.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Result } from "effect"

import { httpCheck } from "../../probes/checks/http.js"
import { sslExpiryCheck } from "../../probes/checks/sslExpiry.js"
import { tcpCheck } from "../../probes/checks/tcp.js"
import * as ProbeAgent from "../../probes/ProbeAgent.js"
import { CheckJob } from "../../src/domain/CheckJob.js"
import { parseAddressList } from "../../src/domain/NetworkAddress.js"
import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { JobTransport } from "../../src/queue/JobTransport.js"
import { outboundGuard, type Resolve } from "../../src/runtime/OutboundGuard.js"
import { readAll } from "../queue/transportContract.js"
import { httpServer } from "../support/Servers.js"

const guardOf = (deny: string, resolve?: Resolve) => outboundGuard(Result.getOrThrow(parseAddressList(deny)), resolve)

/** An HTTP server answering 200 on `host` (at `port`, or a free one), counting the connections it accepted. */
const server = (host: string, port?: number) =>
  httpServer((_request, response) => response.end("ok"), port === undefined ? { host } : { host, port })

const outcomesFor = (host: string, port: number, options: Parameters<typeof httpCheck>[1]) =>
  Effect.all({
    http: httpCheck({ url: `http://${host}:${port}/`, timeoutMs: 2000, expectedStatusCode: 200 }, options),
    https: httpCheck({ url: `https://${host}:${port}/`, timeoutMs: 2000, expectedStatusCode: 200 }, options),
    tcp: tcpCheck({ url: `tcp://${host}:${port}`, timeoutMs: 2000 }, options),
    ssl: sslExpiryCheck({ url: `${host}:${port}`, timeoutMs: 2000 }, options)
  })

describe("OUTBOUND_DENY in the checks", () => {
  it.effect("http, tcp and ssl_expiry checks to a denied address fail with the reason and never connect", () =>
    Effect.gen(function*() {
      const target = yield* server("127.0.0.2")
      const outcomes = yield* outcomesFor("127.0.0.2", target.port, { outbound: guardOf("127.0.0.2/32") })
      for (const [check, outcome] of Object.entries(outcomes)) {
        expect(outcome, check).toMatchObject({
          ok: false,
          statusCode: null,
          error: "connection to 127.0.0.2 refused by OUTBOUND_DENY"
        })
      }
      // Written as an IPv4-mapped IPv6 address, it is the same address.
      const mapped = yield* tcpCheck({ url: `[::ffff:127.0.0.2]:${target.port}`, timeoutMs: 2000 }, {
        outbound: guardOf("127.0.0.2/32")
      })
      expect(mapped.error).toBe("connection to ::ffff:127.0.0.2 (127.0.0.2) refused by OUTBOUND_DENY")
      expect(target.connections()).toBe(0)

      // Allowed, the same target is reached: the refusal above was the deny list's.
      const allowed = yield* httpCheck(
        { url: `http://127.0.0.2:${target.port}/`, timeoutMs: 2000, expectedStatusCode: 200 },
        { outbound: guardOf("") }
      )
      expect(allowed).toMatchObject({ ok: true, statusCode: 200 })
      expect(target.connections()).toBe(1)
    }))

  it.effect("a name that resolves to a denied address is refused after DNS", () =>
    Effect.gen(function*() {
      const target = yield* server("127.0.0.1")
      // Every loopback address denied: whichever of its addresses `localhost` gives, it is refused.
      const outcomes = yield* outcomesFor("localhost", target.port, { outbound: guardOf("127.0.0.0/8, ::1/128") })
      for (const [check, outcome] of Object.entries(outcomes)) {
        expect(outcome, check).toMatchObject({ ok: false, statusCode: null })
        expect(outcome.error, check).toMatch(
          /^connection to localhost \((127\.0\.0\.1|::1)\) refused by OUTBOUND_DENY$/
        )
      }
      expect(target.connections()).toBe(0)
    }))

  it.effect("a name is checked each time it is resolved, so rebinding it to a denied address does not pass", () =>
    Effect.gen(function*() {
      const allowed = yield* server("127.0.0.1")
      const denied = yield* server("127.0.0.2", allowed.port)
      // The name's answer changes between the two checks, as a rebinding DNS server makes it.
      const answers = ["127.0.0.1", "127.0.0.2"]
      const rebinding: Resolve = (_hostname, _options, callback) =>
        callback(null, [{ address: answers.shift() ?? "127.0.0.2", family: 4 }])
      const outbound = guardOf("127.0.0.2/32", rebinding)
      const check = { url: `http://localhost:${allowed.port}/`, timeoutMs: 2000, expectedStatusCode: 200 }

      expect(yield* httpCheck(check, { outbound })).toMatchObject({ ok: true, statusCode: 200 })
      expect(yield* httpCheck(check, { outbound })).toMatchObject({
        ok: false,
        error: "connection to localhost (127.0.0.2) refused by OUTBOUND_DENY"
      })
      expect([allowed.connections(), denied.connections()]).toEqual([1, 0])
    }))

  it("a guard's kept verdicts answer as the list does, past the number it keeps", () => {
    const guard = guardOf("127.0.0.2/32, fd00::/8")
    const ask = (host: string) => guard.refuse(host)?.message
    const refused = "connection to 127.0.0.2 refused by OUTBOUND_DENY"
    expect([ask("127.0.0.2"), ask("127.0.0.2"), ask("127.0.0.3"), ask("[fd00::1]"), ask("example.test")]).toEqual([
      refused,
      refused,
      undefined,
      "connection to [fd00::1] (fd00::1) refused by OUTBOUND_DENY",
      undefined
    ])
    // More hosts than the guard keeps: it starts over and still answers the same.
    for (let i = 0; i < 5000; i++) expect(ask(`127.1.${i >> 8}.${i & 255}`)).toBeUndefined()
    expect([ask("127.0.0.2"), ask("::ffff:127.0.0.2"), ask("127.0.0.3")]).toEqual([
      refused,
      "connection to ::ffff:127.0.0.2 (127.0.0.2) refused by OUTBOUND_DENY",
      undefined
    ])
  })

  it.live("the probe agent applies OUTBOUND_DENY from its environment", () =>
    Effect.gen(function*() {
      const target = yield* server("127.0.0.2")
      const queue = yield* JobTransport
      const ingest = yield* queue.resultConsumer("ingest-test")
      const job = CheckJob.forRun({
        monitorId: "metadata",
        type: "http",
        url: `http://127.0.0.2:${target.port}/`,
        timeoutMs: 2000,
        expectedStatusCode: 200,
        intervalSeconds: 60
      }, Date.now())
      yield* queue.publishJobs([job])
      const [result] = (yield* readAll(ingest, 1)).map((delivery) => delivery.value)
      expect(result).toMatchObject({
        monitorId: "metadata",
        ok: false,
        error: "connection to 127.0.0.2 refused by OUTBOUND_DENY"
      })
      expect(target.connections()).toBe(0)
    }).pipe(
      Effect.scoped,
      Effect.provide(
        ProbeAgent.layerConfig({ region: "local", name: "p1" }).pipe(Layer.provideMerge(InProcessJobTransport.layer()))
      ),
      Effect.provideService(
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromEnvRecord({ OUTBOUND_DENY: "127.0.0.2/32" })
      )
    ))
})
