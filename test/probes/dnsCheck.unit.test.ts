/** The `dns` check against a real DNS server on loopback UDP (test/support/DnsServer.ts). */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit } from "effect"

import { dnsCheck, dnsName, parseDnsServers } from "../../probes/checks/dns.js"
import { runCheck } from "../../probes/checks/runCheck.js"
import { ProbeConfig } from "../../probes/ProbeConfig.js"
import { CheckJob } from "../../src/domain/CheckJob.js"
import { dnsServer, type DnsZone } from "../support/DnsServer.js"

const zone: DnsZone = {
  "www.example.test": {
    A: ["127.0.0.1", "127.0.0.2"],
    AAAA: ["2001:db8:0:0:0:0:0:1"],
    CNAME: ["Edge.CDN.example.test"]
  },
  "example.test": {
    MX: [{ priority: 10, exchange: "mx1.example.test" }, { priority: 20, exchange: "MX2.example.test" }],
    TXT: [["v=spf1 ", "include:mail.example.test ~all"], ["verification=abc123"]],
    NS: ["ns1.example.test", "ns2.example.test"]
  },
  // Looks like an IPv6 address with a zone, but a TXT record is text.
  "zone.example.test": { TXT: [["fe80::1%eth0"]], AAAA: ["fe80:0:0:0:0:0:0:1"] },
  "silent.example.test": "silent",
  "broken.example.test": "servfail"
}

/** `self` reading its configuration from `env` alone. */
const withEnvironment = (env: Record<string, string>) =>
  Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env))

describe("dns check", () => {
  it.effect("resolves each record type and passes when every expected value is among the answers", () =>
    Effect.gen(function*() {
      const server = yield* dnsServer(zone)
      const options = { servers: [server.server] }
      const cases = [
        // Several answers; the expected one is among them.
        { url: "www.example.test", dnsRecordType: "A", dnsExpectedValues: ["127.0.0.2"] },
        // No type: A. No expected values: any answer passes. The dns:// form names the same host.
        { url: "dns://www.example.test", dnsRecordType: null, dnsExpectedValues: null },
        // An IPv6 address compares in any of its spellings.
        { url: "www.example.test", dnsRecordType: "AAAA", dnsExpectedValues: ["2001:DB8::1"] },
        // Case and a trailing dot do not matter.
        { url: "www.example.test", dnsRecordType: "CNAME", dnsExpectedValues: ["edge.cdn.example.test."] },
        // MX compares the exchange.
        { url: "example.test", dnsRecordType: "MX", dnsExpectedValues: ["mx2.example.test", "MX1.example.test"] },
        // TXT compares a record's strings joined.
        {
          url: "example.test",
          dnsRecordType: "TXT",
          dnsExpectedValues: ["v=spf1 include:mail.example.test ~all", "VERIFICATION=abc123"]
        },
        { url: "example.test.", dnsRecordType: "NS", dnsExpectedValues: ["ns2.example.test"] }
      ] as const
      for (const check of cases) {
        const outcome = yield* dnsCheck({ ...check, timeoutMs: 2000 }, options)
        expect(outcome, JSON.stringify(check)).toMatchObject({
          ok: true,
          error: null,
          statusCode: null,
          sslDaysLeft: null
        })
        expect(outcome.timings).toMatchObject({ connectMs: null, tlsMs: null, firstByteMs: null })
        expect(outcome.timings.dnsMs).toBe(outcome.durationMs)
        expect(outcome.durationMs).toBeGreaterThan(0)
      }
      // Every query reached the loopback server, for the type asked.
      expect(server.queries.map((query) => `${query.type} ${query.name}`)).toEqual([
        "A www.example.test",
        "A www.example.test",
        "AAAA www.example.test",
        "CNAME www.example.test",
        "MX example.test",
        "TXT example.test",
        "NS example.test"
      ])
    }))

  it.effect("says what was expected and what came back when an expected value is missing", () =>
    Effect.gen(function*() {
      const server = yield* dnsServer(zone)
      const options = { servers: [server.server] }
      const run = (url: string, dnsRecordType: "A" | "MX" | "TXT", dnsExpectedValues: Array<string>) =>
        dnsCheck({ url, timeoutMs: 2000, dnsRecordType, dnsExpectedValues }, options)

      expect(yield* run("www.example.test", "A", ["10.0.0.1"])).toMatchObject({
        ok: false,
        statusCode: null,
        error: "expected A record 10.0.0.1, got 127.0.0.1, 127.0.0.2"
      })
      // One found and one not is a failure too; the error lists what was expected.
      expect((yield* run("www.example.test", "A", ["127.0.0.1", "10.0.0.1"])).error).toBe(
        "expected A records 127.0.0.1, 10.0.0.1, got 127.0.0.1, 127.0.0.2"
      )
      expect((yield* run("example.test", "MX", ["mx3.example.test"])).error).toBe(
        "expected MX record mx3.example.test, got mx1.example.test, MX2.example.test"
      )
      expect((yield* run("example.test", "TXT", ["v=spf1"])).error).toBe(
        "expected TXT record \"v=spf1\", got \"v=spf1 include:mail.example.test ~all\", \"verification=abc123\""
      )
    }))

  it.effect("compares a text answer that looks like a zoned IPv6 address as text, and refuses a zone in an address", () =>
    Effect.gen(function*() {
      const server = yield* dnsServer(zone)
      const options = { servers: [server.server] }
      const run = (dnsRecordType: "TXT" | "AAAA", dnsExpectedValues: Array<string>) =>
        dnsCheck({ url: "zone.example.test", timeoutMs: 2000, dnsRecordType, dnsExpectedValues }, options)
      // The answer itself once crashed the probe (an uncaught throw in the resolver's callback).
      expect(yield* run("TXT", ["FE80::1%ETH0"])).toMatchObject({ ok: true, error: null })
      expect(yield* run("TXT", ["fe80:0:0:0:0:0:0:1%eth0"])).toMatchObject({
        ok: false,
        error: "expected TXT record \"fe80:0:0:0:0:0:0:1%eth0\", got \"fe80::1%eth0\""
      })
      // An address record still compares in any spelling; a zone never appears in a DNS answer.
      expect(yield* run("AAAA", ["FE80::0:1"])).toMatchObject({ ok: true, error: null })
      expect(yield* run("AAAA", ["fe80::1%eth0"])).toMatchObject({
        ok: false,
        error: "expected AAAA record fe80::1%eth0, got fe80::1: a zone (%eth0) is never part of a DNS answer"
      })
      expect(yield* run("AAAA", ["not an address"])).toMatchObject({
        ok: false,
        error: "expected AAAA record not an address, got fe80::1"
      })
      // Whatever else throws while the answers are read fails the check: here a job the schema would refuse.
      const malformed = yield* dnsCheck({
        url: "zone.example.test",
        timeoutMs: 2000,
        dnsRecordType: "AAAA",
        dnsExpectedValues: "fe80::1" as unknown as Array<string>
      }, options)
      expect(malformed.ok).toBe(false)
      expect(malformed.error).toMatch(/^AAAA lookup of zone\.example\.test failed: .*is not a function/)
    }))

  it.effect("reports NXDOMAIN, a name without records of the type, and SERVFAIL", () =>
    Effect.gen(function*() {
      const server = yield* dnsServer(zone)
      const options = { servers: [server.server] }
      const missing = yield* dnsCheck({ url: "name.example", timeoutMs: 2000 }, options)
      expect(missing).toMatchObject({ ok: false, error: "no A record for name.example (NXDOMAIN)" })
      expect(missing.timings.dnsMs).toBeGreaterThan(0)
      const noData = yield* dnsCheck({ url: "example.test", timeoutMs: 2000, dnsRecordType: "AAAA" }, options)
      expect(noData).toMatchObject({ ok: false, error: "no AAAA record for example.test (NODATA)" })
      const broken = yield* dnsCheck({ url: "broken.example.test", timeoutMs: 2000 }, options)
      expect(broken).toMatchObject({
        ok: false,
        error: "A lookup of broken.example.test failed: the DNS server answered SERVFAIL"
      })
    }))

  it.effect("enforces the time-out on a server that does not answer", () =>
    Effect.gen(function*() {
      const server = yield* dnsServer(zone)
      const outcome = yield* dnsCheck({ url: "silent.example.test", timeoutMs: 300 }, { servers: [server.server] })
      expect(outcome).toMatchObject({ ok: false, error: "timed out after 300 ms" })
      expect(outcome.durationMs).toBeGreaterThanOrEqual(295)
      expect(outcome.durationMs).toBeLessThan(1500)
      // The lost query was retried once within the limit.
      expect(server.queries.length).toBeGreaterThanOrEqual(1)
    }))

  it.live("refuses a target that is not a host name without sending a query", () =>
    Effect.gen(function*() {
      const outcome = yield* dnsCheck({ url: "http://example.test/path", timeoutMs: 2000 })
      expect(outcome).toMatchObject({ ok: false, error: "invalid host name: http://example.test/path" })
      expect(dnsName("dns://example.test")).toBe("example.test")
      expect(dnsName("_dmarc.example.test")).toBe("_dmarc.example.test")
      expect(dnsName("exa mple.test")).toBeUndefined()
      expect(dnsName(`${"a".repeat(64)}.test`)).toBeUndefined()
    }))

  it.effect("runs as a job's check, asking the probe's PROBE_DNS_SERVERS", () =>
    Effect.gen(function*() {
      const server = yield* dnsServer(zone)
      const config = yield* ProbeConfig.pipe(withEnvironment({ PROBE_DNS_SERVERS: ` ${server.server} ` }))
      expect(config.dnsServers).toEqual([server.server])
      const job = CheckJob.forRun({
        monitorId: "m1",
        type: "dns",
        url: "www.example.test",
        timeoutMs: 2000,
        expectedStatusCode: 200,
        intervalSeconds: 60,
        dnsRecordType: "A",
        dnsExpectedValues: ["127.0.0.1"]
      }, 0)
      expect(yield* runCheck(job, { dnsServers: config.dnsServers })).toMatchObject({ ok: true, error: null })
      expect(server.queries).toEqual([{ name: "www.example.test", type: "A" }])
    }))

  it.effect("PROBE_DNS_SERVERS takes ip, ip:port and [v6]:port, and refuses anything else", () =>
    Effect.gen(function*() {
      expect(parseDnsServers("")).toEqual([])
      expect(parseDnsServers("1.1.1.1, 127.0.0.1:5353,[::1]:53,2001:db8::1")).toEqual([
        "1.1.1.1",
        "127.0.0.1:5353",
        "[::1]:53",
        "2001:db8::1"
      ])
      for (const invalid of ["dns.example", "127.0.0.1:0", "127.0.0.1:70000", "[127.0.0.1]:53", "1.2.3"]) {
        expect(parseDnsServers(invalid), invalid).toBeUndefined()
      }
      const unset = yield* ProbeConfig.pipe(withEnvironment({}))
      expect(unset.dnsServers).toEqual([])
      const refused = yield* Effect.exit(ProbeConfig.pipe(withEnvironment({ PROBE_DNS_SERVERS: "dns.example" })))
      expect(Exit.isFailure(refused)).toBe(true)
      expect(String(refused)).toContain("PROBE_DNS_SERVERS")
    }))
})
