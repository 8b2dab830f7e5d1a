/**
 * The `icmp` check: pings the monitor's host (a name or an address) with the system's `ping`
 * (iputils: unprivileged ICMP sockets where net.ipv4.ping_group_range allows them, else its
 * setuid or capability bit), `pingCount` echo requests 200 ms apart. It passes when at least one
 * reply comes back within the time-out; the latency is the average round trip of the replies.
 * A partial loss passes. A name is resolved through OUTBOUND_DENY first, and the address pinged.
 */
import { spawn } from "node:child_process"
import { isIP } from "node:net"
import { performance } from "node:perf_hooks"

import { Effect } from "effect"

import type { CheckOutcome } from "../../src/domain/CheckJob.js"
import { defaultOutboundGuard } from "../../src/runtime/OutboundGuard.js"
import { connectionError, type ConversationOptions, failed, resolveGuarded } from "./conversation.js"
import { roundMs } from "./outcome.js"

export interface IcmpCheck {
  readonly url: string
  readonly timeoutMs: number
  readonly pingCount?: number | null | undefined
}

/** What `ping -n` printed: the round trips of the replies, in ms. */
export const roundTrips = (output: string): ReadonlyArray<number> =>
  [...output.matchAll(/ time[=<]([\d.]+) ms/g)].map((match) => Number(match[1]))

const defaultCount = 3

export const icmpCheck = (check: IcmpCheck, options: ConversationOptions = {}): Effect.Effect<CheckOutcome> =>
  Effect.callback<CheckOutcome>((resume) => {
    const start = performance.now()
    const host = check.url.replace(/^\[(.*)\]$/, "$1")
    const count = check.pingCount ?? defaultCount
    let resolvedAt: number | undefined
    let child: ReturnType<typeof spawn> | undefined
    let output = ""
    let done = false
    const finish = (outcome: CheckOutcome) => {
      if (done) return
      done = true
      clearTimeout(deadline)
      child?.kill("SIGKILL")
      resume(Effect.succeed(outcome))
    }
    const dnsMs = () => resolvedAt === undefined || isIP(host) !== 0 ? null : roundMs(resolvedAt - start)
    const judge = () => {
      const trips = roundTrips(output)
      if (trips.length === 0) {
        return finish(failed(`no reply from ${host} (${count} sent)`, performance.now() - start, { dnsMs: dnsMs() }))
      }
      const average = trips.reduce((sum, ms) => sum + ms, 0) / trips.length
      finish({
        ok: true,
        durationMs: roundMs(average),
        timings: { dnsMs: dnsMs(), connectMs: null, tlsMs: null, firstByteMs: null },
        statusCode: null,
        error: null,
        sslDaysLeft: null
      })
    }
    // ping's own -W bounds the wait after the last request; this bounds the whole check.
    const deadline = setTimeout(() => {
      if (roundTrips(output).length > 0) return judge()
      finish(failed(`no reply from ${host} (${count} sent)`, check.timeoutMs, { dnsMs: dnsMs() }))
    }, check.timeoutMs)
    resolveGuarded(host, options.outbound ?? defaultOutboundGuard).then(({ address, family }) => {
      if (done) return
      resolvedAt = performance.now()
      // The last request leaves after (count - 1) * 0.2 s; its reply is awaited for the rest of the time-out.
      const waitSeconds = Math.max(0.1, (check.timeoutMs - (resolvedAt - start)) / 1000 - 0.2 * (count - 1) - 0.1)
      child = spawn(
        "ping",
        [family === 6 ? "-6" : "-4", "-n", "-c", String(count), "-i", "0.2", "-W", waitSeconds.toFixed(1), address],
        { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } }
      )
      child.stdout!.setEncoding("utf8").on("data", (text: string) => (output += text))
      child.stderr!.setEncoding("utf8").on("data", (text: string) => (output += text))
      child.once("error", (error: Error & { code?: string }) =>
        finish(failed(
          error.code === "ENOENT"
            ? "the ping command is not installed on this probe (iputils-ping)"
            : `ping could not run (${error.code ?? "error"})`,
          performance.now() - start
        )))
      // 0: replies; 1: none came back; 2: ping could not send (no route, no permission).
      child.once("close", (code) => {
        if (code === 2 && roundTrips(output).length === 0) {
          const reason = /unreachable/i.test(output)
            ? `${host} is unreachable`
            : /permission|not permitted/i.test(output)
            ? "ping is not permitted on this probe (see net.ipv4.ping_group_range)"
            : `ping could not send to ${host}`
          return finish(failed(reason, performance.now() - start, { dnsMs: dnsMs() }))
        }
        judge()
      })
    }).catch((error: Error & { code?: string }) =>
      finish(failed(connectionError(error, host, 0), performance.now() - start))
    )
    return Effect.sync(() => {
      done = true
      clearTimeout(deadline)
      child?.kill("SIGKILL")
    })
  })
