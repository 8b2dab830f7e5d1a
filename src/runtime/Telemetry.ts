/**
 * Traces and structured logs (docs/operations.md, "Traces and logs").
 *
 * - Traces: when OTEL_EXPORTER_OTLP_ENDPOINT is set, every span (requests, service calls, SQL,
 *   deliveries, checks) goes to `<endpoint>/v1/traces` as OTLP JSON, through
 *   @effect/opentelemetry's own exporter. Unset, nothing is loaded or exported, Effect's tracer
 *   is off, and the hot paths (the scheduler's tick, the probe's checks, ingest) make no span
 *   of their own: they ask `TracingEnabled` once, not the exporter to drop what they made.
 * - A check's trace crosses Redis in the W3C `traceparent` of the job and of the result
 *   (src/domain/CheckJob.ts): the scheduler's span is the parent of the probe's check span,
 *   which ingest's batch span links to.
 * - LOG_FORMAT=json: one JSON object per line, with the trace and span ids when tracing is on.
 */
import { Cause, type Config, Context, Effect, Layer, Logger, Option, Redacted, References, Tracer } from "effect"

import { isTraceparent } from "../domain/CheckJob.js"
import { TelemetryConfig } from "./Config.js"
import { fiberRuntimeMetrics } from "./FiberMetrics.js"

/**
 * Whether spans are exported. The code that would make a span per check or per job (the
 * scheduler, the probe, ingest, webhook attempts) reads it once and makes none when false.
 */
export const TracingEnabled = Context.Reference<boolean>("status-page/observability/TracingEnabled", {
  defaultValue: () => false
})

/** The W3C `traceparent` of `span`: what a job or a result carries across Redis. */
export const traceparentOf = (span: Tracer.AnySpan): string =>
  `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`

/** The span a valid `traceparent` names, to parent or link to; none for anything else (a forgery, a typo). */
export const spanOfTraceparent = (traceparent: string | undefined): Tracer.ExternalSpan | undefined => {
  if (traceparent === undefined || !isTraceparent(traceparent)) return undefined
  return Tracer.externalSpan({
    traceId: traceparent.slice(3, 35),
    spanId: traceparent.slice(36, 52),
    // The flags' lowest bit: sampled.
    sampled: (Number.parseInt(traceparent.slice(53), 16) & 1) === 1
  })
}

/**
 * Runs `effect` in a span named `name`, a child of the span `traceparent` names (a root span
 * without one), when tracing is on; as it is otherwise (not even its `attributes` are made).
 * `effect` receives the span's traceparent (undefined when off) to send on.
 */
export const withRemoteParent = <A, E, R>(
  enabled: boolean,
  name: string,
  traceparent: string | undefined,
  attributes: () => Record<string, unknown>,
  effect: (traceparent: string | undefined) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  if (!enabled) return effect(undefined)
  const parent = spanOfTraceparent(traceparent)
  return Effect.useSpan(name, {
    attributes: attributes(),
    kind: "consumer",
    ...(parent === undefined ? { root: true } : { parent })
  }, (span) => effect(traceparentOf(span)).pipe(Effect.withParentSpan(span, { captureStackTrace: false })))
}

/** Links to the spans the valid `traceparents` name (a batch's span links to each report it stores). */
export const linksTo = (traceparents: Iterable<string | undefined>): Array<Tracer.SpanLink> => {
  const links: Array<Tracer.SpanLink> = []
  for (const traceparent of traceparents) {
    const span = spanOfTraceparent(traceparent)
    if (span !== undefined) links.push({ span, attributes: {} })
  }
  return links
}

/**
 * A span started outside any fiber, for work made of plain callbacks or batched by hand (the
 * scheduler's jobs, a webhook attempt): no effect per span. End it with `span.end`.
 */
export const startSpan = (
  tracer: Tracer.Tracer,
  name: string,
  kind: Tracer.SpanKind,
  attributes: Record<string, unknown>,
  nowNanos: bigint
): Tracer.Span => {
  const span = tracer.span({
    name,
    parent: Option.none(),
    annotations: Context.empty(),
    links: [],
    startTime: nowNanos,
    kind,
    root: true,
    sampled: true
  })
  for (const key in attributes) span.attribute(key, attributes[key])
  return span
}

/** `key=value,key=value` (OTEL_EXPORTER_OTLP_HEADERS), values percent-decoded as the specification says. */
export const parseHeaders = (text: string): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const pair of text.split(",")) {
    const equals = pair.indexOf("=")
    if (equals <= 0) continue
    const value = pair.slice(equals + 1).trim()
    try {
      headers[pair.slice(0, equals).trim().toLowerCase()] = decodeURIComponent(value)
    } catch {
      headers[pair.slice(0, equals).trim().toLowerCase()] = value
    }
  }
  return headers
}

/**
 * The headers a span records, as `http.request.header.*` and `http.response.header.*`. The HTTP
 * server and client record every header and redact only Effect's short list (authorization,
 * cookies, x-api-key), so `Proxy-Authorization` or `X-Auth-Token` would leave in clear: any
 * header not named here is left off the span (docs/operations.md, "Traces").
 */
export const tracedHeaders: ReadonlySet<string> = new Set([
  "accept",
  "accept-encoding",
  "cache-control",
  "content-encoding",
  "content-length",
  "content-type",
  "host",
  "referer", // its URL redacted by RequestSpan
  "retry-after",
  "traceparent",
  "user-agent",
  "x-request-id"
])

const headerAttribute = /^http\.(?:request|response)\.header\.(.+)$/

/** `tracer`, with the header attributes outside `tracedHeaders` dropped from every span it makes. */
export const withTracedHeadersOnly = (tracer: Tracer.Tracer): Tracer.Tracer =>
  Tracer.make({
    span(options) {
      const span = tracer.span(options)
      const attribute = span.attribute
      span.attribute = (key, value) => {
        const header = headerAttribute.exec(key)
        if (header === null || tracedHeaders.has(header[1]!)) attribute.call(span, key, value)
      }
      return span
    },
    context: tracer.context
  })

export interface TracingOptions {
  /** The service name when OTEL_SERVICE_NAME is unset. */
  readonly serviceName: string
}

/**
 * The OTLP exporter when OTEL_EXPORTER_OTLP_ENDPOINT is set, with TracingEnabled; otherwise
 * Effect's tracer is off (`References.TracerEnabled`), so no span is made at all. The exporter's
 * modules are loaded only then, so a probe without it does not evaluate them. Closing the layer
 * sends the spans still buffered. The HTTP server's and client's spans record the headers of
 * `tracedHeaders` (Effect records none unless told).
 */
export const tracingLayer = (options: TracingOptions): Layer.Layer<never, Config.ConfigError> =>
  Layer.unwrap(Effect.gen(function*() {
    const config = yield* TelemetryConfig
    // Nothing exports spans: Effect makes none either (its service methods, SQL statements and
    // requests would each make one, timed and kept in memory until it ends, for nobody).
    if (Option.isNone(config.otlpEndpoint)) return Layer.succeed(References.TracerEnabled, false)
    const [OtlpTracer, OtlpSerialization, OtlpExporter, FetchHttpClient, HttpClient, HttpMiddleware] = yield* Effect
      .promise(() =>
        Promise.all([
          import("effect/observability/OtlpTracer"),
          import("effect/observability/OtlpSerialization"),
          import("effect/observability/OtlpExporter"),
          import("effect/http/FetchHttpClient"),
          import("effect/http/HttpClient"),
          import("effect/http/HttpMiddleware")
        ])
      )
    const base = config.otlpEndpoint.value.toString().replace(/\/$/, "")
    const tracer = OtlpTracer.make({
      url: `${base}/v1/traces`,
      resource: { serviceName: Option.getOrElse(config.serviceName, () => options.serviceName) },
      headers: Option.match(config.otlpHeaders, {
        onNone: () => undefined,
        onSome: (text) => parseHeaders(Redacted.value(text))
      }),
      exportInterval: config.exportDelayMs
    })
    const exporter = Layer.effect(Tracer.Tracer, Effect.map(tracer, withTracedHeadersOnly)).pipe(
      Layer.provide([FetchHttpClient.layer, OtlpSerialization.layerJson, OtlpExporter.layerFlusher])
    )
    const headerFilter = (name: string) => tracedHeaders.has(name)
    return Layer.mergeAll(
      exporter,
      Layer.succeed(TracingEnabled, true),
      Layer.succeed(HttpMiddleware.TracerHeaderFilter, headerFilter),
      Layer.succeed(HttpClient.TracerHeaderFilter, headerFilter),
      // The span names Effect 3 gave (docs/operations.md, "Traces"); v4 names them by the method alone.
      Layer.succeed(HttpMiddleware.SpanNameGenerator, (request) => `http.server ${request.method}`),
      Layer.succeed(HttpClient.SpanNameGenerator, (request) => `http.client ${request.method}`)
    )
  }))

const levelName = (level: string) => level.toLowerCase()

/**
 * One JSON object per line: `timestamp`, `level`, `message`, `annotations`, the log spans
 * (`spans`, ms since each began), `cause` when there is one, and `traceId` and `spanId` of the
 * current span when `withTraceIds` (tracing on: otherwise the ids name nothing anyone stored).
 */
export const jsonLogger = (withTraceIds: boolean): Logger.Logger<unknown, string> =>
  Logger.make(({ cause, date, fiber, logLevel, message }) => {
    const entry: Record<string, unknown> = {
      timestamp: date.toISOString(),
      level: levelName(logLevel),
      message: Array.isArray(message) && message.length === 1 ? message[0] : message
    }
    const annotations = fiber.getRef(References.CurrentLogAnnotations)
    if (Object.keys(annotations).length > 0) {
      const fields: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(annotations)) fields[key] = value
      entry.annotations = fields
    }
    const spans = fiber.getRef(References.CurrentLogSpans)
    if (spans.length > 0) {
      const now = date.getTime()
      const fields: Record<string, number> = {}
      for (const [label, startTime] of spans) fields[label] = now - startTime
      entry.spans = fields
    }
    if (cause.reasons.length > 0) entry.cause = Cause.pretty(cause)
    if (withTraceIds) {
      const span = Context.getOption(fiber.context, Tracer.ParentSpan)
      if (Option.isSome(span)) {
        entry.traceId = span.value.traceId
        entry.spanId = span.value.spanId
      }
    }
    return JSON.stringify(entry, jsonValue())
  })

/** A JSON.stringify replacer that writes what JSON cannot hold (bigints, errors, cycles) instead of throwing. */
const jsonValue = () => {
  const seen = new WeakSet<object>()
  return (_key: string, value: unknown) => {
    if (typeof value === "bigint") return value.toString()
    if (value instanceof Error) return { name: value.name, message: value.message }
    if (typeof value === "object" && value !== null) {
      if (seen.has(value)) return "[Circular]"
      seen.add(value)
    }
    return value
  }
}

/**
 * The process's text logger in place of Effect's default one (the other loggers, such as the one
 * that records logs on spans, stay). LOG_FORMAT=text: Effect's pretty logger, `[10:00:00.000] INFO
 * (#12): message` with the fields indented below (effect 3's `runMain` installed it itself; effect
 * 4's does not); json: `jsonLogger`, written to stdout.
 */
export const loggingLayer: Layer.Layer<never, Config.ConfigError> = Layer.unwrap(
  Effect.map(TelemetryConfig, (config) => {
    const logger = config.logFormat === "text"
      ? Logger.consolePretty()
      : Logger.withConsoleLog(jsonLogger(Option.isSome(config.otlpEndpoint)))
    return Layer.effect(
      Logger.CurrentLoggers,
      Effect.map(Logger.CurrentLoggers, (loggers) => {
        const replaced = new Set(loggers)
        replaced.delete(Logger.defaultLogger)
        replaced.add(logger)
        return replaced
      })
    )
  })
)

/**
 * Logs and traces for a process whose service name is `serviceName` unless OTEL_SERVICE_NAME says
 * otherwise, and the runtime's fiber metrics (`effect_fiber_*`, Metrics.ts).
 */
export const layer = (options: TracingOptions): Layer.Layer<never, Config.ConfigError> =>
  Layer.mergeAll(loggingLayer, tracingLayer(options), fiberRuntimeMetrics)
