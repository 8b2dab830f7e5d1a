/**
 * The `tcp` check: opens a TCP connection to `tcp://host:port` (or `host:port`) within the
 * time-out and closes it at once; reports DNS and connect times. An address of OUTBOUND_DENY is
 * never connected to.
 */
import * as net from "node:net"
import { performance } from "node:perf_hooks"

import { Effect } from "effect"

import type { CheckOutcome } from "../../src/domain/CheckJob.js"
import { defaultOutboundGuard, type OutboundGuard } from "../../src/runtime/OutboundGuard.js"
import { describeError, parseHostPort, roundMs } from "./outcome.js"

export interface TcpCheck {
  readonly url: string
  readonly timeoutMs: number
}

/** `tcp://host:port` or `host:port` (IPv6 in brackets); undefined when it is neither. */
export const parseTcpTarget = (target: string) => {
  const authority = target.startsWith("tcp://") ? target.slice("tcp://".length).replace(/\/$/, "") : target
  return parseHostPort(authority, undefined)
}

export interface TcpCheckOptions {
  /** Addresses not to connect to (OUTBOUND_DENY); the default list when not given. */
  readonly outbound?: OutboundGuard | undefined
}

export const tcpCheck = (check: TcpCheck, options: TcpCheckOptions = {}): Effect.Effect<CheckOutcome> =>
  Effect.callback<CheckOutcome>((resume) => {
    const start = performance.now()
    let lookupAt: number | undefined
    let connectAt: number | undefined
    let done = false
    const finish = (ok: boolean, error: string | null) => {
      if (done) return
      done = true
      clearTimeout(deadline)
      socket?.destroy()
      resume(Effect.succeed({
        ok,
        durationMs: roundMs((connectAt ?? performance.now()) - start),
        timings: {
          dnsMs: lookupAt === undefined ? null : roundMs(lookupAt - start),
          connectMs: connectAt === undefined ? null : roundMs(connectAt - (lookupAt ?? start)),
          tlsMs: null,
          firstByteMs: null
        },
        statusCode: null,
        error,
        sslDaysLeft: null
      }))
    }

    const target = parseTcpTarget(check.url)
    let socket: net.Socket | undefined
    const deadline = setTimeout(() => finish(false, `timed out after ${check.timeoutMs} ms`), check.timeoutMs)
    if (target === undefined) {
      finish(false, `invalid TCP target (want tcp://host:port or host:port): ${check.url}`)
      return
    }
    const guard = options.outbound ?? defaultOutboundGuard
    const refused = guard.refuse(target.host)
    if (refused !== undefined) {
      finish(false, refused.message)
      return
    }
    socket = net.connect({ host: target.host, port: target.port, lookup: guard.lookup })
    socket.once("lookup", () => (lookupAt = performance.now()))
    socket.once("connect", () => {
      connectAt = performance.now()
      finish(true, null)
    })
    socket.once("error", (error) => finish(false, describeError(error)))
    return Effect.sync(() => {
      done = true
      clearTimeout(deadline)
      socket?.destroy()
    })
  })
