/**
 * The `grpc` check: calls the standard `grpc.health.v1.Health/Check` of `grpc://host:port`
 * (plaintext) or `grpcs://host:port` (TLS: the system's CAs and the probe's extra CA) for the
 * monitor's `grpcService` (none: the server's overall health), and passes when the answer is
 * SERVING. `@grpc/grpc-js` speaks HTTP/2; the two messages of the health protocol are one field
 * each and are encoded here, so no .proto file is loaded. The host is resolved through
 * OUTBOUND_DENY first and the address called, with the host as authority and TLS server name.
 * Loaded only when a grpc job arrives: a chunk of its own in the probe bundle.
 */
import { isIP } from "node:net"
import { rootCertificates } from "node:tls"

import * as grpc from "@grpc/grpc-js"
import { Effect } from "effect"

import type { CheckOutcome } from "../../src/domain/CheckJob.js"
import { type ConversationOptions, failed, libraryCheck, parseServiceTarget } from "./conversation.js"

export interface GrpcCheck {
  readonly url: string
  readonly timeoutMs: number
  readonly grpcService?: string | null | undefined
}

export const healthCheckPath = "/grpc.health.v1.Health/Check"

/** HealthCheckRequest { string service = 1; }: field 1, length-delimited; empty for the server's health. */
export const encodeHealthRequest = ({ service }: { readonly service: string }): Buffer => {
  if (service === "") return Buffer.alloc(0)
  const bytes = Buffer.from(service, "utf8")
  const length: Array<number> = []
  let rest = bytes.length
  do {
    length.push((rest & 0x7f) | (rest > 0x7f ? 0x80 : 0))
    rest >>>= 7
  } while (rest > 0)
  return Buffer.concat([Buffer.from([0x0a, ...length]), bytes])
}

/** HealthCheckResponse { ServingStatus status = 1; }: the varint of field 1 (absent: 0, UNKNOWN). */
export const decodeHealthResponse = (bytes: Buffer): { readonly status: number } => {
  let status = 0
  let at = 0
  const varint = () => {
    let value = 0
    let shift = 0
    for (;;) {
      const byte = bytes[at++]
      if (byte === undefined) throw new Error("truncated message")
      value += (byte & 0x7f) * 2 ** shift
      if ((byte & 0x80) === 0) return value
      shift += 7
    }
  }
  while (at < bytes.length) {
    const key = varint()
    const wireType = key & 7
    if (key >>> 3 === 1 && wireType === 0) status = varint()
    else if (wireType === 0) varint()
    else if (wireType === 2) {
      // Not `at += varint()`: that reads `at` before varint() moves it past the length.
      const length = varint()
      at += length
    } else if (wireType === 1) at += 8
    else if (wireType === 5) at += 4
    else throw new Error("unknown wire type")
  }
  return { status }
}

export const servingStatuses = ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"] as const

const describeStatus = (error: grpc.ServiceError, service: string, timeoutMs: number) => {
  switch (error.code) {
    case grpc.status.DEADLINE_EXCEEDED:
      return `timed out after ${timeoutMs} ms`
    case grpc.status.UNIMPLEMENTED:
      return "the server has no health service (grpc.health.v1.Health: UNIMPLEMENTED)"
    case grpc.status.NOT_FOUND:
      return `the health service does not know ${JSON.stringify(service)} (NOT_FOUND)`
    case grpc.status.UNAVAILABLE:
      // grpc-js' own words on the connection (refused, TLS); a server's UNAVAILABLE carries its own
      // message, which is not repeated (it is the target's text).
      return error.details.startsWith("No connection established")
        ? `unavailable (UNAVAILABLE): ${
          error.details.replace(/^No connection established\. Last error: /, "").replace(/^Error: /, "").replace(
            /\.? ?Resolution note:[\s\S]*$/,
            ""
          )
        }`
        : "unavailable (UNAVAILABLE)"
    default:
      return `gRPC error ${grpc.status[error.code] ?? error.code}`
  }
}

export const grpcCheck = (check: GrpcCheck, options: ConversationOptions = {}): Effect.Effect<CheckOutcome> => {
  const target = parseServiceTarget(check.url, { plain: "grpc", tls: "grpcs", port: 443 })
  if (target === undefined || target.path !== undefined) {
    return Effect.succeed(failed(`invalid grpc target (want grpc://host:port or grpcs://host:port): ${check.url}`, 0))
  }
  const service = check.grpcService ?? ""
  return libraryCheck(target, check.timeoutMs, options.outbound, ({ address, elapsedMs, family }, finish) => {
    const authority = `${family === 6 && target.host.includes(":") ? `[${target.host}]` : target.host}:${target.port}`
    const credentials = target.tls
      ? grpc.credentials.createSsl(
        options.extraCa === undefined ? null : Buffer.from([...rootCertificates, options.extraCa].join("\n"))
      )
      : grpc.credentials.createInsecure()
    const client = new grpc.Client(
      family === 6 ? `ipv6:[${address}]:${target.port}` : `ipv4:${address}:${target.port}`,
      credentials,
      {
        "grpc.default_authority": authority,
        ...(target.tls && isIP(target.host) === 0 ? { "grpc.ssl_target_name_override": target.host } : {}),
        // One call per check: no retries, no reconnect attempts after it.
        "grpc.enable_retries": 0,
        "grpc.max_reconnect_backoff_ms": check.timeoutMs
      }
    )
    client.makeUnaryRequest(
      healthCheckPath,
      encodeHealthRequest,
      decodeHealthResponse,
      { service },
      new grpc.Metadata(),
      { deadline: Date.now() + Math.max(1, check.timeoutMs - elapsedMs) },
      (error, response) => {
        if (error !== null) return finish(describeStatus(error, service, check.timeoutMs))
        const status = response?.status ?? 0
        finish(status === 1 ? null : `health status ${servingStatuses[status] ?? status}, not SERVING`)
      }
    )
    return () => client.close()
  })
}
