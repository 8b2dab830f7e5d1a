/** LOG_FORMAT=json: one JSON object per line, with level, message, annotations and trace ids. */
import { Cause, ConfigProvider, Effect, Layer, Logger } from "effect"
import { afterEach, describe, expect, it, vi } from "vitest"

import * as Telemetry from "../../src/observability/Telemetry.js"

const withLogFormat = (variables: Record<string, string>) =>
  Telemetry.loggingLayer.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson(variables))))

/**
 * Runs `effect` with the logger LOG_FORMAT and the endpoint choose, inside `outer` (the loggers
 * the process had already); returns what went to stdout, line by line.
 */
const linesOf = (
  variables: Record<string, string>,
  effect: Effect.Effect<void>,
  outer: Layer.Layer<never> = Layer.empty
) => {
  const lines: Array<string> = []
  const log = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
    lines.push(args.map(String).join(" "))
  })
  try {
    Effect.runSync(effect.pipe(Effect.provide(withLogFormat(variables)), Effect.provide(outer)))
  } finally {
    log.mockRestore()
  }
  return lines
}

const program = Effect.gen(function*() {
  yield* Effect.logInfo("probe ready").pipe(Effect.annotateLogs({ region: "eu", concurrency: 32 }))
  yield* Effect.logWarning("a \"quoted\"\nmessage").pipe(Effect.withLogSpan("probe-agent"))
  yield* Effect.logError("storing failed", Cause.die(new Error("boom"))).pipe(Effect.withSpan("ResultIngest.ingest"))
})

afterEach(() => vi.restoreAllMocks())

describe("LOG_FORMAT", () => {
  it("json: every line is one JSON object with timestamp, level, message and annotations", () => {
    const lines = linesOf({ LOG_FORMAT: "json" }, program)
    expect(lines).toHaveLength(3)
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    for (const entry of entries) expect(new Date(String(entry.timestamp)).toISOString()).toBe(entry.timestamp)
    expect(entries[0]).toMatchObject({
      level: "info",
      message: "probe ready",
      annotations: { region: "eu", concurrency: 32 }
    })
    expect(entries[1]).toMatchObject({ level: "warn", message: "a \"quoted\"\nmessage" })
    expect(entries[1]!.spans).toEqual({ "probe-agent": expect.any(Number) })
    expect(entries[2]).toMatchObject({ level: "error", message: "storing failed" })
    expect(String(entries[2]!.cause)).toContain("boom")
    // Tracing off: a span's ids name nothing anyone stored, so they are left out.
    expect(entries[2]!.traceId).toBeUndefined()
  })

  it("json replaces the pretty logger NodeRuntime.runMain installs: one line per event, JSON only", () => {
    const lines = linesOf({ LOG_FORMAT: "json" }, program, Logger.pretty)
    expect(lines).toHaveLength(3)
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow()
  })

  it("json with tracing on: the trace and span ids of the current span", () => {
    const lines = linesOf(
      { LOG_FORMAT: "json", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" },
      Effect.logInfo("inside").pipe(
        Effect.zipRight(Effect.currentSpan),
        Effect.flatMap((span) => Effect.logInfo(`span ${span.traceId} ${span.spanId}`)),
        Effect.withSpan("CheckScheduler.dispatch"),
        Effect.orDie
      )
    )
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    const [, traceId, spanId] = String(entries[1]!.message).split(" ")
    expect(entries[0]).toMatchObject({ traceId, spanId })
    expect(traceId).toMatch(/^[0-9a-f]{32}$/)
  })

  it("text (the default): the logfmt lines as before", () => {
    const lines = linesOf({}, program)
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/^timestamp=\S+ level=INFO fiber=#\d+ message="probe ready" concurrency=32 region=eu$/)
    expect(() => JSON.parse(lines[0]!)).toThrow()
  })

  it("the json logger itself formats any message as JSON, never throwing", () => {
    const out: Array<string> = []
    const logger = Logger.map(Telemetry.jsonLogger(false), (line) => out.push(line))
    Effect.runSync(
      Effect.log({ nested: { value: 1n } }, new Error("oops"), 42).pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, logger))
      )
    )
    expect(JSON.parse(out[0]!)).toMatchObject({
      level: "info",
      message: [{ nested: { value: "1" } }, { name: "Error", message: "oops" }, 42]
    })
  })
})
