/** Reading the audit log over HTTP, and acting with an API key of the test's own. */
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { OpenApi } from "effect/http-api"

import { Api } from "../../src/api/Api.js"
import type { Actor, FieldChange, Target } from "../../src/domain/Audit.js"
import { Anonymous, sendJson } from "../support/TestServer.js"

/** An entry as the API answers it (JSON). */
export interface Entry {
  readonly id: string
  readonly at: string
  readonly actor: Actor
  readonly clientAddress: string | null
  readonly operation: string
  readonly target: Target
  readonly changes: Readonly<Record<string, FieldChange>>
}

/** Runs `effect` (raw requests: `sendJson`) authenticated with `key` instead of the suite's key. */
export const asKey = (key: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Anonymous, (anonymous) =>
    effect.pipe(
      Effect.provideService(
        HttpClient.HttpClient,
        anonymous.pipe(HttpClient.mapRequest(HttpClientRequest.bearerToken(key)))
      )
    ))

/** A page of the log as the suite's key reads it: `query` as the URL's query string. */
export const readLog = (query = "") =>
  Effect.map(sendJson("GET", `/api/v1/admin/audit-log${query === "" ? "" : `?${query}`}`), (response) => {
    if (response.status !== 200) {
      throw new Error(`GET audit-log?${query}: ${response.status} ${JSON.stringify(response.body)}`)
    }
    return { entries: response.body as ReadonlyArray<Entry>, link: response.headers["link"] }
  })

/** The whole log, newest first, following the pages' `Link` headers. */
export const wholeLog = Effect.gen(function*() {
  const all: Array<Entry> = []
  let query = "limit=1000"
  for (;;) {
    const page = yield* readLog(query)
    all.push(...page.entries)
    const next = page.link === undefined ? undefined : /<[^>]*\?([^>]*)>; rel="next"/.exec(page.link)?.[1]
    if (next === undefined) return all
    query = next
  }
})

/** The id of the newest entry; undefined while the log is empty. */
export const newestId = Effect.map(readLog("limit=1"), (page) => page.entries[0]?.id)

/** The entries made after the entry `since` (all of them when undefined), oldest first. */
export const entriesSince = (since: string | undefined) =>
  Effect.map(readLog("limit=1000"), (page) => {
    const at = since === undefined ? -1 : page.entries.findIndex((entry) => entry.id === since)
    if (since !== undefined && at === -1) throw new Error(`entry ${since} is not among the newest 1000`)
    return page.entries.slice(0, at === -1 ? page.entries.length : at).reverse()
  })

/** The operationIds of the API's admin writes, from the OpenAPI document: every non-GET under /api/v1/admin/. */
export const adminWriteOperations = (): ReadonlyArray<string> => {
  const document = OpenApi.fromApi(Api)
  return Object.entries(document.paths).flatMap(([path, item]) =>
    path.startsWith("/api/v1/admin/")
      ? Object.entries(item as Record<string, unknown>).flatMap(([method, operation]) =>
        method !== "get" && typeof operation === "object" && operation !== null && "operationId" in operation
          ? [String(operation.operationId)]
          : []
      )
      : []
  )
}
