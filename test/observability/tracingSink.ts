/**
 * A minimal OTLP/HTTP receiver on loopback: accepts `POST /v1/traces` with OTLP JSON (what
 * @effect/opentelemetry's exporter sends) and keeps every span it decodes, with the service
 * name of its resource.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

import { ConfigProvider, Effect, Layer } from "effect"

import * as Telemetry from "../../src/runtime/Telemetry.js"

interface OtlpValue {
  readonly stringValue?: string
  readonly intValue?: number | string
  readonly boolValue?: boolean
  readonly doubleValue?: number
}
interface OtlpKeyValue {
  readonly key: string
  readonly value: OtlpValue
}
interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<OtlpKeyValue>
  readonly links?: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>
  readonly status?: { readonly code: number; readonly message?: string }
}
interface TraceData {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<OtlpKeyValue> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<OtlpSpan> }>
  }>
}

/** A span as received: OTLP's fields, its attributes as a record, and its resource's service name. */
export interface ReceivedSpan {
  readonly service: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly kind: number
  readonly attributes: Readonly<Record<string, unknown>>
  readonly links: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>
  /** OTLP's status: code 0 unset, 1 ok, 2 error (with the error's message). */
  readonly status: { readonly code: number; readonly message?: string }
}

const valueOf = (value: OtlpValue): unknown =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.boolValue ??
    value.doubleValue

const record = (attributes: ReadonlyArray<OtlpKeyValue>) =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, valueOf(value)]))

export interface OtlpSink {
  /** The base URL to set as OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string
  readonly spans: Array<ReceivedSpan>
  /** Requests received, whatever their path. */
  readonly requests: Array<{ readonly path: string; readonly headers: Record<string, unknown> }>
}

/** The sink for the scope. */
export const otlpSink = Effect.acquireRelease(
  Effect.promise(async () => {
    const spans: Array<ReceivedSpan> = []
    const requests: Array<{ path: string; headers: Record<string, unknown> }> = []
    const server: Server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        requests.push({ path: request.url ?? "", headers: request.headers })
        if (request.method !== "POST" || request.url !== "/v1/traces") {
          response.statusCode = 404
          return response.end()
        }
        const data = JSON.parse(Buffer.concat(chunks).toString("utf8")) as TraceData
        for (const { resource, scopeSpans } of data.resourceSpans) {
          const service = String(record(resource.attributes)["service.name"])
          for (const scope of scopeSpans) {
            for (const span of scope.spans) {
              spans.push({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId,
                name: span.name,
                kind: span.kind,
                attributes: record(span.attributes),
                links: span.links ?? [],
                status: span.status ?? { code: 0 }
              })
            }
          }
        }
        response.setHeader("content-type", "application/json")
        response.end("{}")
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const sink: OtlpSink = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, requests }
    return { sink, server }
  }),
  ({ server }) =>
    Effect.promise(() => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    })
).pipe(Effect.map(({ sink }) => sink))
/** Tracing configured as OTEL_EXPORTER_OTLP_ENDPOINT would configure it, with spans sent every 50 ms. */
export const tracingTo = (sink: OtlpSink, serviceName: string) =>
  Telemetry.tracingLayer({ serviceName }).pipe(
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_BSP_SCHEDULE_DELAY: "50"
    })))
  )
