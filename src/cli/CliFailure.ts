/**
 * How a command ends. One exit code per kind of outcome, so that a pipeline can tell a refusal
 * (fix the request; retrying will not help) from a service it could not reach or that was
 * unavailable (retry later). docs/cli.md lists them.
 */
import { Config, Console, Effect, Predicate, Schema } from "effect"
import { CliError } from "effect/cli"
import { HttpClientError } from "effect/http"

import { fieldIssues, pathWords } from "../api/IssueMessages.js"

export const ExitCode = {
  ok: 0,
  /** The server answered and refused (4xx: validation, not found, conflict, unauthorized), or its answer was not the API's. */
  refused: 1,
  /** Bad arguments or configuration; nothing was sent. */
  usage: 2,
  /** No answer (connection refused, DNS, time-out) or the service said it is unavailable (5xx, 408, 429). */
  unavailable: 3,
  /** A bug of the CLI itself (a defect), printed on stderr. */
  internal: 4,
  /** Stopped by SIGINT or SIGTERM, as shells count it. */
  interrupted: 130
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** A command line the CLI cannot act on: bad input, missing configuration. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { message: Schema.String }) {}

interface FieldMessage {
  readonly path: ReadonlyArray<unknown>
  readonly message: string
}

const isFieldMessage = (value: unknown): value is FieldMessage =>
  Predicate.hasProperty(value, "path") && Array.isArray(value.path) &&
  Predicate.hasProperty(value, "message") && typeof value.message === "string"

/** Each offending field on a line of its own, `path: message` (`recurrence.interval: must be …`). */
const fieldLines = (issues: unknown): Array<string> =>
  Array.isArray(issues)
    ? issues.filter(isFieldMessage).filter((issue) => issue.path.length > 0).map((issue) =>
      `${pathWords(issue.path.filter((key): key is string | number => typeof key !== "object"))}: ${issue.message}`
    )
    : []

/** Input the API's own schema refuses, checked before sending: a usage error naming each field. */
export const refusedInput = (error: Schema.SchemaError): UsageError => {
  const lines = fieldLines(fieldIssues(error.issue))
  return new UsageError({ message: lines.length > 0 ? lines.join("\n") : "The values given are invalid" })
}

/** Errors the server declares in its body as `{ _tag, message }` that are worth retrying. */
const retryableTags = new Set(["ServiceUnavailable", "RequestTimeout", "TooManyRequests"])
const retryableStatus = (status: number) => status >= 500 || status === 408 || status === 429

interface Failure {
  readonly code: ExitCode
  /** What stderr gets; absent when effect/cli has already printed it. */
  readonly text?: string
}

/** `<_tag>: <message>`, then the offending fields of a refusal that names them, one per line. */
const failure = (code: ExitCode, tag: string, message: string, issues?: unknown): Failure => ({
  code,
  text: [`${tag}: ${message}`, ...fieldLines(issues).map((line) => `  ${line}`)].join("\n")
})

const tagged = (
  value: unknown
): value is { readonly _tag: string; readonly message: string; readonly issues?: unknown } =>
  Predicate.hasProperty(value, "_tag") && typeof value._tag === "string" &&
  Predicate.hasProperty(value, "message") && typeof value.message === "string"

/** A refusal the typed client did not decode (a status the endpoint does not declare): read the body. */
const fromResponse = (error: HttpClientError.ResponseError) =>
  error.response.json.pipe(
    Effect.option,
    Effect.map((body): Failure => {
      const status = error.response.status
      if (status < 300) return failure(ExitCode.refused, "UnexpectedAnswer", error.message)
      const code = retryableStatus(status) ? ExitCode.unavailable : ExitCode.refused
      return body._tag === "Some" && tagged(body.value)
        ? failure(code, body.value._tag, body.value.message, body.value.issues)
        : failure(code, `HTTP ${status}`, error.message)
    })
  )

const isResponseError = (reason: HttpClientError.HttpClientErrorReason): reason is HttpClientError.ResponseError =>
  "response" in reason

const classify = (error: unknown): Effect.Effect<Failure> => {
  if (CliError.isCliError(error)) {
    // Help asked for by a command without a handler of its own (`status-page components`) is no failure.
    const help = error._tag === "ShowHelp" && error.errors.length === 0
    return Effect.succeed({ code: help ? ExitCode.ok : ExitCode.usage })
  }
  if (error instanceof UsageError) return Effect.succeed({ code: ExitCode.usage, text: error.message })
  if (error instanceof Config.ConfigError) {
    return Effect.succeed(failure(ExitCode.usage, "ConfigError", String(error)))
  }
  if (HttpClientError.isHttpClientError(error)) {
    const reason = error.reason
    if (isResponseError(reason)) return fromResponse(reason)
    const code = reason._tag === "TransportError" ? ExitCode.unavailable : ExitCode.usage
    return Effect.succeed(failure(code, "Unreachable", transportMessage(reason)))
  }
  if (Schema.isSchemaError(error)) {
    return Effect.succeed(failure(ExitCode.refused, "UnexpectedAnswer", error.message))
  }
  if (tagged(error)) {
    const code = retryableTags.has(error._tag) ? ExitCode.unavailable : ExitCode.refused
    return Effect.succeed(failure(code, error._tag, error.message, error.issues))
  }
  return Effect.succeed(failure(ExitCode.refused, "Error", String(error)))
}

/** fetch's "fetch failed" hides the reason (ECONNREFUSED, ENOTFOUND) in its cause. */
const transportMessage = (error: HttpClientError.RequestError) => {
  const cause = Predicate.hasProperty(error.cause, "cause") ? error.cause.cause : error.cause
  const reason = cause instanceof Error ? cause.message : error.description ?? error._tag.replace(/Error$/, "")
  return `${reason} (${error.methodAndUrl})`
}

/** Prints the failure of `error` on stderr and answers its exit code. */
export const report = (error: unknown) =>
  classify(error).pipe(
    Effect.tap((failure) => failure.text === undefined ? Effect.void : Console.error(failure.text)),
    Effect.map((failure) => failure.code)
  )
