/**
 * LOG_FORMAT=json: one JSON object per line, with level, message, annotations and trace ids;
 * text: Effect's pretty logger.
 */
import { Cause, ConfigProvider, Effect, Layer, Logger } from "effect"
import { afterEach, describe, expect, it, vi } from "vitest"

import * as Telemetry from "../../src/runtime/Telemetry.js"
import { replaceDefaultLogger } from "../support/Logs.js"

const withLogFormat = (variables: Record<string, string>) =>
  Telemetry.loggingLayer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(variables))))

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

  it("json replaces only the text logger: the process's other loggers stay, and no line is written twice", () => {
    const other: Array<string> = []
    const recording = Logger.layer([Logger.make(({ message }) => other.push(String(message)))], {
      mergeWithExisting: true
    })
    const lines = linesOf({ LOG_FORMAT: "json" }, program, recording)
    expect(lines).toHaveLength(3)
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow()
    expect(other).toEqual(["probe ready", "a \"quoted\"\nmessage", "storing failed"])
  })

  it("json with tracing on: the trace and span ids of the current span", () => {
    const lines = linesOf(
      { LOG_FORMAT: "json", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" },
      Effect.logInfo("inside").pipe(
        Effect.andThen(Effect.currentSpan),
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

  it("text (the default): Effect's pretty lines, the fields indented below the message", () => {
    const lines = linesOf({}, program)
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(#\d+\): probe ready$/)
    expect(lines.slice(1, 3)).toEqual(["region: eu", "concurrency: 32"])
    expect(lines[3]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN \(#\d+\) probe-agent=\d+ms: a "quoted"\nmessage$/)
    expect(lines[4]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] ERROR \(#\d+\): storing failed$/)
    expect(lines[5]).toContain("Error: boom")
    expect(() => JSON.parse(lines[0]!)).toThrow()
  })

  it("the json logger itself formats any message as JSON, never throwing", () => {
    const out: Array<string> = []
    const logger = Logger.map(Telemetry.jsonLogger(false), (line) => out.push(line))
    Effect.runSync(
      Effect.log({ nested: { value: 1n } }, new Error("oops"), 42).pipe(
        Effect.provide(replaceDefaultLogger(logger))
      )
    )
    expect(JSON.parse(out[0]!)).toMatchObject({
      level: "info",
      message: [{ nested: { value: "1" } }, { name: "Error", message: "oops" }, 42]
    })
  })
})
