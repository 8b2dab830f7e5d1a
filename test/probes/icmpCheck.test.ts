/**
 * The `icmp` check with the system's `ping` (iputils-ping): 127.0.0.1 and localhost answer. An
 * address that does not answer is made safely: a network namespace of the test's own
 * (`ip netns add`, deleted after) holds only its loopback device, with a route sending the
 * TEST-NET-2 address 198.51.100.7 to it; echo requests there are dropped inside the namespace
 * (no host has the address, and the namespace has no other device), so nothing leaves the
 * machine. The check runs in that namespace as a child process (support/icmpInNamespace.ts).
 */
import { execFile, execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"

import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"

import { roundTrips } from "../../probes/checks/icmp.js"
import { runCheck } from "../../probes/checks/runCheck.js"
import type { CheckDefinition, CheckOutcome } from "../../src/domain/CheckJob.js"
import { parseAddressList } from "../../src/domain/NetworkAddress.js"
import { outboundGuard } from "../../src/runtime/OutboundGuard.js"
import { projectRoot } from "../support/ChildProcess.js"

const job = (url: string, pingCount = 2, timeoutMs = 3000): CheckDefinition => ({
  monitorId: "m",
  type: "icmp",
  url,
  timeoutMs,
  expectedStatusCode: 200,
  intervalSeconds: 60,
  pingCount
})

/** A network namespace with its loopback up and a route of `198.51.100.0/24` to it; deleted when the test ends. */
const isolatedNamespace = Effect.acquireRelease(
  Effect.sync(() => {
    const name = `e44-icmp-${randomBytes(4).toString("hex")}`
    execFileSync("ip", ["netns", "add", name])
    execFileSync("ip", ["netns", "exec", name, "ip", "link", "set", "lo", "up"])
    execFileSync("ip", ["netns", "exec", name, "ip", "route", "add", "198.51.100.0/25", "dev", "lo"])
    return name
  }),
  (name) => Effect.sync(() => execFileSync("ip", ["netns", "del", name]))
)

const script = fileURLToPath(new URL("support/icmpInNamespace.ts", import.meta.url))
const tsx = `${projectRoot}node_modules/.bin/tsx`

/** The outcome of pinging `target` from inside `namespace`. */
const pingInside = (namespace: string, target: string, count: number, timeoutMs: number) =>
  Effect.promise(() =>
    new Promise<CheckOutcome>((resolve, reject) =>
      execFile(
        "ip",
        ["netns", "exec", namespace, tsx, script, target, String(count), String(timeoutMs)],
        { cwd: projectRoot },
        (error, stdout) => error === null ? resolve(JSON.parse(stdout) as CheckOutcome) : reject(error)
      )
    )
  )

describe("icmp check", () => {
  it.live("passes when 127.0.0.1 and localhost answer, with the average round trip as the latency", () =>
    Effect.gen(function*() {
      const address = yield* runCheck(job("127.0.0.1", 3))
      expect(address).toMatchObject({ ok: true, error: null, statusCode: null })
      expect(address.durationMs).toBeGreaterThanOrEqual(0)
      expect(address.timings.dnsMs).toBeNull()
      const named = yield* runCheck(job("localhost", 1))
      expect(named).toMatchObject({ ok: true, error: null })
      expect(named.timings.dnsMs).toBeGreaterThanOrEqual(0)
    }))

  it.live("fails with no reply from an address that does not answer, and on one with no route", () =>
    Effect.gen(function*() {
      const namespace = yield* isolatedNamespace
      const silent = yield* pingInside(namespace, "198.51.100.7", 2, 1500)
      expect(silent).toMatchObject({ ok: false, error: "no reply from 198.51.100.7 (2 sent)" })
      // Inside the namespace only 198.51.100.0/25 has a route.
      const unroutable = yield* pingInside(namespace, "198.51.100.200", 1, 5000)
      expect(unroutable).toMatchObject({ ok: false, error: "198.51.100.200 is unreachable" })
      const answered = yield* pingInside(namespace, "127.0.0.1", 1, 5000)
      expect(answered).toMatchObject({ ok: true, error: null })
    }))

  it.live("never pings an address of OUTBOUND_DENY, written or resolved", () =>
    Effect.gen(function*() {
      const outbound = outboundGuard(Result.getOrThrow(parseAddressList("127.0.0.1/32")))
      const written = yield* runCheck(job("127.0.0.1"), { outbound })
      expect(written).toMatchObject({ ok: false, error: "connection to 127.0.0.1 refused by OUTBOUND_DENY" })
      const resolved = yield* runCheck(job("localhost"), { outbound })
      expect(resolved.ok).toBe(false)
      expect(resolved.error).toContain("refused by OUTBOUND_DENY")
    }))

  it("reads the round trips from ping's output", () => {
    const output = "64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.045 ms\n" +
      "64 bytes from 127.0.0.1: icmp_seq=2 ttl=64 time=1.20 ms\n" +
      "2 packets transmitted, 2 received, 0% packet loss, time 201ms\n" +
      "rtt min/avg/max/mdev = 0.045/0.622/1.200/0.577 ms\n"
    expect(roundTrips(output)).toEqual([0.045, 1.2])
    expect(roundTrips("1 packets transmitted, 0 received, 100% packet loss")).toEqual([])
  })
})
