/**
 * What a stream entry carries: the field holding a value's JSON, how it is encoded and decoded,
 * and the longest decoded. Anyone able to write a stream may put anything in it, so decoding
 * always validates and never throws.
 */
import { Effect, Schema } from "effect"

import { CheckJob, CheckResult, MissedCheck } from "../../domain/CheckJob.js"
import { decodeCheckResultFast } from "../../domain/decodeCheckResultFast.js"
import { ProbeHeartbeat } from "../../domain/ProbeHeartbeat.js"
import type { ProbeMessage, QueueError } from "../JobTransport.js"

export type StreamEntry = [id: string, fields: Array<string> | null]

export interface StreamCodec<A> {
  readonly field: string
  /** The longest payload decoded (UTF-16 code units); a longer one is dropped unread. */
  readonly maxLength: number
  readonly encode: (value: A) => string
  readonly decode: (json: string) => A | undefined
}

/**
 * `plain`: the values are their own JSON encoding (no transformation in the schema) and are
 * built valid, so JSON.stringify encodes them; Schema.encode would validate each again, which
 * costs more than the XADD. Decoding always validates: the text is parsed (as Schema.fromJsonString
 * does), then given to `fast` when there is one, and to the schema when `fast` gives nothing.
 * `fast` must accept only what the schema accepts, and yield the same value.
 */
const codec = <A, I>(
  field: string,
  maxLength: number,
  schema: Schema.Codec<A, I>,
  options: { readonly plain?: boolean; readonly fast?: (parsed: unknown) => A | undefined } = {}
): StreamCodec<A> => {
  const encode = options.plain === true
    ? (value: A) => JSON.stringify(value)
    : Schema.encodeSync(Schema.fromJsonString(schema))
  const decodeParsed = Schema.decodeUnknownOption(schema)
  const fast = options.fast
  return {
    field,
    maxLength,
    encode,
    decode: (text) => {
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        return undefined
      }
      const value = fast?.(parsed)
      if (value !== undefined) return value
      const option = decodeParsed(parsed)
      return option._tag === "Some" ? option.value : undefined
    }
  }
}

/**
 * The longest entry decoded, per field. A result, a miss or a heartbeat is a few KB at most (its
 * strings are capped; JSON escapes a character in six at worst). A job carries a monitor's
 * request: a 64 KB body, 20 headers of 1 KB, the DNS values, ~530 KB if every character were
 * escaped; only the service writes jobs, so their limit is generous.
 */
export const maxEntryLength = { job: 1024 * 1024, result: 64 * 1024 } as const

export const jobCodec = codec("job", maxEntryLength.job, CheckJob, { plain: true })

// Results, misses and heartbeats share the field `result`; a miss or a heartbeat is told apart by its `_tag`.
// Nearly every entry is a result: the hand-written decoder takes those, at under a third of the schema's cost.
export const resultCodec = codec<ProbeMessage, unknown>(
  "result",
  maxEntryLength.result,
  Schema.Union([CheckResult, MissedCheck, ProbeHeartbeat]) as Schema.Codec<ProbeMessage, unknown>,
  { plain: true, fast: decodeCheckResultFast }
)

/** How ingest decodes a results stream's entry (its `result` field): the value, or undefined when it does not decode. */
export const decodeResultEntry = (text: string): ProbeMessage | undefined => resultCodec.decode(text)

/**
 * Decodes the entries of `key`; undecodable, oversized or trimmed ones are acknowledged with
 * `ack` so they never come back, and logged: a probe's bug, or a forgery. An oversized one
 * is never parsed.
 */
export const decodeEntries = <A>(
  key: string,
  format: StreamCodec<A>,
  entries: ReadonlyArray<StreamEntry | null>,
  ack: (ids: ReadonlyArray<string>) => Effect.Effect<void, QueueError>
): Effect.Effect<Array<{ readonly id: string; readonly value: A }>, QueueError> =>
  // An idle probe's every read: nothing to decode, nothing to build.
  entries.length === 0 ? Effect.succeed([]) : Effect.gen(function*() {
    const decoded: Array<{ readonly id: string; readonly value: A }> = []
    const undecodable: Array<string> = []
    const oversized: Array<{ readonly id: string; readonly length: number }> = []
    for (const entry of entries) {
      if (entry === null) {
        continue
      }
      const [id, fields] = entry
      const index = fields === null ? -1 : fields.indexOf(format.field)
      const raw = index >= 0 && index % 2 === 0 ? fields![index + 1] : undefined
      if (raw !== undefined && raw.length > format.maxLength) {
        oversized.push({ id, length: raw.length })
        continue
      }
      const value = raw === undefined ? undefined : format.decode(raw)
      if (value === undefined) {
        undecodable.push(id)
      } else decoded.push({ id, value })
    }
    if (oversized.length > 0) {
      yield* Effect.logWarning("dropping oversized stream entries unread").pipe(
        Effect.annotateLogs({
          stream: key,
          count: oversized.length,
          maxLength: format.maxLength,
          entries: oversized.slice(0, 20).map(({ id, length }) => `${id} (${length})`).join(",")
        })
      )
    }
    if (undecodable.length > 0) {
      yield* Effect.logWarning("dropping undecodable stream entries").pipe(
        Effect.annotateLogs({ stream: key, count: undecodable.length, ids: undecodable.slice(0, 20).join(",") })
      )
    }
    if (oversized.length + undecodable.length > 0) {
      yield* ack([...oversized.map(({ id }) => id), ...undecodable])
    }
    return decoded
  })
