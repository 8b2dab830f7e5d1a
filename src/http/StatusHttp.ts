import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../api/Api.js"
import { PublicSnapshot } from "../services/PublicSnapshot.js"
import type { EncodedResponse } from "../services/PublicSnapshot.js"
import { defaultUptimePeriod } from "../domain/Uptime.js"
import { Uptime } from "../services/Uptime.js"
import { toHttpResponse } from "./PublicResponses.js"

/** Answers from the snapshot's pre-encoded bytes, with ETag and 304 on a matching If-None-Match. */
const respond = <E, R>(response: Effect.Effect<EncodedResponse | undefined, E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const found = yield* response
    if (found === undefined) return yield* Effect.dieMessage("The snapshot lacks a public path")
    return toHttpResponse(request.headers["if-none-match"], found)
  })

export const StatusHttp = HttpApiBuilder.group(Api, "status", (handlers) =>
  Effect.gen(function*() {
    const snapshot = yield* PublicSnapshot
    const uptime = yield* Uptime
    const path = (suffix: string) => snapshot.cached(`/api/v1/status${suffix}`)
    return handlers
      .handle("summary", () => respond(path("")))
      .handle("components", () => respond(path("/components")))
      .handle("incidents", ({ urlParams }) => respond(snapshot.incidents(urlParams)))
      .handle("incident", ({ path }) => respond(snapshot.incident(path.id)))
      .handle("maintenance", () => respond(path("/maintenance")))
      .handle("rss", () => respond(path("/rss")))
      .handle("atom", () => respond(path("/atom")))
      // Uptime changes every minute for every component: read from its rollups, not the snapshot.
      .handle("uptime", ({ urlParams }) => uptime.read(urlParams.period ?? defaultUptimePeriod))
  }))
