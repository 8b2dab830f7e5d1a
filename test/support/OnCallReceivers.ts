/**
 * Local stand-ins for PagerDuty's Events API v2 and Opsgenie's Alert API, on random loopback
 * ports: each checks a request as the vendor would (path, authentication, the body against the
 * published schema in OnCallSchemas), refuses a malformed one with the vendor's status (PagerDuty
 * 400, Opsgenie 422), and keeps the alerts the accepted ones open and close, deduplicated by
 * `dedup_key` / alias as the vendors do.
 */
import { randomUUID } from "node:crypto"
import type { ServerResponse } from "node:http"

import type { ErrorObject, ValidateFunction } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Effect } from "effect"

import {
  opsgenieCloseAlertSchema,
  opsgenieCreateAlertSchema,
  opsgenieDetailsLimit,
  pagerDutyEventSchema
} from "./OnCallSchemas.js"
import type { ReceivedRequest } from "./Receiver.js"
import { receiver } from "./Receiver.js"

// `required` inside if/then names properties declared at the top: strict otherwise.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false })
const compiled = new Map<string, ValidateFunction>()
const validatorOf = (schema: { readonly $id: string }) => {
  let validate = compiled.get(schema.$id)
  if (validate === undefined) compiled.set(schema.$id, validate = ajv.compile(schema))
  return validate
}

const describe = (errors: ReadonlyArray<ErrorObject> | null | undefined) =>
  (errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? "is invalid"}`)

/** What is wrong with a JSON text for `schema`; none when it is valid. */
const problemsOf = (schema: { readonly $id: string }, text: string): Array<string> => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return ["body is not JSON"]
  }
  const validate = validatorOf(schema)
  return validate(body) ? [] : describe(validate.errors)
}

/** The problems of a PagerDuty Events API v2 alert event; none when PagerDuty would take it. */
export const pagerDutyProblems = (text: string) => problemsOf(pagerDutyEventSchema, text)

/** The problems of an Opsgenie create-alert body, its details' total length included. */
export const opsgenieCreateProblems = (text: string) => {
  const problems = problemsOf(opsgenieCreateAlertSchema, text)
  if (problems.length > 0) return problems
  const details = (JSON.parse(text) as { details?: Record<string, string> }).details ?? {}
  const total = Object.entries(details).reduce((sum, [key, value]) => sum + key.length + value.length, 0)
  return total > opsgenieDetailsLimit ? [`/details has ${total} characters, more than ${opsgenieDetailsLimit}`] : []
}

/** The problems of an Opsgenie close-alert body. */
export const opsgenieCloseProblems = (text: string) => problemsOf(opsgenieCloseAlertSchema, text)

const answerJson = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify(body))
}

const isJson = (request: ReceivedRequest) =>
  (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase() === "application/json"

export interface PagerDutyAlert {
  status: "triggered" | "resolved"
  /** Trigger events taken into this alert (a repeat while triggered is deduplicated into it). */
  triggers: number
  severity: string
  summary: string
  routingKey: string
}

/** A refused request and why. */
export interface Refusal {
  readonly request: ReceivedRequest
  readonly status: number
  readonly problems: ReadonlyArray<string>
}

/**
 * PagerDuty's `POST /v2/enqueue` (the webhook's `url`). An event for a routing key other than
 * `routingKey`, when given, is refused as PagerDuty refuses an unknown integration (400).
 */
export const pagerDutyReceiver = (routingKey?: string) =>
  Effect.gen(function*() {
    const alerts = new Map<string, PagerDutyAlert>()
    const refused: Array<Refusal> = []
    const accepted: Array<Record<string, any>> = []
    const refuse = (request: ReceivedRequest, response: ServerResponse, status: number, problems: Array<string>) => {
      refused.push({ request, status, problems })
      answerJson(response, status, { status: "invalid event", message: "Event object is invalid", errors: problems })
    }
    const target = yield* receiver((request, response) => {
      if (request.method !== "POST" || request.path !== "/v2/enqueue") {
        return refuse(request, response, 404, [`${request.method} ${request.path} is not the Events API v2`])
      }
      if (!isJson(request)) return refuse(request, response, 400, ["content-type must be application/json"])
      const problems = pagerDutyProblems(request.body)
      if (problems.length > 0) return refuse(request, response, 400, problems)
      const event = JSON.parse(request.body) as Record<string, any>
      if (routingKey !== undefined && event.routing_key !== routingKey) {
        return refuse(request, response, 400, ["routing_key is not an integration of this service"])
      }
      accepted.push(event)
      const dedupKey: string = event.dedup_key ?? randomUUID().replaceAll("-", "")
      const alert = alerts.get(dedupKey)
      if (event.event_action === "trigger") {
        if (alert !== undefined && alert.status === "triggered") alert.triggers++
        else {
          alerts.set(dedupKey, {
            status: "triggered",
            triggers: 1,
            severity: event.payload.severity,
            summary: event.payload.summary,
            routingKey: event.routing_key
          })
        }
      } else if (event.event_action === "resolve" && alert !== undefined) {
        alert.status = "resolved"
      }
      answerJson(response, 202, { status: "success", message: "Event processed", dedup_key: dedupKey })
    })
    const origin = new URL(target.url).origin
    return { ...target, url: `${origin}/v2/enqueue`, alerts, accepted, refused }
  })

export interface OpsgenieAlert {
  status: "open" | "closed"
  /** Create requests taken into this alert (Opsgenie counts a repeat of an open alias). */
  count: number
  message: string
  priority: string
  closeNote?: string
}

/**
 * Opsgenie's Alert API under `/v2/alerts` (the webhook's `url`): create, and close by alias.
 * Requests without `Authorization: GenieKey <apiKey>` are refused with 401.
 */
export const opsgenieReceiver = (apiKey: string) =>
  Effect.gen(function*() {
    const alerts = new Map<string, OpsgenieAlert>()
    const refused: Array<Refusal> = []
    const accepted: Array<{ readonly action: "create" | "close"; readonly alias: string; readonly body: any }> = []
    const refuse = (request: ReceivedRequest, response: ServerResponse, status: number, problems: Array<string>) => {
      refused.push({ request, status, problems })
      answerJson(response, status, {
        message: status === 401
          ? "Could not authenticate"
          : "Request body is not processable. Please check the errors.",
        errors: problems,
        took: 0.001,
        requestId: randomUUID()
      })
    }
    const processed = (response: ServerResponse) =>
      answerJson(response, 202, { result: "Request will be processed", took: 0.002, requestId: randomUUID() })
    const target = yield* receiver((request, response) => {
      if (request.headers.authorization !== `GenieKey ${apiKey}`) {
        return refuse(request, response, 401, ["Authorization must be GenieKey and the integration's API key"])
      }
      if (request.method !== "POST") return refuse(request, response, 404, [`${request.method} is not an action`])
      if (!isJson(request)) return refuse(request, response, 422, ["content-type must be application/json"])
      const url = new URL(request.path, "http://receiver")
      if (url.pathname === "/v2/alerts") {
        const problems = opsgenieCreateProblems(request.body)
        if (problems.length > 0) return refuse(request, response, 422, problems)
        const body = JSON.parse(request.body)
        const alias: string = body.alias ?? body.message
        accepted.push({ action: "create", alias, body })
        const alert = alerts.get(alias)
        if (alert !== undefined && alert.status === "open") alert.count++
        else alerts.set(alias, { status: "open", count: 1, message: body.message, priority: body.priority ?? "P3" })
        return processed(response)
      }
      const close = /^\/v2\/alerts\/([^/]+)\/close$/.exec(url.pathname)
      if (close !== null) {
        if (url.searchParams.get("identifierType") !== "alias") {
          return refuse(request, response, 422, ["identifierType must be alias for an alias"])
        }
        const problems = opsgenieCloseProblems(request.body)
        if (problems.length > 0) return refuse(request, response, 422, problems)
        const alias = decodeURIComponent(close[1]!)
        const body = JSON.parse(request.body)
        accepted.push({ action: "close", alias, body })
        const alert = alerts.get(alias)
        if (alert !== undefined) {
          alert.status = "closed"
          alert.closeNote = body.note
        }
        return processed(response)
      }
      refuse(request, response, 404, [`${url.pathname} is not an Alert API action`])
    })
    const origin = new URL(target.url).origin
    return { ...target, url: `${origin}/v2/alerts`, alerts, accepted, refused }
  })
